package script

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// maxHandles bounds the handle cache. The zone Forgets entities that leave
// it, so the cache holds about the zone's live entities; past the bound
// (a zone that forgets to Forget) it is dropped and rebuilt, and equality
// still holds through __eq.
const maxHandles = 1 << 16

// handle is the Go side of a Lua handle: an ID and the VM that issued it.
// Lua never holds a pointer into the zone; every use resolves the ID
// through the Host, so a handle to a dead entity does nothing, and one
// from another VM is refused before the Host is asked.
type handle struct {
	vm   *VM
	id   ID
	dead bool // Forgotten: resolves to nil even if the ID names something again
}

// handle returns the Lua handle for id.
func (vm *VM) handle(id ID) *lua.LUserData {
	if ud, ok := vm.handles[id]; ok {
		return ud
	}
	if len(vm.handles) >= maxHandles {
		vm.handles = make(map[ID]*lua.LUserData)
	}
	ud := vm.ls.NewUserData()
	ud.Value = &handle{vm: vm, id: id}
	ud.Metatable = vm.handleMeta
	vm.handles[id] = ud
	return ud
}

// own returns the handle at stack index n if it is a live handle of this
// VM.
func (vm *VM) own(L *lua.LState, n int) (*handle, bool) {
	ud, ok := L.Get(n).(*lua.LUserData)
	if !ok {
		return nil, false
	}
	h, ok := ud.Value.(*handle)
	if !ok || h.vm != vm || h.dead || L != vm.ls {
		return nil, false
	}
	return h, true
}

// info resolves the handle at n and reads its entity.
func (vm *VM) info(L *lua.LState, n int) (ID, Info, bool) {
	h, ok := vm.own(L, n)
	if !ok {
		return ID{}, Info{}, false
	}
	inf, ok := vm.host.Info(h.id)
	return h.id, inf, ok
}

// roomArg reads a room: a room handle of this VM, or a room ref.
func (vm *VM) roomArg(L *lua.LState, n int) (ID, bool) {
	if s, ok := L.Get(n).(lua.LString); ok {
		return ID{Kind: KindRoom, Ref: string(s)}, true
	}
	h, ok := vm.own(L, n)
	if !ok || h.id.Kind != KindRoom {
		return ID{}, false
	}
	return h.id, true
}

// text reads a string argument a player may see, capped.
func text(L *lua.LState, n int) string {
	return capText(L.CheckString(n), maxTextBytes)
}

// amount reads a damage or heal amount, clamped to [0, 1e6].
func amount(L *lua.LState, n int) int {
	f := float64(L.CheckNumber(n))
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return int(math.Min(f, 1e6))
}

func (vm *VM) openHandles() {
	L := vm.ls
	methods := map[string]lua.LGFunction{
		"id":        vm.hID,
		"name":      vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LString(i.Name)) }),
		"short":     vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LString(i.Short)) }),
		"long":      vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LString(i.Long)) }),
		"level":     vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LNumber(i.Level)) }),
		"is_player": vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LBool(i.Player)) }),
		"proto":     vm.hInfo(func(L *lua.LState, i Info) { L.Push(lua.LString(i.Proto)) }),
		"flags":     vm.hInfo(vm.pushFlags),
		"vitals":    vm.hInfo(vm.pushVitals),
		"has_flag":  vm.hHasFlag,
		"room":      vm.hRoom,
		"contents":  vm.hContents,
		"occupants": vm.hOccupants,
		"exits":     vm.hExits,
		"send":      vm.hSend,
		"say":       vm.hSay,
		"emote":     vm.hEmote,
		"move":      vm.hMove,
		"teleport":  vm.hTeleport,
		"damage":    vm.hDamage,
		"heal":      vm.hHeal,
		"give":      vm.hGive,
		"purge":     vm.hPurge,
		"set_door":  vm.hSetDoor,
	}
	m := L.NewTable()
	for name, f := range methods {
		m.RawSetString(name, vm.fn(f))
	}
	vm.methods = m
	mt := L.NewTable()
	mt.RawSetString("__index", vm.fn(vm.handleIndex))
	mt.RawSetString("__newindex", vm.fn(vm.handleNewIndex))
	mt.RawSetString("__eq", vm.fn(vm.handleEq))
	mt.RawSetString("__tostring", vm.fn(vm.handleString))
	mt.RawSetString("__metatable", lockedMarker)
	vm.handleMeta = mt
	vm.frozen[m] = struct{}{}
	vm.frozen[mt] = struct{}{}
}

// handleIndex serves h.method and self.state. Only the running entity's
// own handle has a state; another entity's state is not reachable. The
// state stays readable for the rest of a call in which the entity went
// away (a script that purges itself and then tidies up).
func (vm *VM) handleIndex(L *lua.LState) int {
	key := L.Get(2)
	if s, ok := key.(lua.LString); ok && s == "state" {
		if e := vm.selfOf(L, 1); e != nil {
			L.Push(e.state)
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	L.Push(vm.methods.RawGet(key))
	return 1
}

// selfOf returns the running entity if the value at n is its own handle.
func (vm *VM) selfOf(L *lua.LState, n int) *entity {
	ud, ok := L.Get(n).(*lua.LUserData)
	if !ok {
		return nil
	}
	h, ok := ud.Value.(*handle)
	fr := vm.cur()
	if !ok || h.vm != vm || fr == nil || fr.ent.id != h.id {
		return nil
	}
	return fr.ent
}

// handleNewIndex allows one assignment: self.state = a table.
func (vm *VM) handleNewIndex(L *lua.LState) int {
	if s, ok := L.Get(2).(lua.LString); ok && s == "state" {
		e := vm.selfOf(L, 1)
		t, isTable := L.Get(3).(*lua.LTable)
		if e != nil && isTable {
			if _, frozen := vm.frozen[t]; !frozen {
				e.state = t
				return 0
			}
		}
		L.RaiseError("self.state can only be set to a table, on self")
	}
	L.RaiseError("cannot assign to a field of a handle")
	return 0
}

func (vm *VM) handleEq(L *lua.LState) int {
	a, okA := vm.own(L, 1)
	b, okB := vm.own(L, 2)
	L.Push(lua.LBool(okA && okB && a.id == b.id))
	return 1
}

func (vm *VM) handleString(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	if !ok {
		L.Push(lua.LString("handle (gone)"))
		return 1
	}
	s := idString(h.id)
	if inf, ok := vm.host.Info(h.id); ok && h.id.Kind != KindRoom {
		s += " (" + inf.Short + ")"
	}
	L.Push(lua.LString(s))
	return 1
}

// idString is what h:id() returns: a room's ref, "char:<rid>" or
// "item:<rid>".
func idString(id ID) string {
	switch id.Kind {
	case KindRoom:
		return id.Ref
	case KindChar:
		return "char:" + strconv.FormatUint(id.RID, 10)
	case KindItem:
		return "item:" + strconv.FormatUint(id.RID, 10)
	}
	return "unknown"
}

func (vm *VM) hID(L *lua.LState) int {
	id, _, ok := vm.info(L, 1)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(idString(id)))
	return 1
}

// hInfo makes a read method that pushes one value from the entity's Info,
// or nil.
func (vm *VM) hInfo(push func(*lua.LState, Info)) lua.LGFunction {
	return func(L *lua.LState) int {
		_, inf, ok := vm.info(L, 1)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		push(L, inf)
		return 1
	}
}

func (vm *VM) pushFlags(L *lua.LState, i Info) {
	t := L.CreateTable(len(i.Flags), 0)
	for _, f := range i.Flags {
		t.Append(lua.LString(f))
	}
	L.Push(t)
}

func (vm *VM) pushVitals(L *lua.LState, i Info) {
	t := L.CreateTable(0, 6)
	t.RawSetString("hp", lua.LNumber(i.HP))
	t.RawSetString("max_hp", lua.LNumber(i.MaxHP))
	t.RawSetString("mana", lua.LNumber(i.Mana))
	t.RawSetString("max_mana", lua.LNumber(i.MaxMana))
	t.RawSetString("moves", lua.LNumber(i.Moves))
	t.RawSetString("max_moves", lua.LNumber(i.MaxMoves))
	L.Push(t)
}

func (vm *VM) hHasFlag(L *lua.LState) int {
	_, inf, ok := vm.info(L, 1)
	flag := L.CheckString(2)
	if !ok {
		L.Push(lua.LFalse)
		return 1
	}
	for _, f := range inf.Flags {
		if f == flag {
			L.Push(lua.LTrue)
			return 1
		}
	}
	L.Push(lua.LFalse)
	return 1
}

func (vm *VM) hRoom(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	room, ok := vm.host.Room(h.id)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(vm.handle(room))
	return 1
}

// pushList pushes a list of handles.
func (vm *VM) pushList(L *lua.LState, ids []ID) {
	t := L.CreateTable(len(ids), 0)
	for _, id := range ids {
		t.Append(vm.handle(id))
	}
	L.Push(t)
}

func (vm *VM) hContents(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	vm.pushList(L, vm.host.Contents(h.id))
	return 1
}

func (vm *VM) hOccupants(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	if !ok || h.id.Kind != KindRoom {
		L.Push(lua.LNil)
		return 1
	}
	vm.pushList(L, vm.host.Occupants(h.id))
	return 1
}

// hExits returns direction -> room handle for rooms of this zone, and the
// ref string for a destination in another zone.
func (vm *VM) hExits(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	if !ok || h.id.Kind != KindRoom {
		L.Push(lua.LNil)
		return 1
	}
	exits := vm.host.Exits(h.id)
	t := L.CreateTable(0, len(exits))
	for dir, ref := range exits {
		to := ID{Kind: KindRoom, Ref: ref}
		if _, here := vm.host.Info(to); here {
			t.RawSetString(dir, vm.handle(to))
		} else {
			t.RawSetString(dir, lua.LString(ref))
		}
	}
	L.Push(t)
	return 1
}

// act pushes the result of an act: false when the handle does not resolve.
func act(L *lua.LState, did bool) int {
	L.Push(lua.LBool(did))
	return 1
}

func (vm *VM) hSend(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	msg := text(L, 2)
	return act(L, ok && vm.host.Send(h.id, msg))
}

// speaker resolves the handle that is to say or emote something. Putting
// words in a player's mouth is refused unless the player is the actor
// whose script runs: the same self-only rule as mud.send_to_instance.
func (vm *VM) speaker(L *lua.LState) (ID, bool) {
	id, inf, ok := vm.info(L, 1)
	if !ok {
		return ID{}, false
	}
	if inf.Player {
		if fr := vm.cur(); fr == nil || fr.ent.id != id {
			return ID{}, false
		}
	}
	return id, true
}

func (vm *VM) hSay(L *lua.LState) int {
	msg := text(L, 2)
	id, ok := vm.speaker(L)
	return act(L, ok && vm.host.Say(id, msg))
}

func (vm *VM) hEmote(L *lua.LState) int {
	msg := text(L, 2)
	id, ok := vm.speaker(L)
	return act(L, ok && vm.host.Emote(id, msg))
}

func (vm *VM) hMove(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	dir := capText(L.CheckString(2), 64)
	return act(L, ok && vm.host.Move(h.id, dir))
}

func (vm *VM) hTeleport(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	room, okRoom := vm.roomArg(L, 2)
	return act(L, ok && okRoom && vm.host.Teleport(h.id, room.Ref))
}

func (vm *VM) hDamage(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	n := amount(L, 2)
	var from ID
	if fr := vm.cur(); fr != nil {
		from = fr.ent.id
	}
	return act(L, ok && vm.host.Damage(h.id, n, from))
}

func (vm *VM) hHeal(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	n := amount(L, 2)
	return act(L, ok && vm.host.Heal(h.id, n))
}

func (vm *VM) hGive(L *lua.LState) int {
	to, ok := vm.own(L, 1)
	item, okItem := vm.own(L, 2)
	return act(L, ok && okItem && item.id.Kind == KindItem && vm.host.Give(item.id, to.id))
}

func (vm *VM) hPurge(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	return act(L, ok && vm.host.Purge(h.id))
}

func (vm *VM) hSetDoor(L *lua.LState) int {
	h, ok := vm.own(L, 1)
	dir := capText(L.CheckString(2), 64)
	state := L.CheckString(3)
	switch state {
	case "open", "closed", "locked":
	default:
		L.ArgError(3, `door state must be "open", "closed" or "locked"`)
	}
	return act(L, ok && h.id.Kind == KindRoom && vm.host.SetDoor(h.id, dir, state))
}
