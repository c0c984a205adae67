package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Bounds of mud.after and mud.roll.
const (
	maxAfterPulses = 100000
	maxDice        = 100
	maxDieSides    = 10000
	maxRollBonus   = 1000000
)

func (vm *VM) mudLib() *lua.LTable {
	t := vm.ls.NewTable()
	for name, f := range map[string]lua.LGFunction{
		"after":            vm.mudAfter,
		"cancel":           vm.mudCancel,
		"random":           vm.luaRandom,
		"roll":             vm.mudRoll,
		"zone":             vm.mudZone,
		"spawn":            vm.mudSpawn,
		"broadcast":        vm.mudBroadcast,
		"log":              vm.mudLog,
		"send_to_instance": vm.mudSendToInstance,
		"quest_start":      vm.mudQuestStart,
		"quest_advance":    vm.mudQuestAdvance,
		"quest_state":      vm.mudQuestState,
	} {
		t.RawSetString(name, vm.fn(f))
	}
	return t
}

// running returns the call in progress; mud functions only work inside
// one (a function value kept and called later is always inside one too,
// since Lua runs only through VM.call).
func (vm *VM) running(L *lua.LState) *frame {
	fr := vm.cur()
	if fr == nil {
		L.RaiseError("mud function called outside a script call")
	}
	return fr
}

// mudAfter is mud.after(pulses, fn): fn runs after that many pulses, as
// the entity that scheduled it, through the same chokepoint as a trigger.
// It returns the timer's id. Timers die with their entity.
func (vm *VM) mudAfter(L *lua.LState) int {
	fr := vm.running(L)
	pulses := checkInteger(L, 1)
	fn := L.CheckFunction(2)
	if pulses < 1 || pulses > maxAfterPulses {
		L.ArgError(1, "pulses must be between 1 and 100000")
	}
	if len(vm.timers) >= vm.cfg.MaxTimers {
		L.RaiseError("mud.after: the zone already has %d live timers, its limit", vm.cfg.MaxTimers)
	}
	vm.nextTimer++
	id := vm.nextTimer
	t := &timer{owner: fr.ent, fn: fn}
	vm.timers[id] = t
	if fr.ent.timers == nil {
		fr.ent.timers = make(map[int64]struct{})
	}
	fr.ent.timers[id] = struct{}{}
	t.cancel = vm.host.After(int(pulses), func() { vm.fireTimer(id) })
	L.Push(lua.LNumber(id))
	return 1
}

// fireTimer runs a due timer, if it still exists and its entity still has
// the script that scheduled it. While the zone's budget for this pulse is
// spent, the timer waits for the next pulse.
func (vm *VM) fireTimer(id int64) {
	t, ok := vm.timers[id]
	if !ok || vm.closed {
		return
	}
	if vm.OverBudget() && t.owner.attached {
		vm.stats.Deferred++
		t.cancel = vm.host.After(1, func() { vm.fireTimer(id) })
		return
	}
	delete(vm.timers, id)
	delete(t.owner.timers, id)
	if !t.owner.attached {
		return
	}
	vm.call(t.owner, t.fn)
}

// mudCancel is mud.cancel(id): it cancels a timer of the running entity
// and reports whether there was one.
func (vm *VM) mudCancel(L *lua.LState) int {
	fr := vm.running(L)
	id := int64(checkInteger(L, 1))
	t, ok := vm.timers[id]
	if !ok || t.owner != fr.ent {
		L.Push(lua.LFalse)
		return 1
	}
	delete(vm.timers, id)
	delete(fr.ent.timers, id)
	if t.cancel != nil {
		t.cancel()
	}
	L.Push(lua.LTrue)
	return 1
}

// mudRoll is mud.roll("NdS+B"): the sum of N dice of S sides plus B. N
// defaults to 1; N <= 100, S <= 10000, |B| <= 1000000.
func (vm *VM) mudRoll(L *lua.LState) int {
	spec := L.CheckString(1)
	n, sides, bonus, ok := parseDice(spec)
	if !ok {
		L.ArgError(1, "dice must look like 2d6+1, with at most 100 dice of at most 10000 sides")
	}
	total := bonus
	for i := 0; i < n; i++ {
		total += 1 + vm.host.IntN(sides)
	}
	L.Push(lua.LNumber(total))
	return 1
}

// parseDice parses "NdS", "NdS+B" or "NdS-B", N optional.
func parseDice(s string) (n, sides, bonus int, ok bool) {
	s = strings.TrimSpace(s)
	num := func() (int, bool) {
		v, i := 0, 0
		for i < len(s) && isDigit(s[i]) && i < 8 {
			v = v*10 + int(s[i]-'0')
			i++
		}
		if i < len(s) && isDigit(s[i]) {
			return 0, false // too many digits
		}
		s = s[i:]
		return v, i > 0
	}
	n, hasN := num()
	if !hasN {
		n = 1
	}
	if s == "" || (s[0] != 'd' && s[0] != 'D') {
		return 0, 0, 0, false
	}
	s = s[1:]
	sides, ok = num()
	if !ok {
		return 0, 0, 0, false
	}
	s = strings.TrimSpace(s)
	if s != "" {
		sign := 1
		switch s[0] {
		case '+':
		case '-':
			sign = -1
		default:
			return 0, 0, 0, false
		}
		s = strings.TrimSpace(s[1:])
		b, okB := num()
		if !okB || s != "" || b > maxRollBonus {
			return 0, 0, 0, false
		}
		bonus = sign * b
	}
	if n < 1 || n > maxDice || sides < 1 || sides > maxDieSides {
		return 0, 0, 0, false
	}
	return n, sides, bonus, true
}

func (vm *VM) mudZone(L *lua.LState) int {
	L.Push(lua.LString(vm.host.ZoneID()))
	return 1
}

// mudSpawn is mud.spawn(proto, where): a prototype into a room (a handle
// or a ref), or an item to a character. It returns the new entity's
// handle, or nil and a reason. More than MaxSpawnsPerCall in one call is
// an error; past MaxSpawnsPerZone live spawns it returns nil.
func (vm *VM) mudSpawn(L *lua.LState) int {
	fr := vm.running(L)
	proto := L.CheckString(1)
	var where ID
	if room, ok := vm.roomArg(L, 2); ok {
		where = room
	} else if h, ok := vm.own(L, 2); ok {
		where = h.id
	} else {
		L.Push(lua.LNil)
		L.Push(lua.LString("no such place"))
		return 2
	}
	if fr.spawns >= vm.cfg.MaxSpawnsPerCall {
		L.RaiseError("mud.spawn: more than %d spawns in one call", vm.cfg.MaxSpawnsPerCall)
	}
	if len(vm.spawned) >= vm.cfg.MaxSpawnsPerZone {
		L.Push(lua.LNil)
		L.Push(lua.LString("zone spawn limit reached"))
		return 2
	}
	fr.spawns++
	id, ok := vm.host.Spawn(proto, where)
	if !ok {
		L.Push(lua.LNil)
		L.Push(lua.LString("spawn failed"))
		return 2
	}
	vm.spawned[id] = struct{}{}
	L.Push(vm.handle(id))
	return 1
}

func (vm *VM) mudBroadcast(L *lua.LState) int {
	room, ok := vm.roomArg(L, 1)
	msg := text(L, 2)
	return act(L, ok && vm.host.Broadcast(room, msg))
}

func (vm *VM) mudLog(L *lua.LState) int {
	vm.running(L)
	vm.log(L.CheckString(1))
	return 0
}

// mudSendToInstance is mud.send_to_instance(player, template). It is
// self-only: it acts only when the entity whose script runs is that
// player. A room's, mob's or item's script never reaches Host.SendToInstance,
// whoever triggered it: standing in a room is not consent.
func (vm *VM) mudSendToInstance(L *lua.LState) int {
	fr := vm.running(L)
	id, inf, ok := vm.info(L, 1)
	template := L.CheckString(2)
	if !ok || !inf.Player || fr.ent.id != id {
		L.Push(lua.LNil)
		L.Push(lua.LString("not allowed"))
		return 2
	}
	if err := vm.host.SendToInstance(id, template); err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// maxQuestStep bounds the step mud.quest_advance takes.
const maxQuestStep = 1000

// questPlayer reads a quest call's player and quest id; ok is false (and
// nil, why pushed) when the first is no player here.
func (vm *VM) questPlayer(L *lua.LState) (ID, string, bool) {
	vm.running(L)
	id, inf, ok := vm.info(L, 1)
	quest := L.CheckString(2)
	if !ok || !inf.Player {
		L.Push(lua.LNil)
		L.Push(lua.LString("not a player here"))
		return ID{}, "", false
	}
	return id, quest, true
}

// mudQuestStart is mud.quest_start(player, quest): true, or nil and the
// line that refuses it (already on it, already done, level, prerequisite).
func (vm *VM) mudQuestStart(L *lua.LState) int {
	id, quest, ok := vm.questPlayer(L)
	if !ok {
		return 2
	}
	if why := vm.host.QuestStart(id, quest); why != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(why))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// mudQuestAdvance is mud.quest_advance(player, quest[, step]): it finishes
// the step the quest is at, or puts it at step (1-based); true, or nil
// and why not.
func (vm *VM) mudQuestAdvance(L *lua.LState) int {
	id, quest, ok := vm.questPlayer(L)
	if !ok {
		return 2
	}
	step := 0
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		n := checkInteger(L, 3)
		if n < 1 || n > maxQuestStep {
			L.ArgError(3, "step must be between 1 and 1000")
		}
		step = int(n)
	}
	if why := vm.host.QuestAdvance(id, quest, step); why != "" {
		L.Push(lua.LNil)
		L.Push(lua.LString(why))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// mudQuestState is mud.quest_state(player, quest): "none", "active" and
// the step it is at (1-based), or "done"; nil for no player or quest.
func (vm *VM) mudQuestState(L *lua.LState) int {
	vm.running(L)
	id, inf, ok := vm.info(L, 1)
	quest := L.CheckString(2)
	if !ok || !inf.Player {
		L.Push(lua.LNil)
		return 1
	}
	state, step := vm.host.QuestState(id, quest)
	if state == "" {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(state))
	if state == "active" {
		L.Push(lua.LNumber(step))
		return 2
	}
	return 1
}
