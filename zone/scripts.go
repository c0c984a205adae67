package zone

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/script"
)

// Scripts. Each zone owns one Lua VM (package script), made when the zone
// boots if any of its rooms, mobs or items has a script. Compiled scripts
// come from the world, compiled once per content set and shared by every
// zone and instance. The VM reaches the zone only through scriptHost, which
// resolves every ID against this zone's own maps, so a script can never
// touch another zone's entities.

// Scripts is what the world hands a zone: compiled scripts by source, and
// the [lua] configuration.
type Scripts struct {
	Compiled map[*content.Script]*script.Compiled
	Config   script.Config
	// Share is the process's account of script work, the same for every
	// zone and instance; nil in tests that run a zone alone.
	Share *script.Share
}

func roomID(r *Room) script.ID { return script.ID{Kind: script.KindRoom, Ref: r.ref()} }
func charID(c *Char) script.ID { return script.ID{Kind: script.KindChar, RID: uint64(c.rid)} }
func itemID(it *Item) script.ID {
	return script.ID{Kind: script.KindItem, RID: uint64(it.rid)}
}

// startScripts makes the VM and attaches the rooms' scripts. Mobs and items
// attach as they spawn.
func (z *Zone) startScripts() {
	if z.scripts.Compiled == nil || !z.hasScripts() {
		return
	}
	z.vm = script.New(scriptHost{z}, z.scripts.Config)
	if z.scripts.Share != nil {
		z.vm.UseShare(z.scripts.Share)
	}
	for _, rp := range z.proto.Rooms {
		if rp.Script != nil {
			z.attachTo(roomID(z.rooms[rp.Ref]), rp.Script)
		}
	}
}

// hasScripts reports whether anything in this zone's content has a script.
func (z *Zone) hasScripts() bool {
	for _, r := range z.proto.Rooms {
		if r.Script != nil {
			return true
		}
	}
	for _, m := range z.proto.Mobs {
		if m.Script != nil {
			return true
		}
	}
	for _, it := range z.proto.Items {
		if it.Script != nil {
			return true
		}
	}
	return false
}

func (z *Zone) attachTo(id script.ID, src *content.Script) {
	c := z.scripts.Compiled[src]
	if c == nil || z.vm == nil {
		return
	}
	if err := z.vm.Attach(id, c); err == nil && z.vm.Has(id, "on_tick") {
		z.ticking = append(z.ticking, id)
		if !z.tickTimer.active() {
			// Only while something has on_tick: a zone whose scripts do
			// not tick may still go dormant.
			z.tickTimer = z.pulses.every(4, z.scriptTick)
		}
	}
}

// scriptTick starts a round of on_tick, once a second, for the entities
// that define it, and stops itself when none is left. A round that the
// zone's script budget cut short goes on in the following pulses
// (runTicks); one still unfinished when the next begins is cut, and the
// next round starts where it stopped, so every entity gets its turn.
func (z *Zone) scriptTick() {
	z.tickSkipped += uint64(z.tickLeft)
	z.tickLeft = len(z.ticking)
	z.runTicks()
	if len(z.ticking) == 0 {
		z.tickTimer.cancel()
	}
}

// runTicks fires on_tick for the rest of the round, from the cursor,
// until the round is done or the pulse's budget is spent; then it comes
// back next pulse.
func (z *Zone) runTicks() {
	for z.tickLeft > 0 && len(z.ticking) > 0 {
		if z.tickNext >= len(z.ticking) {
			z.tickNext = 0
		}
		id := z.ticking[z.tickNext]
		if !z.vm.Has(id, "on_tick") {
			z.ticking = slices.Delete(z.ticking, z.tickNext, z.tickNext+1)
			z.tickLeft = min(z.tickLeft, len(z.ticking))
			continue
		}
		if !z.vm.Tick(id) {
			if !z.tickRest.active() {
				z.tickRest = z.pulses.after(1, z.runTicks)
			}
			return
		}
		z.tickNext++
		z.tickLeft--
	}
	z.tickLeft = 0
}

// scriptPulse closes the VM's account of a pulse. A pulse whose budget
// was spent is counted, and at most once a minute the zone tells its
// builders online and the log which scripts did the most work.
func (z *Zone) scriptPulse() {
	if z.vm == nil {
		return
	}
	if z.vm.StartPulse() {
		z.overruns++
	}
	z.runWaiting()
	if z.overruns == 0 && z.trigWaited == 0 && z.trigSkipped == 0 ||
		z.budgetReported > 0 && z.pulses.now < z.budgetReported+budgetReportPulses {
		return
	}
	heavy := z.vm.TakeHeaviest(3)
	parts := make([]string, len(heavy))
	for i, h := range heavy {
		parts[i] = fmt.Sprintf("%s (%s:%d) %d", h.Key, h.File, h.Line, h.Work)
	}
	var what []string
	if z.overruns > 0 {
		what = append(what, fmt.Sprintf("scripts spent the budget of %d instructions in %d pulses since the last report; on_tick and mud.after waited (%d on_tick calls skipped)",
			z.scripts.Config.PulseInstructions, z.overruns, z.tickSkipped))
	}
	if z.trigWaited > 0 || z.trigSkipped > 0 {
		what = append(what, fmt.Sprintf("triggers of players' actions spent their budget of %d instructions a pulse; %d waited for a later pulse and %d were skipped (on_command, or too many waiting)",
			z.scripts.Config.TriggerInstructions, z.trigWaited, z.trigSkipped))
	}
	msg := fmt.Sprintf("zone %s: %s. Heaviest: %s", z.id, strings.Join(what, "; "), strings.Join(parts, ", "))
	z.log.Warn("zone: the scripts' budget was spent", logev.ID(7201), "pulses", z.overruns, "ticks_skipped", z.tickSkipped,
		"triggers_waited", z.trigWaited, "triggers_skipped", z.trigSkipped, "heaviest", strings.Join(parts, ", "))
	z.tellBuilders("{Y}[script]{x} " + markup.Escape(msg))
	z.overruns, z.tickSkipped, z.trigWaited, z.trigSkipped = 0, 0, 0, 0
	z.budgetReported = z.pulses.now
}

// waitingTrigger is a trigger of a player's action put off to a later
// pulse by the trigger budget. An arrival's triggers (on_enter, on_greet)
// still fire only if the character is still in the room it arrived in.
type waitingTrigger struct {
	id      script.ID
	trigger string
	c       *Char // the actor
	r       *Room // the room of the act
	args    []any // script arguments, already converted
}

// maxWaiting bounds the triggers a zone keeps waiting; past it the oldest
// stay and new ones are skipped (and reported).
const maxWaiting = 4096

// fireAct fires a trigger an action fired (on_enter, on_greet, on_speech,
// on_leave) under the zone's trigger budget; once this pulse's is spent,
// the trigger waits for a later pulse, in order.
func (z *Zone) fireAct(id script.ID, trigger string, c *Char, r *Room, args ...any) {
	args = scriptArgs(args)
	if len(z.trigWaiting) == 0 { // what waits goes first
		if _, ran := z.vm.FireTrigger(id, trigger, args...); ran {
			return
		}
	}
	if len(z.trigWaiting) >= maxWaiting {
		z.trigSkipped++
		return
	}
	z.trigWaited++
	z.trigWaiting = append(z.trigWaiting, waitingTrigger{id: id, trigger: trigger, c: c, r: r, args: args})
}

// runWaiting fires the waiting triggers, oldest first, until the pulse's
// trigger budget is spent again.
func (z *Zone) runWaiting() {
	n := 0
	for n < len(z.trigWaiting) && !z.vm.TriggersOverBudget() {
		w := z.trigWaiting[n]
		n++
		if (w.trigger == "on_enter" || w.trigger == "on_greet") && (w.c.room != w.r || !z.holds(w.c)) {
			continue // the arrival is over
		}
		z.vm.FireTrigger(w.id, w.trigger, w.args...)
	}
	z.trigWaiting = slices.Delete(z.trigWaiting, 0, n)
	if len(z.trigWaiting) == 0 {
		z.trigWaiting = nil
	}
}

// budgetReportPulses is how often, at most, the zone reports a spent
// script budget: a minute of pulses.
const budgetReportPulses = uint64(time.Minute / PulseInterval)

// attachScript gives a new mob its script.
func (z *Zone) attachScript(c *Char) {
	if c.mob != nil && c.mob.Script != nil {
		z.attachTo(charID(c), c.mob.Script)
	}
}

// attachItemScript gives a new item its script.
func (z *Zone) attachItemScript(it *Item) {
	if it.proto.Script != nil {
		z.attachTo(itemID(it), it.proto.Script)
	}
}

// forgetScript tells the VM a character is gone from this zone.
func (z *Zone) forgetScript(c *Char) {
	if z.vm != nil {
		z.vm.Forget(charID(c))
	}
}

// forgetItemScript tells the VM an item is gone from this zone.
func (z *Zone) forgetItemScript(it *Item) {
	if z.vm != nil {
		z.vm.Forget(itemID(it))
	}
}

// fire runs a trigger of a mob's script.
func (z *Zone) fire(c *Char, trigger string, args ...any) {
	if z.vm != nil && c != nil && c.mob != nil && c.mob.Script != nil {
		z.vm.Fire(charID(c), trigger, scriptArgs(args)...)
	}
}

// scriptArgs turns characters and items into script IDs.
func scriptArgs(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case *Char:
			if v == nil {
				args[i] = nil
			} else {
				args[i] = charID(v)
			}
		case *Item:
			args[i] = itemID(v)
		case *Room:
			args[i] = roomID(v)
		}
	}
	return args
}

// fireArrival tells a room's script (on_enter) and, for a player, its
// mobs' (on_greet) that c arrived.
func (z *Zone) fireArrival(r *Room, c *Char) {
	if z.vm == nil {
		return
	}
	if r.proto.Script != nil {
		z.fireAct(roomID(r), "on_enter", c, r, c)
	}
	if c.pl == nil {
		return
	}
	for _, m := range append([]*Char(nil), r.mobs...) {
		if m != c && m.mob != nil && m.mob.Script != nil && z.holds(c) && c.room == r {
			z.fireAct(charID(m), "on_greet", c, r, c)
		}
	}
}

// fireLeave tells the room's script (on_leave) that c left it by dir.
func (z *Zone) fireLeave(r *Room, c *Char, dir string) {
	if z.vm != nil && r != nil && r.proto.Script != nil {
		z.fireAct(roomID(r), "on_leave", c, r, c, dir)
	}
}

// fireSpeech tells the room's script and its mobs' what c said.
func (z *Zone) fireSpeech(c *Char, text string) {
	if z.vm == nil || c.room == nil {
		return
	}
	r := c.room
	if r.proto.Script != nil {
		z.fireAct(roomID(r), "on_speech", c, r, c, text)
	}
	for _, m := range append([]*Char(nil), r.mobs...) {
		if m != c && m.mob != nil && m.mob.Script != nil {
			z.fireAct(charID(m), "on_speech", c, r, c, text)
		}
	}
}

// scriptCommand lets the room's script, then its mobs', then items at hand
// handle a verb first (`pull lever`). It reports whether one did. A
// script may refuse a move (handle a direction, with a line of its own),
// but not forever: see refusedMove.
func (z *Zone) scriptCommand(c *Char, verb, args string) bool {
	if z.vm == nil || c.room == nil || c.pl == nil {
		return false
	}
	key, handled := z.askScripts(c, verb, args)
	d, isMove := z.wayOut(c, verb)
	switch {
	case !isMove:
		return z.swallowed(c, verb, key, handled)
	case !handled:
		c.pl.refused = refusals{}
		return false
	}
	return z.refusedMove(c, d, key)
}

// askScripts offers the verb to the scripts at hand, in order, and returns
// the key of the one that handled it. Once the pulse's trigger budget is
// spent, the command goes on as if no script had taken it: a command
// cannot wait for a later pulse.
func (z *Zone) askScripts(c *Char, verb, args string) (key string, handled bool) {
	ask := func(id script.ID) bool {
		if !z.vm.Has(id, "on_command") {
			return false
		}
		handled, ran := z.vm.FireTrigger(id, "on_command", charID(c), verb, args)
		if !ran {
			z.trigSkipped++
		}
		return handled
	}
	r := c.room
	if r.proto.Script != nil && ask(roomID(r)) {
		return r.ref(), true
	}
	for _, m := range append([]*Char(nil), r.mobs...) {
		if m.mob != nil && m.mob.Script != nil && ask(charID(m)) {
			return m.mob.Ref, true
		}
	}
	for _, it := range append(c.carried(), r.items...) {
		if it.proto.Script != nil && ask(itemID(it)) {
			return it.proto.Ref, true
		}
	}
	return "", false
}

// refusals is a player's run of moves refused by scripts in one room.
type refusals struct {
	room  *Room
	count int
	dirs  uint16 // the directions refused, a bit each
}

// escapeCommands are the commands no script may keep from a player for
// ever, whichever script took them (the room's, a mob's, one on an item
// lying here, carried or worn): the ones a player needs to see where they
// are and what holds them, to be rid of it, and to ask for help. Moves
// have a rule of their own (refusedMove) and quit never reaches a script.
var escapeCommands = map[string]bool{
	"look": true, "inventory": true, "equipment": true, "drop": true, "remove": true,
	"help": true, "commands": true, "tell": true, "reply": true,
}

// swallowed reports whether a script's taking of verb stands. A script
// may take any command, but once scripts have taken one of the
// escapeCommands refusalsToLeave times in a row, the next goes on as if
// no script had taken it, and the script's builders are told. The count
// starts afresh each time the command runs untaken.
func (z *Zone) swallowed(c *Char, verb, key string, handled bool) bool {
	cmd := lookupCommand(verb, rolePlayer)
	if cmd == nil || !escapeCommands[cmd.name] {
		return handled
	}
	kept := &c.pl.kept
	if !handled {
		delete(*kept, cmd.name)
		return false
	}
	if *kept == nil {
		*kept = map[string]int{}
	}
	(*kept)[cmd.name]++
	if (*kept)[cmd.name] <= refusalsToLeave {
		return true
	}
	delete(*kept, cmd.name)
	z.sendLine(c, "Scripts have kept "+cmd.name+" from you "+itoa(refusalsToLeave)+" times in a row; this time it goes through.")
	z.reportScript(key, fmt.Sprintf("%s took %s from %s %d times in a row; the command was let through",
		key, cmd.name, c.name, refusalsToLeave))
	return false
}

// refusalsToLeave is how many refused moves in a row, with every way out
// among them, let a player out of a room whatever its scripts say.
const refusalsToLeave = 3

// wayOut reports whether verb names a direction that leads out of c's
// room (an exit or an instance entrance).
func (z *Zone) wayOut(c *Char, verb string) (content.Dir, bool) {
	cmd := lookupCommand(verb, rolePlayer)
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if cmd == &commands[d] { // the directions come first in commands
			return d, waysOut(c.room)&(1<<d) != 0
		}
	}
	return 0, false
}

// waysOut is the set of directions that lead out of r, a bit each.
func waysOut(r *Room) uint16 {
	var m uint16
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if r.proto.Exits[d] != nil || r.entrance(d) != "" {
			m |= 1 << d
		}
	}
	return m
}

// refusedMove counts a script's refusal of c's move d and reports whether
// it stands. A script may refuse a move, but once scripts have refused
// refusalsToLeave moves in a row and every way out of the room among
// them, the player is let through, and the zone's builders are told: no
// script can hold a player in a room.
func (z *Zone) refusedMove(c *Char, d content.Dir, key string) bool {
	rf := &c.pl.refused
	if rf.room != c.room {
		*rf = refusals{room: c.room}
	}
	rf.count++
	rf.dirs |= 1 << d
	if rf.count < refusalsToLeave || rf.dirs&waysOut(c.room) != waysOut(c.room) {
		return true
	}
	*rf = refusals{}
	z.sendLine(c, "Every way out of here has refused you; you are let through.")
	z.reportScript(key, fmt.Sprintf("%s refused every way out of %s to %s, %d times in a row; the player was let through %s",
		key, c.room.ref(), c.name, refusalsToLeave, d))
	return false
}

// reportScript shows a script failure to the zone's builders who are
// online here (and admins), and logs it at most once per script a minute.
func (z *Zone) reportScript(key, msg string) {
	z.tellBuilders("{R}[script]{x} " + markup.Escape(msg))
	z.noteScriptError(key, msg)
	now := time.Now()
	if last, ok := z.scriptLogged[key]; ok && now.Sub(last) < time.Minute {
		return
	}
	if z.scriptLogged == nil {
		z.scriptLogged = map[string]time.Time{}
	}
	z.scriptLogged[key] = now
	z.log.Warn("zone: a script failed", logev.ID(7202), "script", key, "err", msg)
}

// tellBuilders shows a line to the zone's builders online here (named in
// the zone file, or holding a builder role for it), and to admins.
func (z *Zone) tellBuilders(text string) {
	for _, c := range z.players {
		if c.mayBuild(z.template) || z.isBuilder(c.name) {
			z.sendLine(c, text)
			z.prompt(c)
		}
	}
}

func (z *Zone) isBuilder(name string) bool { return namedBuilder(z.proto.Builders, name) }

// namedBuilder reports whether a zone file's builders name the player.
func namedBuilder(builders []string, name string) bool {
	for _, b := range builders {
		if strings.EqualFold(b, name) {
			return true
		}
	}
	return false
}

// scriptHost is the zone as its VM sees it. Every method runs on the zone
// goroutine (the VM is only called from there) and resolves IDs against
// this zone's own maps: an ID that names nothing here is a no-op.
type scriptHost struct{ z *Zone }

func (h scriptHost) char(id script.ID) *Char {
	if id.Kind != script.KindChar {
		return nil
	}
	c := h.z.chars[rid(id.RID)]
	if !h.z.holds(c) {
		return nil
	}
	return c
}

func (h scriptHost) item(id script.ID) *Item {
	if id.Kind != script.KindItem {
		return nil
	}
	return h.z.items[rid(id.RID)]
}

func (h scriptHost) room(id script.ID) *Room {
	if id.Kind != script.KindRoom {
		return nil
	}
	return h.z.localRoom(id.Ref)
}

// roomOf is the room an entity is in.
func (h scriptHost) roomOf(id script.ID) *Room {
	switch id.Kind {
	case script.KindRoom:
		return h.room(id)
	case script.KindChar:
		if c := h.char(id); c != nil {
			return c.room
		}
	case script.KindItem:
		if it := h.item(id); it != nil {
			top := it
			for top.in != nil {
				top = top.in
			}
			if top.room != nil {
				return top.room
			}
			if top.carrier != nil {
				return top.carrier.room
			}
		}
	}
	return nil
}

func (h scriptHost) ZoneID() string { return h.z.id }
func (h scriptHost) IntN(n int) int { return h.z.rng.IntN(max(n, 1)) }

func (h scriptHost) After(pulses int, fn func()) func() {
	t := h.z.pulses.after(uint64(max(pulses, 1)), fn)
	return t.cancel
}

func (h scriptHost) Info(id script.ID) (script.Info, bool) {
	switch id.Kind {
	case script.KindRoom:
		if r := h.room(id); r != nil {
			return script.Info{Kind: script.KindRoom, Proto: r.ref(), Name: r.proto.Name, Short: r.proto.Name, Long: r.proto.Name, Flags: r.proto.Flags.Names()}, true
		}
	case script.KindChar:
		if c := h.char(id); c != nil {
			inf := script.Info{
				Kind: script.KindChar, Name: c.name, Short: c.short(), Long: c.long(), Level: c.level,
				Player: c.pl != nil, HP: c.hp, MaxHP: c.maxHP, Mana: c.mana, MaxMana: c.maxM, Moves: c.mv, MaxMoves: c.maxMv,
			}
			if c.mob != nil {
				inf.Proto, inf.Flags = c.mob.Ref, c.mob.Flags.Names()
			}
			return inf, true
		}
	case script.KindItem:
		if it := h.item(id); it != nil {
			return script.Info{Kind: script.KindItem, Proto: it.proto.Ref, Name: it.short(), Short: it.short(), Long: it.proto.Long, Level: it.proto.Level, Flags: it.proto.Flags.Names()}, true
		}
	}
	return script.Info{}, false
}

func (h scriptHost) Room(id script.ID) (script.ID, bool) {
	if r := h.roomOf(id); r != nil {
		return roomID(r), true
	}
	return script.ID{}, false
}

func (h scriptHost) Contents(id script.ID) []script.ID {
	var items []*Item
	switch id.Kind {
	case script.KindRoom:
		if r := h.room(id); r != nil {
			items = r.items
		}
	case script.KindChar:
		if c := h.char(id); c != nil {
			items = c.carried()
		}
	case script.KindItem:
		if it := h.item(id); it != nil {
			items = it.contents
		}
	}
	out := make([]script.ID, 0, min(len(items), 200))
	for i, it := range items {
		if i == 200 {
			break // a script reads at most 200 at a time
		}
		out = append(out, itemID(it))
	}
	return out
}

func (h scriptHost) Occupants(room script.ID) []script.ID {
	r := h.room(room)
	if r == nil {
		return nil
	}
	out := make([]script.ID, 0, min(len(r.people), 200))
	for i, c := range r.people {
		if i == 200 {
			break
		}
		out = append(out, charID(c))
	}
	return out
}

func (h scriptHost) Exits(room script.ID) map[string]string {
	r := h.room(room)
	if r == nil {
		return nil
	}
	out := map[string]string{}
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if ex := r.proto.Exits[d]; ex != nil {
			out[d.String()] = ex.To
		}
	}
	return out
}

func (h scriptHost) Holder(item script.ID) (script.ID, bool) {
	it := h.item(item)
	switch {
	case it == nil:
	case it.carrier != nil:
		return charID(it.carrier), true
	case it.in != nil:
		return itemID(it.in), true
	case it.room != nil:
		return roomID(it.room), true
	}
	return script.ID{}, false
}

func (h scriptHost) Send(to script.ID, text string) bool {
	c := h.char(to)
	if c == nil || c.pl == nil {
		return false
	}
	h.z.sendLine(c, text)
	h.z.prompt(c)
	return true
}

func (h scriptHost) Say(from script.ID, text string) bool {
	c := h.char(from)
	if c == nil || c.room == nil {
		return false
	}
	line := capFirst(c.short()) + " says, '{W}" + markup.Escape(text) + "{x}'"
	h.broadcastRoom(c.room, c, line)
	return true
}

func (h scriptHost) Emote(from script.ID, text string) bool {
	c := h.char(from)
	if c == nil || c.room == nil {
		return false
	}
	h.broadcastRoom(c.room, c, capFirst(c.short())+" "+markup.Escape(text))
	return true
}

func (h scriptHost) broadcastRoom(r *Room, skip *Char, line string) {
	for _, o := range r.people {
		if o != skip && o.pl != nil {
			h.z.sendLine(o, line)
			h.z.prompt(o)
		}
	}
}

func (h scriptHost) Broadcast(room script.ID, text string) bool {
	r := h.room(room)
	if r == nil {
		return false
	}
	h.broadcastRoom(r, nil, text)
	return true
}

func (h scriptHost) Move(who script.ID, dir string) bool {
	c := h.char(who)
	d, ok := content.ParseDir(strings.ToLower(dir))
	if c == nil || !ok || c.room == nil || !c.room.exitOpen(d) || c.fighting != nil {
		return false
	}
	if c.pl == nil && h.z.localRoom(c.room.proto.Exits[d].To) == nil {
		return false // mobs stay in their zone
	}
	moved := h.z.move(c, d)
	if moved && c.pl != nil && h.z.holds(c) {
		h.z.prompt(c)
	}
	return moved
}

func (h scriptHost) Teleport(who script.ID, room string) bool {
	c := h.char(who)
	r := h.z.localRoom(room)
	if c == nil || r == nil || c.room == nil || c.room == r {
		return false
	}
	from := c.room
	h.z.stopFighting(c)
	h.z.act(from, c, c, "$n vanishes.")
	from.removeChar(c)
	h.z.act(r, nil, c, "$n appears.")
	r.addChar(c)
	if c.pl != nil {
		h.z.showRoom(c)
		h.z.prompt(c)
		h.z.dirty(c)
	}
	h.z.arrived(c, r)
	return true
}

func (h scriptHost) Damage(who script.ID, amount int, from script.ID) bool {
	c := h.char(who)
	if c == nil || amount <= 0 {
		return false
	}
	if c.pl != nil && h.z.pulses.now < c.protected {
		return false
	}
	by := h.char(from)
	if c.pl != nil {
		h.z.sendLine(c, "{R}You are hurt. ("+itoa(amount)+"){x}")
		h.z.prompt(c)
	}
	h.z.hurt(c, amount, by, nameOf(by))
	return true
}

func (h scriptHost) Heal(who script.ID, amount int) bool {
	c := h.char(who)
	if c == nil || amount <= 0 {
		return false
	}
	h.z.healBy(c, amount)
	return true
}

func (h scriptHost) Give(item, to script.ID) bool {
	it := h.item(item)
	if it == nil {
		return false
	}
	switch to.Kind {
	case script.KindChar:
		c := h.char(to)
		if c == nil || len(c.inv) >= maxCarry {
			return false
		}
		h.z.itemToChar(it, c)
	case script.KindItem:
		cont := h.item(to)
		if cont == nil || cont == it || it.contains(cont) || cont.proto.Type != content.ItemContainer || len(cont.contents) >= cont.proto.Capacity {
			return false
		}
		h.z.itemToContainer(it, cont)
	case script.KindRoom:
		r := h.room(to)
		if r == nil || len(r.items) >= h.z.cfg.MaxRoomItems {
			return false
		}
		h.z.itemToRoom(it, r)
	default:
		return false
	}
	return true
}

func (h scriptHost) Purge(id script.ID) bool {
	switch id.Kind {
	case script.KindChar:
		c := h.char(id)
		if c == nil || c.pl != nil {
			return false // never a player
		}
		h.z.stopFighting(c)
		h.z.act(c.room, c, c, "$n is gone.")
		h.z.extractChar(c)
		return true
	case script.KindItem:
		it := h.item(id)
		if it == nil {
			return false
		}
		h.z.extractItem(it)
		return true
	}
	return false
}

func (h scriptHost) Spawn(proto string, where script.ID) (script.ID, bool) {
	if mp := h.z.set.Mobs[proto]; mp != nil {
		r := h.room(where)
		if r == nil || !h.z.ownsZoneRef(parseRef(proto).zone) {
			return script.ID{}, false // a zone spawns only its own mobs
		}
		m := h.z.spawnMob(mp, r)
		h.z.act(r, nil, m, "$n appears.")
		return charID(m), true
	}
	if ip := h.z.set.Items[proto]; ip != nil {
		it := h.z.newItem(ip)
		switch where.Kind {
		case script.KindChar:
			if c := h.char(where); c != nil && len(c.inv) < maxCarry {
				h.z.itemToChar(it, c)
				return itemID(it), true
			}
		case script.KindRoom:
			if r := h.room(where); r != nil && len(r.items) < h.z.cfg.MaxRoomItems {
				h.z.itemToRoom(it, r)
				return itemID(it), true
			}
		}
		h.z.extractItem(it)
	}
	return script.ID{}, false
}

func (h scriptHost) SetDoor(room script.ID, dir, state string) bool {
	r := h.room(room)
	d, ok := content.ParseDir(strings.ToLower(dir))
	if r == nil || !ok || r.doors[d] == doorNone {
		return false
	}
	switch state {
	case "open", "closed", "locked":
	default:
		return false
	}
	h.z.setDoor(r, d, state)
	return true
}

func (h scriptHost) SendToInstance(who script.ID, template string) error {
	c := h.char(who)
	if c == nil || c.pl == nil {
		return fmt.Errorf("only a player goes into a copy")
	}
	return h.z.sendToInstance(c, template)
}

func (h scriptHost) QuestStart(who script.ID, id string) string {
	c := h.char(who)
	if c == nil || c.pl == nil {
		return "not a player here"
	}
	return h.z.questStart(c, id)
}

func (h scriptHost) QuestAdvance(who script.ID, id string, step int) string {
	c := h.char(who)
	if c == nil || c.pl == nil {
		return "not a player here"
	}
	return h.z.questAdvance(c, id, step)
}

func (h scriptHost) QuestState(who script.ID, id string) (string, int) {
	c := h.char(who)
	if c == nil || c.pl == nil || h.z.set.Quests[id] == nil {
		return "", 0
	}
	switch l := &c.pl.quests; {
	case l.IsDone(id):
		return "done", 0
	case l.Find(id) != nil:
		return "active", l.Find(id).Step + 1
	}
	return "none", 0
}

func (h scriptHost) Log(key, text string) {
	h.z.log.Info("zone: a script logged a line", logev.ID(7203), "script", key, "text", text)
	for _, c := range h.z.players {
		if h.z.isBuilder(c.name) || (c.pl.builder && c.mayBuild(h.z.template)) {
			h.z.sendLine(c, "{K}[log "+key+"]{x} "+markup.Escape(text))
			h.z.prompt(c)
		}
	}
}

func (h scriptHost) Report(key, message string) { h.z.reportScript(key, message) }

// Count is the number of distinct compiled scripts.
func (s Scripts) Count() int {
	seen := map[*script.Compiled]bool{}
	for _, c := range s.Compiled {
		seen[c] = true
	}
	return len(seen)
}
