package zone

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/internal/typo"
	"zonemud/script"
)

// Builder commands: the running world seen as builders see it. To anyone
// without the builder role they do not exist.

const reloadUsage = `reload
  Read the area files again now, check the whole world, and apply what
  changed, or say what is wrong and change nothing. The server does this by
  itself when a file is saved (unless watch_areas is off); this is for
  folders whose changes the system does not report. (builder)`

// cmdReload asks the world for a reload and shows its report.
func (z *Zone) cmdReload(c *Char, args string) {
	z.sendLine(c, "Reading the area files...")
	answer := z.later(c)
	z.shard.Reload(c.name, func(rep ReloadReport) { answer(rep.Text()) })
}

// areasBuilder is areas as a builder sees it: every zone with its file,
// what it declares and what is live, the last reload and its problems.
func (z *Zone) areasBuilder(c *Char) {
	var b strings.Builder
	rep := z.shard.LastReload()
	fmt.Fprintf(&b, "{W}Zones of version %d{x} (this zone runs version %d)\n", rep.Version, z.version.Load())
	fmt.Fprintf(&b, "  %-16s %-22s %6s %5s %5s  %s\n", "zone", "file", "rooms", "mobs", "items", "")
	live := map[string]int{}
	for _, o := range z.shard.Zones() {
		live[o.Template()]++
	}
	for _, id := range z.set.ZoneOrder {
		zp := z.set.Zones[id]
		note := ""
		switch {
		case zp.Instanceable:
			note = fmt.Sprintf("instanceable, %d live cop%s", live[id], plural(live[id], "y", "ies"))
		case live[id] == 0:
			note = "not hosted"
		}
		if !c.mayBuild(id) && !namedBuilder(zp.Builders, c.name) {
			note = strings.TrimLeft(note+", not yours to build", ", ")
		}
		fmt.Fprintf(&b, "  %-16s %-22s %6d %5d %5d  %s\n", id, zp.File, len(zp.Rooms), len(zp.Mobs), len(zp.Items), note)
	}
	fmt.Fprintf(&b, "Last reload: %s, %s ago (%s).", reloadOutcome(rep), time.Since(rep.At).Round(time.Second), rep.Trigger)
	if rep.Refused() {
		b.WriteString(" Its problems:")
		for _, p := range rep.Problems {
			b.WriteString("\n  " + markup.Escape(p.String()))
		}
	}
	z.sendLine(c, b.String())
}

func reloadOutcome(rep ReloadReport) string {
	switch {
	case rep.Refused():
		return fmt.Sprintf("{R}refused{x}, %d problem(s)", len(rep.Problems))
	case rep.Trigger == "start":
		return "none since the start"
	case rep.Unchanged:
		return "nothing had changed"
	}
	return "applied"
}

// notYours tells a builder limited to some zones that zone is not one of
// them, and reports whether it did.
func (z *Zone) notYours(c *Char, zoneID string) bool {
	if c.mayBuild(zoneID) {
		return false
	}
	z.sendLine(c, fmt.Sprintf("You build only in %s; %s is not yours to build.", describeZones(c.pl.buildZones), zoneID))
	return true
}

const rstatUsage = `rstat [ref]
  Show a room as the world runs it: its ref, where it is written (file and
  line), its exits and doors as they stand, who and what is in it, and its
  script. Without a ref, the room you stand in. (builder)`

const mstatUsage = `mstat <mob> | mstat <ref>
  Show a mob here (by keyword) as it is now: its prototype's ref, file and
  line, whether it was made from the running version of it, its state and
  what it carries. With a ref (emberfall:mob:rat), the prototype and how
  many are in the world. (builder)`

const ostatUsage = `ostat <item> | ostat <ref>
  Show an item you carry or that lies here, as mstat shows a mob, or with
  a ref an item prototype. (builder)`

const whereUsage = `where <name>
  Find a player by name, or the mobs whose keywords match in the zones you
  build: each with the room it stands in. (builder)`

const purgeUsage = `purge [target]
  Remove a mob or an item from the room you stand in, or with no target
  every mob and item here. Players are never purged. (builder)
purge <player> <item>
  Take from a player, wherever they are, what they carry or wear: every
  item of a prototype (emberfall:item:ring, however deep in containers),
  or one item by keyword (all.ring for each). (admin)`

const loadUsage = `load <ref>
  Make a mob (it appears here) or an item (it goes to your inventory) from
  its prototype, as a reset would: to try a spawn. A mob is made only in
  its own zone. (builder)`

const zresetUsage = `zreset
  Run the resets of the zone you stand in now: mobs and items come back,
  doors return to their state. (builder)`

const scripterrorsUsage = `scripterrors [all]
  List the recent script errors of the zone you stand in, newest last,
  with file and line; with all, of every zone you build. (builder)`

// cmdRstat shows a room.
func (z *Zone) cmdRstat(c *Char, args string) {
	ref := strings.ToLower(strings.TrimSpace(args))
	if ref == "" {
		if z.notYours(c, z.template) {
			return
		}
		z.sendLine(c, z.roomStat(c.room))
		return
	}
	z.statRef(c, content.KindRoom, ref)
}

// cmdMstat shows a mob.
func (z *Zone) cmdMstat(c *Char, args string) {
	arg := strings.ToLower(strings.TrimSpace(args))
	switch {
	case arg == "":
		z.sendLine(c, "Usage:\n"+mstatUsage)
	case strings.Contains(arg, ":"):
		z.statRef(c, content.KindMob, arg)
	default:
		if z.notYours(c, z.template) {
			return
		}
		m := z.findChar(c, arg, true)
		if m == nil {
			z.sendLine(c, "You do not see that here.")
			return
		}
		z.sendLine(c, z.charStat(m))
	}
}

// cmdOstat shows an item.
func (z *Zone) cmdOstat(c *Char, args string) {
	arg := strings.ToLower(strings.TrimSpace(args))
	switch {
	case arg == "":
		z.sendLine(c, "Usage:\n"+ostatUsage)
	case strings.Contains(arg, ":"):
		z.statRef(c, content.KindItem, arg)
	default:
		if z.notYours(c, z.template) {
			return
		}
		it := findItem(c, arg)
		if it == nil {
			z.sendLine(c, "You do not see that here, nor carry it.")
			return
		}
		z.sendLine(c, z.itemStat(it))
	}
}

// statRef shows the room, mob or item prototype ref names, from the zone
// that owns it (which knows its live state).
func (z *Zone) statRef(c *Char, kind content.Kind, ref string) {
	r, err := content.ParseRef(ref)
	if err != nil || r.Kind != kind {
		z.sendLine(c, fmt.Sprintf("%q is not a %s ref (zone:%s:name).", ref, kind, kind))
		return
	}
	if z.notYours(c, r.Zone) {
		return
	}
	if z.set.Zones[r.Zone] == nil {
		z.sendLine(c, fmt.Sprintf("There is no zone %q.", r.Zone))
		return
	}
	if z.ownsZoneRef(r.Zone) {
		z.sendLine(c, z.refStat(kind, ref))
		return
	}
	owner := z.shard.Zone(r.Zone)
	if owner == nil {
		z.sendLine(c, fmt.Sprintf("Zone %s is not hosted (an instanceable zone lives only in its copies).", r.Zone))
		return
	}
	if !owner.send(buildMsg{op: buildStat, kind: kind, arg: ref, reply: z.later(c)}) {
		z.answerHere(c, fmt.Sprintf("Zone %s has just stopped.", r.Zone))
	}
}

// handleBuild answers another zone's builder query on this zone's
// goroutine.
func (z *Zone) handleBuild(m buildMsg) {
	switch m.op {
	case buildStat:
		m.reply(z.refStat(m.kind, m.arg))
	case buildWhere:
		m.reply(strings.Join(z.whereLines(m.arg), "\n"))
	case buildErrors:
		m.reply(strings.Join(z.scriptErrorLines(), "\n"))
	}
}

// refStat renders a ref of this zone.
func (z *Zone) refStat(kind content.Kind, ref string) string {
	switch kind {
	case content.KindRoom:
		if r := z.localRoom(ref); r != nil {
			return z.roomStat(r)
		}
		return "There is no room " + ref + suggestRef(ref, z.set.Rooms) + "."
	case content.KindMob:
		p := z.set.Mobs[ref]
		if p == nil {
			return "There is no mob " + ref + suggestRef(ref, z.set.Mobs) + "."
		}
		var b strings.Builder
		fmt.Fprintf(&b, "{W}Mob prototype %s{x}: %s\n", ref, markup.Escape(p.Short))
		fmt.Fprintf(&b, "  Written: %s:%d (content version %d)\n", z.set.Zones[p.Zone].File, p.Line, z.version.Load())
		fmt.Fprintf(&b, "  Level %d, hp %s, damage %s x%d, flags %s\n", p.Level, p.HP, p.Damage, p.Attacks, flagList(p.Flags.Names()))
		z.scriptLine(&b, p.Script, nil)
		var live []string
		for _, o := range z.chars {
			if o.mob != nil && o.mob.Ref == ref && z.holds(o) && o.room != nil {
				live = append(live, o.room.ref()+z.outdated(o.mob == p))
			}
		}
		sort.Strings(live)
		fmt.Fprintf(&b, "  In %s now: %d%s", z.id, len(live), listSuffix(live))
		return b.String()
	case content.KindItem:
		p := z.set.Items[ref]
		if p == nil {
			return "There is no item " + ref + suggestRef(ref, z.set.Items) + "."
		}
		var b strings.Builder
		fmt.Fprintf(&b, "{W}Item prototype %s{x}: %s\n", ref, markup.Escape(p.Short))
		fmt.Fprintf(&b, "  Written: %s:%d (content version %d)\n", z.set.Zones[p.Zone].File, p.Line, z.version.Load())
		fmt.Fprintf(&b, "  Type %s, level %d, weight %d, value %d, flags %s\n", p.Type, p.Level, p.Weight, p.Value, flagList(p.Flags.Names()))
		z.scriptLine(&b, p.Script, nil)
		n := 0
		for _, it := range z.items {
			if it.proto.Ref == ref {
				n++
			}
		}
		fmt.Fprintf(&b, "  In %s now: %d (carried out of the zone, they are counted where they are)", z.id, n)
		return b.String()
	}
	return ""
}

// roomStat renders a room of this zone.
func (z *Zone) roomStat(r *Room) string {
	p := r.proto
	var b strings.Builder
	fmt.Fprintf(&b, "{W}Room %s{x}: %s (number %d)\n", p.Ref, markup.Escape(p.Name), p.Num)
	fmt.Fprintf(&b, "  Written: %s:%d (content version %d)\n", z.proto.File, p.Line, z.version.Load())
	fmt.Fprintf(&b, "  Flags %s; environment %s", flagList(p.Flags.Names()), orNone(p.Environment))
	if p.HasCoords {
		fmt.Fprintf(&b, "; at %d,%d,%d", p.Coords[0], p.Coords[1], p.Coords[2])
	}
	b.WriteByte('\n')
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if ex := p.Exits[d]; ex != nil {
			fmt.Fprintf(&b, "  %-9s -> %s", d, ex.To)
			if r.doors[d] != doorNone {
				fmt.Fprintf(&b, " (door %s: %s)", strings.Join(ex.Door.Keywords, " "), [...]string{"", "open", "closed", "locked"}[r.doors[d]])
			}
			b.WriteByte('\n')
		}
		if t := r.entrance(d); t != "" {
			fmt.Fprintf(&b, "  %-9s => a copy of %s (instance entrance)\n", d, t)
		}
	}
	if len(p.Extra) > 0 {
		var kws []string
		for _, e := range p.Extra {
			kws = append(kws, strings.Join(e.Keywords, " "))
		}
		fmt.Fprintf(&b, "  Extra: %s\n", markup.Escape(strings.Join(kws, "; ")))
	}
	var id *scriptIDRef
	if z.vm != nil {
		id = &scriptIDRef{roomID(r)}
	}
	z.scriptLine(&b, p.Script, id)
	var people []string
	for _, o := range r.people {
		if o.pl != nil {
			people = append(people, o.name+" (player)")
		} else {
			people = append(people, markup.Escape(o.short())+" ("+o.mob.Ref+")")
		}
	}
	fmt.Fprintf(&b, "  People: %s\n", orNone(strings.Join(people, ", ")))
	var items []string
	for _, it := range r.items {
		items = append(items, markup.Escape(it.short())+" ("+it.proto.Ref+")")
	}
	fmt.Fprintf(&b, "  Items: %s", orNone(strings.Join(items, ", ")))
	return b.String()
}

// charStat renders a character of this zone.
func (z *Zone) charStat(m *Char) string {
	var b strings.Builder
	if m.pl != nil {
		fmt.Fprintf(&b, "{W}Player %s{x}, level %d, in %s\n", m.name, m.level, m.room.ref())
	} else {
		p := m.mob
		fmt.Fprintf(&b, "{W}Mob %s{x}: %s\n", p.Ref, markup.Escape(m.short()))
		fmt.Fprintf(&b, "  Written: %s:%d%s\n", z.fileOf(p.Zone), p.Line, z.outdated(z.set.Mobs[p.Ref] == p))
		if m.reset != nil {
			fmt.Fprintf(&b, "  Made by %s (line %d), in %s\n", m.reset.Key, m.reset.Line, m.room.ref())
		} else {
			fmt.Fprintf(&b, "  Made by no reset (a script, load, or a reset since removed), in %s\n", m.room.ref())
		}
	}
	fmt.Fprintf(&b, "  Level %d, hp %d/%d, mana %d/%d, moves %d/%d, gold %d, %s", m.level, m.hp, m.maxHP, m.mana, m.maxM, m.mv, m.maxMv, m.gold, m.pos)
	if m.fighting != nil {
		fmt.Fprintf(&b, ", fighting %s", markup.Escape(m.fighting.short()))
	}
	b.WriteByte('\n')
	if len(m.affects) > 0 {
		var as []string
		for _, a := range m.affects {
			as = append(as, a.a.Name)
		}
		fmt.Fprintf(&b, "  Affects: %s\n", strings.Join(as, ", "))
	}
	if m.mob != nil {
		var id *scriptIDRef
		if z.vm != nil {
			id = &scriptIDRef{charID(m)}
		}
		z.scriptLine(&b, m.mob.Script, id)
	}
	var items []string
	for _, it := range m.carried() {
		items = append(items, markup.Escape(it.short())+" ("+it.proto.Ref+")")
	}
	fmt.Fprintf(&b, "  Carries: %s", orNone(strings.Join(items, ", ")))
	return b.String()
}

// itemStat renders an item of this zone.
func (z *Zone) itemStat(it *Item) string {
	p := it.proto
	var b strings.Builder
	fmt.Fprintf(&b, "{W}Item %s{x}: %s (durable id %d)\n", p.Ref, markup.Escape(p.Short), it.id)
	if p.Type == content.ItemCorpse {
		b.WriteString("  Written: nowhere (a corpse, made when its mob died)\n")
	} else {
		fmt.Fprintf(&b, "  Written: %s:%d%s\n", z.fileOf(p.Zone), p.Line, z.outdated(z.set.Items[p.Ref] == p))
	}
	fmt.Fprintf(&b, "  Type %s, level %d, weight %d, value %d, flags %s\n", p.Type, p.Level, p.Weight, p.Value, flagList(p.Flags.Names()))
	switch {
	case it.carrier != nil && it.slot >= 0:
		fmt.Fprintf(&b, "  Worn by %s\n", markup.Escape(it.carrier.short()))
	case it.carrier != nil:
		fmt.Fprintf(&b, "  Carried by %s\n", markup.Escape(it.carrier.short()))
	case it.room != nil:
		fmt.Fprintf(&b, "  Lying in %s\n", it.room.ref())
	case it.in != nil:
		fmt.Fprintf(&b, "  Inside %s\n", markup.Escape(it.in.short()))
	}
	if it.isContainer() {
		state := "open"
		switch {
		case it.locked:
			state = "locked"
		case it.closed:
			state = "closed"
		}
		fmt.Fprintf(&b, "  %s, holding %d\n", state, len(it.contents))
	}
	var id *scriptIDRef
	if z.vm != nil {
		id = &scriptIDRef{itemID(it)}
	}
	z.scriptLine(&b, p.Script, id)
	return strings.TrimRight(b.String(), "\n")
}

// scriptIDRef names a live entity whose script state scriptLine shows.
type scriptIDRef struct{ id script.ID }

// scriptLine writes where a script is written and, for a live entity,
// whether it runs.
func (z *Zone) scriptLine(b *strings.Builder, s *content.Script, live *scriptIDRef) {
	if s == nil {
		b.WriteString("  Script: none\n")
		return
	}
	state := ""
	if live != nil {
		switch {
		case z.vm.Script(live.id) == nil:
			state = ": not attached (it failed as it started, or is switched off)"
		case z.vm.SwitchedOff(live.id):
			state = ": {R}switched off{x} by its breaker; it runs again once its source is reloaded"
		case z.vm.Script(live.id) != z.scripts.Compiled[s]:
			state = ": running an older version"
		default:
			state = ": running"
		}
	}
	fmt.Fprintf(b, "  Script: %s:%d (%s)%s\n", s.File, max(s.Line, 1), s.Key, state)
}

// outdated notes a live thing made from a prototype the content has since
// replaced.
func (z *Zone) outdated(current bool) string {
	if current {
		return ""
	}
	return " (made from an older version of its prototype; new ones use the running one)"
}

func (z *Zone) fileOf(zoneID string) string {
	if zp := z.set.Zones[zoneID]; zp != nil {
		return zp.File
	}
	return zoneID + " (gone from the files)"
}

func flagList(names []string) string { return orNone(strings.Join(names, " ")) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func listSuffix(list []string) string {
	if len(list) == 0 {
		return ""
	}
	if len(list) > 10 {
		return fmt.Sprintf(": %s and %d more", strings.Join(list[:10], ", "), len(list)-10)
	}
	return ": " + strings.Join(list, ", ")
}

// suggestRef names the closest ref for a typo.
func suggestRef[V any](ref string, m map[string]V) string {
	if best := typo.Closest(ref, slices.Sorted(maps.Keys(m)), 3); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// cmdWhere finds a player, or mobs by keyword.
func (z *Zone) cmdWhere(c *Char, args string) {
	word := strings.ToLower(strings.TrimSpace(args))
	if word == "" {
		z.sendLine(c, "Usage:\n"+whereUsage)
		return
	}
	if o := z.shard.Where(normalName(word)); o != nil {
		name := normalName(word)
		answer := z.later(c)
		if !o.send(buildMsg{op: buildWhere, arg: "player:" + name, reply: func(text string) {
			if text == "" {
				text = name + " is on the move between zones; try again."
			}
			answer(text)
		}}) {
			z.answerHere(c, name+" is on the move; try again.")
		}
		return
	}
	var zones []*Zone
	for _, o := range z.shard.Zones() {
		if c.mayBuild(o.Template()) {
			zones = append(zones, o)
		}
	}
	z.gather(c, zones, buildMsg{op: buildWhere, arg: word}, func(lines []string) string {
		if len(lines) == 0 {
			return fmt.Sprintf("No player is called %s, and no mob in the zones you build answers to %q.", capFirst(word), word)
		}
		sort.Strings(lines)
		if len(lines) > 50 {
			lines = append(lines[:50], fmt.Sprintf("... and %d more", len(lines)-50))
		}
		return strings.Join(lines, "\n")
	})
}

// gather sends m to every zone in zones and, once each has answered (or
// stopped), answers c with what render makes of every line.
func (z *Zone) gather(c *Char, zones []*Zone, m buildMsg, render func([]string) string) {
	g := &gathering{left: len(zones) + 1}
	answer := z.later(c)
	g.done = func(lines []string) { answer(render(lines)) }
	for _, o := range zones {
		q := m
		q.reply = g.add
		if !o.send(q) {
			g.add("")
		}
	}
	g.add("") // sending is done
}

// gathering collects the answers of several zones; add is called from
// their goroutines.
type gathering struct {
	mu    sync.Mutex
	left  int      // guarded by mu
	lines []string // guarded by mu
	done  func([]string)
}

func (g *gathering) add(text string) {
	g.mu.Lock()
	if text != "" {
		g.lines = append(g.lines, strings.Split(text, "\n")...)
	}
	g.left--
	last := g.left == 0
	lines := g.lines
	g.mu.Unlock()
	if last {
		g.done(lines)
	}
}

// whereLines answers where for this zone: a player by name
// ("player:Name"), or mobs whose keywords match word.
func (z *Zone) whereLines(arg string) []string {
	if name, ok := strings.CutPrefix(arg, "player:"); ok {
		if c := z.players[name]; c != nil && c.room != nil {
			return []string{fmt.Sprintf("%s is in %s, %s (%s).", name, z.id, markup.Escape(c.room.proto.Name), c.room.ref())}
		}
		return nil
	}
	var out []string
	for _, o := range z.chars {
		if o.mob != nil && z.holds(o) && o.room != nil && matches(arg, o.keywords()) {
			out = append(out, fmt.Sprintf("%-28s %s (%s)", markup.Escape(o.short()), o.room.ref(), o.mob.Ref))
		}
	}
	return out
}

// cmdPurge removes mobs and items from the room.
func (z *Zone) cmdPurge(c *Char, args string) {
	if who, what := firstWord(args); strings.TrimSpace(what) != "" {
		z.purgeCarried(c, who, strings.TrimSpace(what))
		return
	}
	if z.notYours(c, z.template) {
		return
	}
	arg := strings.ToLower(strings.TrimSpace(args))
	r := c.room
	if arg == "" {
		n := 0
		for _, o := range append([]*Char(nil), r.people...) {
			if o.pl == nil {
				z.stopFighting(o)
				z.extractChar(o)
				n++
			}
		}
		for _, it := range append([]*Item(nil), r.items...) {
			z.extractItem(it)
			n++
		}
		z.act(r, c, c, "$n waves a hand, and the room is bare.")
		z.sendLine(c, fmt.Sprintf("Purged %d mob(s) and item(s) from %s.", n, r.ref()))
		return
	}
	if o := z.findChar(c, arg, false); o != nil {
		if o.pl != nil {
			z.sendLine(c, "Players are never purged.")
			return
		}
		z.stopFighting(o)
		z.act(r, c, o, "$n is gone.")
		z.extractChar(o)
		z.sendLine(c, "Purged.")
		return
	}
	spec, ok := parseTarget(arg)
	if it := pickItem(spec, r.items); ok && it != nil {
		z.extractItem(it)
		z.sendLine(c, "Purged.")
		return
	}
	z.sendLine(c, "Nothing here answers to that (to take what a player carries: purge <player> <item>).")
}

// purgeCarried takes from the player named who, wherever they are, the
// items what names: every item of a prototype (a ref, however deep in
// containers), or a target among what they carry and wear (`all.ring`).
// Only an admin may: no script or flag keeps an item on a player an admin
// means to rid of it.
func (z *Zone) purgeCarried(c *Char, who, what string) {
	if c.role() != roleAdmin {
		z.sendLine(c, "Only an admin takes what a player carries.")
		return
	}
	name := normalName(who)
	where := z.shard.Where(name)
	if where == nil {
		z.sendLine(c, name+" is not in the world.")
		return
	}
	answer := z.later(c)
	if !where.send(adminMsg{op: adminPurge, target: name, by: c.name, item: strings.ToLower(what), reply: func(result string, _ *Zone) {
		answer(orGone(result, name))
	}}) {
		z.answerHere(c, name+" is on the move; try again.")
	}
}

// purgeFrom takes the items what names from c (see purgeCarried) and
// says what it took.
func (z *Zone) purgeFrom(c *Char, what, by string) string {
	var gone []*Item
	if strings.Contains(what, ":") {
		var walk func(list []*Item)
		walk = func(list []*Item) {
			for _, it := range list {
				if it.proto.Ref == what {
					gone = append(gone, it)
					continue
				}
				walk(it.contents)
			}
		}
		walk(c.carried())
	} else if spec, ok := parseTarget(what); ok {
		if spec.all {
			gone = pickItems(spec, c.carried())
		} else if it := pickItem(spec, c.carried()); it != nil {
			gone = append(gone, it)
		}
	}
	if len(gone) == 0 {
		return c.name + " carries nothing that answers to " + what + "."
	}
	shorts := make([]string, 0, len(gone))
	for _, it := range gone {
		shorts = append(shorts, it.short())
		z.sendLine(c, "{Y}"+capFirst(it.short())+" is taken from you by "+by+".{x}")
		z.log.Info("zone: admin took an item from a player", logev.ID(8124), logev.Player(c.name), "by", by, "item", it.proto.Ref, "id", it.id)
		z.extractItem(it)
	}
	z.recalc(c)
	z.dirty(c)
	z.prompt(c)
	return fmt.Sprintf("Took %d item(s) from %s: %s.", len(gone), c.name, markup.Escape(strings.Join(shorts, ", ")))
}

// cmdLoad makes a mob or an item from its prototype.
func (z *Zone) cmdLoad(c *Char, args string) {
	ref := strings.ToLower(strings.TrimSpace(args))
	r, err := content.ParseRef(ref)
	if err != nil || r.Kind == content.KindRoom {
		z.sendLine(c, "Usage:\n"+loadUsage)
		return
	}
	if z.notYours(c, r.Zone) || z.notYours(c, z.template) {
		return
	}
	switch r.Kind {
	case content.KindMob:
		p := z.set.Mobs[ref]
		switch {
		case p == nil:
			z.sendLine(c, "There is no mob "+ref+suggestRef(ref, z.set.Mobs)+".")
		case !z.ownsZoneRef(r.Zone):
			z.sendLine(c, fmt.Sprintf("A mob is made only in its own zone: go to %s to load %s.", r.Zone, ref))
		default:
			m := z.spawnMob(p, c.room)
			z.act(c.room, nil, m, "$n appears.")
			z.sendLine(c, "Loaded "+markup.Escape(m.short())+" here.")
		}
	case content.KindItem:
		p := z.set.Items[ref]
		switch {
		case p == nil:
			z.sendLine(c, "There is no item "+ref+suggestRef(ref, z.set.Items)+".")
		case len(c.inv) >= maxCarry:
			z.sendLine(c, "Your hands are full.")
		default:
			it := z.newItem(p)
			z.itemToChar(it, c)
			z.sendLine(c, "Loaded "+markup.Escape(it.short())+" into your inventory.")
		}
	}
}

// cmdZreset runs the zone's resets now.
func (z *Zone) cmdZreset(c *Char, args string) {
	if z.notYours(c, z.template) {
		return
	}
	if z.isInstance() {
		// A copy is populated once, when it is made: a reset here would
		// be a repop, and a copy's loot is never farmed.
		z.sendLine(c, "This is a private copy of "+z.template+"; it is populated once, when it is made, and never reset.")
		return
	}
	mobs, items := len(z.chars), len(z.items)
	z.resetZone(false)
	z.sendLine(c, fmt.Sprintf("The resets of %s ran: %d mob(s) and %d item(s) were made.", z.id, len(z.chars)-mobs, len(z.items)-items))
}

// scriptErrorsKept is how many recent script errors a zone keeps for
// scripterrors.
const scriptErrorsKept = 20

// scriptErr is one script error, for scripterrors.
type scriptErr struct {
	at       time.Time
	key, msg string
}

// cmdScripterrors lists recent script errors.
func (z *Zone) cmdScripterrors(c *Char, args string) {
	if strings.TrimSpace(strings.ToLower(args)) != "all" {
		if z.notYours(c, z.template) {
			return
		}
		lines := z.scriptErrorLines()
		if len(lines) == 0 {
			z.sendLine(c, "No script has failed in "+z.id+" lately.")
			return
		}
		z.sendLine(c, strings.Join(lines, "\n"))
		return
	}
	var zones []*Zone
	for _, o := range z.shard.Zones() {
		if c.mayBuild(o.Template()) {
			zones = append(zones, o)
		}
	}
	z.gather(c, zones, buildMsg{op: buildErrors}, func(lines []string) string {
		if len(lines) == 0 {
			return "No script has failed lately in the zones you build."
		}
		sort.Strings(lines) // each line starts with its time
		return strings.Join(lines, "\n")
	})
}

// scriptErrorLines lists the zone's recent script errors, oldest first.
func (z *Zone) scriptErrorLines() []string {
	out := make([]string, 0, len(z.scriptErrs))
	for _, e := range z.scriptErrs {
		out = append(out, fmt.Sprintf("%s %s %s: %s", e.at.UTC().Format("15:04:05"), z.id, e.key, markup.Escape(e.msg)))
	}
	return out
}

// noteScriptError keeps a script error for scripterrors.
func (z *Zone) noteScriptError(key, msg string) {
	if len(z.scriptErrs) == scriptErrorsKept {
		copy(z.scriptErrs, z.scriptErrs[1:])
		z.scriptErrs = z.scriptErrs[:scriptErrorsKept-1]
	}
	z.scriptErrs = append(z.scriptErrs, scriptErr{at: time.Now(), key: key, msg: msg})
}
