package zone

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
)

// maxListed is how many others a room listing names before it sums up the
// rest: a crowded square stays readable, and cheap to describe.
const maxListed = 30

const lookUsage = `look [thing | direction]
  With nothing, describe the room. look <thing> examines something or
  someone here; look <direction> peers that way. l is short for look.`

// cmdLook shows the room, or something in it.
func (z *Zone) cmdLook(c *Char, args string) {
	args = strings.TrimSpace(args)
	if args == "" {
		z.describeRoom(c, true)
		return
	}
	if rest, ok := strings.CutPrefix(args, "at "); ok {
		args = strings.TrimSpace(rest)
	}
	if rest, ok := strings.CutPrefix(args, "in "); ok {
		z.lookIn(c, rest)
		return
	}
	if !z.lit(c) {
		z.sendLine(c, "It is too dark to see that.")
		return
	}
	if d, ok := content.ParseDir(strings.ToLower(args)); ok {
		z.lookDir(c, d)
		return
	}
	z.examine(c, args)
}

// showRoom describes c's room to c as it is shown on arrival: without its
// description in brief mode.
func (z *Zone) showRoom(c *Char) { z.describeRoom(c, false) }

// describeRoom describes c's room to c; full (look) shows the description
// in brief mode too, as look does on a Diku MUD.
func (z *Zone) describeRoom(c *Char, full bool) {
	if c.pl == nil || c.room == nil {
		return
	}
	r := c.room
	width := 80
	if c.pl.sess != nil {
		width = c.pl.sess.Width()
	}
	if c.pos == posSleeping {
		z.sendLine(c, "You are asleep, dreaming of warm fires.")
		return
	}
	if !z.lit(c) {
		z.sendLine(c, "It is pitch black. You can see nothing; you need a light.\n"+z.exitsLine(r))
		z.gmcpRoom(c)
		return
	}
	// The text is built in the zone's scratch buffer and copied to the
	// player's output: a walker's every step describes a room, and a
	// string built for it each time was a tenth of the bytes the server
	// allocated with 10,000 walking.
	b := z.descBuf[:0]
	b = append(b, "{C}"...)
	b = append(b, r.proto.Name...)
	b = append(b, "{x}"...)
	if c.pl.admin {
		b = fmt.Appendf(b, " {K}[%s]{x}", r.ref())
	}
	b = append(b, '\n')
	if full || !c.pl.settings.Brief {
		b = append(b, r.wrappedDesc(width)...)
		b = append(b, '\n')
	}
	if z.screenReader(c) {
		b = append(b, z.exitsSpoken(r)...)
	} else {
		b = append(b, z.exitsLine(r)...)
	}
	for _, line := range groupItems(r.items, func(it *Item) string { return it.proto.Long }) {
		b = append(b, "\n{g}"...)
		b = append(b, line...)
		b = append(b, "{x}"...)
	}
	shown, others := 0, len(r.people)-1
	list, throng := r.people, z.throng(r)
	if throng {
		// The mobs are listed; the players are one line, below.
		list, others = r.mobs, len(r.mobs)
	}
	for _, o := range list {
		if o == c {
			continue
		}
		if !z.canSee(c, o) {
			others--
			continue
		}
		if shown == maxListed && others > maxListed+1 {
			b = fmt.Appendf(b, "\n{y}...and %d more are here.{x}", others-shown)
			break
		}
		b = append(b, "\n{y}"...)
		b = appendLong(b, o)
		b = append(b, "{x}"...)
		shown++
	}
	if throng {
		b = append(b, '\n')
		b = append(b, z.throngLine(r, c, width)...)
	}
	z.sendBytes(c, b)
	if cap(b) <= descBufKeep {
		z.descBuf = b
	}
	z.gmcpRoom(c)
}

// descBufKeep is the largest scratch buffer describeRoom keeps.
const descBufKeep = 16 << 10

// exitsShort is the prompt's %e: the ways out by their short names, a
// closed door in brackets (n e [s]), or "none".
func (z *Zone) exitsShort(r *Room) string {
	var b []byte
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if r.proto.Exits[d] == nil {
			continue
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		if r.exitOpen(d) {
			b = append(b, d.Short()...)
		} else {
			b = append(b, "["+d.Short()+"]"...)
		}
	}
	if len(b) == 0 {
		return "none"
	}
	return string(b)
}

// exitsSpoken is the exits line for a screen reader: words, not brackets.
func (z *Zone) exitsSpoken(r *Room) string {
	var ds []string
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if r.proto.Exits[d] == nil {
			continue
		}
		if r.exitOpen(d) {
			ds = append(ds, d.String())
		} else {
			ds = append(ds, d.String()+" (closed)")
		}
	}
	if len(ds) == 0 {
		return "Exits: none."
	}
	return "Exits: " + listWords(ds) + "."
}

// cmdExits lists exits and where they lead.
func (z *Zone) cmdExits(c *Char, args string) {
	r := c.room
	var b strings.Builder
	b.WriteString("Obvious exits:")
	n := 0
	for d := content.Dir(0); d < content.NumDirs; d++ {
		ex := r.proto.Exits[d]
		if ex == nil {
			continue
		}
		n++
		name := "somewhere"
		if rp := z.set.Rooms[ex.To]; rp != nil {
			name = rp.Name
		}
		switch {
		case !r.exitOpen(d):
			name = capFirst(ex.Door.Short) + " (closed)"
		case c.pl.admin:
			name += " [" + ex.To + "]"
		}
		fmt.Fprintf(&b, "\n  %-10s - %s", capFirst(d.String()), name)
	}
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if t := r.entrance(d); t != "" {
			n++
			name := t
			if zp := z.set.Zones[t]; zp != nil {
				name = zp.Name
			}
			fmt.Fprintf(&b, "\n  %-10s - the way into %s", capFirst(d.String()), name)
		}
	}
	if n == 0 {
		b.WriteString(" none.")
	}
	z.sendLine(c, b.String())
}

// lookDir peers through an exit.
func (z *Zone) lookDir(c *Char, d content.Dir) {
	ex := c.room.proto.Exits[d]
	switch {
	case ex == nil && c.room.entrance(d) != "":
		z.sendLine(c, "A way leads "+d.String()+", into darkness you cannot see through.")
	case ex == nil:
		z.sendLine(c, "You see nothing special that way.")
	case !c.room.exitOpen(d):
		z.sendLine(c, capFirst(ex.Door.Short)+" is closed.")
	default:
		name := "somewhere you cannot make out"
		if rp := z.set.Rooms[ex.To]; rp != nil {
			name = rp.Name
		}
		z.sendLine(c, fmt.Sprintf("Looking %s, you see %s.", d, name))
	}
}

// cmdExamine looks closely at a thing.
func (z *Zone) cmdExamine(c *Char, args string) {
	if strings.TrimSpace(args) == "" {
		z.sendLine(c, "Examine what?")
		return
	}
	z.examine(c, args)
}

// cmdRead reads a board, a notice or a sign, as look at it does: the
// word a Diku player types at a board.
func (z *Zone) cmdRead(c *Char, args string) {
	if strings.TrimSpace(args) == "" {
		z.sendLine(c, "Read what?")
		return
	}
	if !z.lit(c) {
		z.sendLine(c, "It is too dark to read.")
		return
	}
	z.examine(c, args)
}

// examine finds what a player means by a word and describes it: a
// character, an item carried or in the room, or an extra description.
func (z *Zone) examine(c *Char, what string) {
	spec, ok := parseTarget(what)
	if !ok || spec.all {
		z.sendLine(c, "Look at what?")
		return
	}
	if o := z.pickChar(c, spec, true); o != nil {
		z.describeChar(c, o)
		return
	}
	if it := pickItem(spec, c.carried(), c.room.items); it != nil {
		z.describeItem(c, it)
		return
	}
	// Extra descriptions: the room's, then those of items at hand.
	if spec.nth == 1 {
		for _, ex := range c.room.proto.Extra {
			if matches(spec.word, ex.Keywords) {
				z.sendLine(c, wrap(ex.Text, z.width(c)))
				return
			}
		}
		for _, it := range append(c.carried(), c.room.items...) {
			for _, ex := range it.proto.Extra {
				if matches(spec.word, ex.Keywords) {
					z.sendLine(c, wrap(ex.Text, z.width(c)))
					return
				}
			}
		}
	}
	z.sendLine(c, "You do not see that here.")
}

func (z *Zone) width(c *Char) int {
	if c.pl != nil && c.pl.sess != nil {
		return c.pl.sess.Width()
	}
	return 80
}

func (z *Zone) describeChar(c, o *Char) {
	var b strings.Builder
	if o.mob != nil {
		desc := o.mob.Description
		if desc == "" {
			desc = "You see nothing special about " + o.short() + "."
		}
		b.WriteString(wrap(desc, z.width(c)))
	} else if o == c {
		b.WriteString("You look yourself over. You look ready for anything.")
	} else {
		fmt.Fprintf(&b, "%s stands here, a level %d adventurer.", o.name, o.level)
	}
	if eq := z.equipmentLines(o); len(eq) > 0 {
		fmt.Fprintf(&b, "\n%s is using:", capFirst(o.short()))
		for _, l := range eq {
			b.WriteString("\n")
			b.WriteString(l)
		}
	}
	z.sendLine(c, b.String())
	if o != c && o.pl != nil {
		z.sendLine(o, capFirst(c.short())+" looks you over.")
	}
}

func (z *Zone) describeItem(c *Char, it *Item) {
	desc := it.proto.Description
	if desc == "" {
		desc = "You see nothing special about " + it.short() + "."
	}
	z.sendLine(c, wrap(desc, z.width(c)))
	if it.proto.Type == content.ItemContainer || it.proto.Type == content.ItemCorpse {
		z.showContents(c, it)
	}
}

// equipmentLines lists what o wears, slot by slot.
func (z *Zone) equipmentLines(o *Char) []string {
	var out []string
	for i, it := range o.eq {
		if it != nil {
			out = append(out, fmt.Sprintf("%-22s %s", z.set.Game.Slots[i].Label, it.short()))
		}
	}
	return out
}

// cmdInventory lists what c carries.
func (z *Zone) cmdInventory(c *Char, args string) {
	if len(c.inv) == 0 {
		z.sendLine(c, "You are carrying nothing.")
		return
	}
	lines := groupItems(c.inv, func(it *Item) string {
		if it.kept {
			return it.short() + " (kept)"
		}
		return it.short()
	})
	z.sendLine(c, "You are carrying:\n  "+strings.Join(lines, "\n  "))
}

// maxWho is the most players one `who` lists; a crowded world is searched
// with `who <name>` rather than scrolled.
const maxWho = 50

// cmdWho lists players in every zone, from each zone's published roster.
// It reads only snapshots, so it never waits on another zone.
func (z *Zone) cmdWho(c *Char, args string) {
	filter := strings.ToLower(strings.TrimSpace(args))
	type listed struct {
		RosterEntry
		from *Zone
	}
	var found []listed
	total := 0
	sight := z.sight(c)
	for _, oz := range z.shard.Zones() {
		r := oz.Roster()
		for _, e := range r {
			if e.Invis > sight && e.Name != c.name {
				continue // wizinvis above what c sees: not in the world for c
			}
			total++
			if filter == "" || strings.HasPrefix(strings.ToLower(e.Name), filter) {
				found = append(found, listed{e, oz})
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	// Each zone publishes its own roster, so a player crossing between two
	// zones can be in both for a moment: list them once, where the world
	// says they are.
	all := make([]RosterEntry, 0, len(found))
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].Name == found[i].Name {
			j++
		}
		pick := found[i]
		if j-i > 1 {
			at := z.shard.Where(pick.Name)
			for _, f := range found[i:j] {
				if f.from == at {
					pick = f
				}
			}
			total -= j - i - 1
		}
		all = append(all, pick.RosterEntry)
		i = j
	}
	shown := all
	if len(shown) > maxWho {
		shown = shown[:maxWho]
	}
	var b strings.Builder
	b.Grow(64 + 64*len(shown))
	fmt.Fprintf(&b, "{W}Players in %s{x}\n", z.set.Game.Name)
	sr := z.screenReader(c)
	for _, e := range shown {
		if sr {
			state := ""
			if e.LinkDead {
				state = ", link-dead"
			}
			fmt.Fprintf(&b, "%s, level %d, in %s%s.\n", e.Name, e.Level, e.Zone, state)
			continue
		}
		name := e.Name
		if e.Title != "" {
			name += " " + e.Title
		}
		tag := ""
		if e.Admin {
			tag = " {R}(admin){x}"
		}
		if e.Invis > 0 {
			tag += " {K}(wizinvis " + strconv.Itoa(e.Invis) + "){x}"
		}
		if e.LinkDead {
			tag += " {K}(link-dead){x}"
		}
		fmt.Fprintf(&b, "  [%3d] %-36s %s%s\n", e.Level, name, e.Zone, tag)
	}
	if total == 1 {
		b.WriteString("One player is in the world.")
	} else {
		fmt.Fprintf(&b, "%d players are in the world.", total)
	}
	if len(shown) < len(all) {
		fmt.Fprintf(&b, " (%d of %d shown; who <name> finds someone.)", len(shown), len(all))
	} else if filter != "" {
		fmt.Fprintf(&b, " (%d named %s...)", len(all), filter)
	}
	z.sendLine(c, b.String())
}

// cmdHelp shows a command's usage or a help topic.
func (z *Zone) cmdHelp(c *Char, args string) {
	word := strings.ToLower(strings.TrimSpace(args))
	r := c.role()
	if word == "" {
		var topics []string
		for _, h := range z.set.Help {
			if canRead(h, r) {
				topics = append(topics, h.Keywords[0])
			}
		}
		sort.Strings(topics)
		z.sendLine(c, "Help topics: "+wrap(strings.Join(topics, " "), z.width(c)-13)+
			"\nType help <topic> or help <command>; commands lists every command.")
		return
	}
	for i := range commands {
		if commands[i].name == word && commands[i].role <= r {
			z.sendLine(c, z.helpText(commands[i].usage))
			return
		}
	}
	for _, h := range z.set.Help {
		if !canRead(h, r) {
			continue
		}
		for _, k := range h.Keywords {
			if k == word {
				z.showHelp(c, h)
				return
			}
		}
	}
	for _, h := range z.set.Help {
		if !canRead(h, r) {
			continue
		}
		if matches(word, h.Keywords) {
			z.showHelp(c, h)
			return
		}
	}
	if cmd := lookupCommand(word, r); cmd != nil {
		z.sendLine(c, z.helpText(cmd.usage))
		return
	}
	z.sendLine(c, "There is no help on that. Type help for a list of topics.")
}

// canRead reports whether a player of role r is shown the help topic h.
func canRead(h *content.Help, r role) bool {
	switch {
	case h.Admin:
		return r == roleAdmin
	case h.Builder:
		return r >= roleBuilder
	}
	return true
}

func (z *Zone) showHelp(c *Char, h *content.Help) {
	z.sendLine(c, "{W}"+h.Title+"{x}\n"+wrap(z.helpText(h.Text), z.width(c)))
}

// helpText fills in what help text cannot know when it is written: the
// configured SSH port ({ssh_port}).
func (z *Zone) helpText(s string) string {
	if !strings.Contains(s, "{ssh_port}") {
		return s
	}
	if z.cfg.SSHPort == "" {
		return strings.ReplaceAll(s, "{ssh_port}", "PORT") + "\n(SSH is switched off on this server.)"
	}
	return strings.ReplaceAll(s, "{ssh_port}", z.cfg.SSHPort)
}

// cmdCommands lists the commands.
func (z *Zone) cmdCommands(c *Char, args string) {
	r := c.role()
	var names []string
	for _, cmd := range commands {
		if cmd.hidden || cmd.role > r {
			continue
		}
		names = append(names, cmd.name)
	}
	z.sendLine(c, "Commands:\n"+wrap(strings.Join(names, " "), z.width(c)))
}

// cmdScore shows the character.
func (z *Zone) cmdScore(c *Char, args string) {
	var b strings.Builder
	fmt.Fprintf(&b, "{W}%s{x}", c.name)
	if c.pl.title != "" {
		b.WriteString(" " + c.pl.title)
	}
	fmt.Fprintf(&b, ", level %d.\n", c.level)
	fmt.Fprintf(&b, "Hit points %d/%d, mana %d/%d, moves %d/%d.\n", c.hp, c.maxHP, c.mana, c.maxM, c.mv, c.maxMv)
	fmt.Fprintf(&b, "Experience %d of %d to the next level; you carry %d gold.\n", c.exp, z.expToLevel(c), c.gold)
	b.WriteString(z.scoreLines(c) + "\n")
	state := "You are " + c.pos.String()
	if c.fighting != nil {
		state += ", fighting " + c.fighting.short()
	}
	b.WriteString(state + ".\n")
	played := time.Duration(c.pl.played)*time.Second + time.Since(c.pl.arrived)
	fmt.Fprintf(&b, "You have played for %s, %s of it since you came in.", spellDuration(played), spellDuration(time.Since(c.pl.arrived)))
	z.sendLine(c, b.String())
}

// spellDuration says a duration the way a person would, to the minute.
func spellDuration(d time.Duration) string {
	unit := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	mins := int(d / time.Minute)
	switch {
	case mins < 1:
		return "less than a minute"
	case mins < 60:
		return unit(mins, "minute")
	case mins < 24*60:
		if mins%60 == 0 {
			return unit(mins/60, "hour")
		}
		return unit(mins/60, "hour") + " and " + unit(mins%60, "minute")
	}
	hours := mins / 60
	if hours%24 == 0 {
		return unit(hours/24, "day")
	}
	return unit(hours/24, "day") + " and " + unit(hours%24, "hour")
}

// Game time: an hour passes every real minute, so a game day is 24 real
// minutes and a game year of 360 days is six real days. It is counted from
// the Unix epoch, so every zone agrees and a restart changes nothing.
const (
	gameHour     = time.Minute
	gameYearDays = 360
)

// gameClock is the game's hour (0 to 23), day of the year (1 to 360) and
// year at real time now.
func gameClock(now time.Time) (hour, day, year int) {
	hours := now.Unix() / int64(gameHour/time.Second)
	days := hours / 24
	return int(hours % 24), int(days%gameYearDays) + 1, int(days/gameYearDays) + 1
}

// hourWords names an hour of the day: "midnight", "3 in the morning".
func hourWords(h int) string {
	switch {
	case h == 0:
		return "midnight"
	case h < 12:
		return fmt.Sprintf("%d in the morning", h)
	case h == 12:
		return "noon"
	case h < 18:
		return fmt.Sprintf("%d in the afternoon", h-12)
	case h < 22:
		return fmt.Sprintf("%d in the evening", h-12)
	}
	return fmt.Sprintf("%d at night", h-12)
}

// cmdTime shows the time of day in the game, and how long the world and
// the player have been up.
func (z *Zone) cmdTime(c *Char, args string) {
	hour, day, year := gameClock(time.Now())
	z.sendLine(c, fmt.Sprintf("It is %s, on day %d of the year %d.\nThe world has been up for %s; you came in %s ago.",
		hourWords(hour), day, year, spellDuration(time.Since(z.booted)), spellDuration(time.Since(c.pl.arrived))))
}

const saveUsage = `save
  Your character is saved by itself every few seconds, and whenever you
  quit or walk into another part of the world. save says when it last was.`

// cmdSave reassures: saving is automatic, and says when it last happened.
func (z *Zone) cmdSave(c *Char, args string) {
	every := fmt.Sprintf("Your character is saved by itself every %d seconds, and whenever you quit or walk into another part of the world.", z.cfg.CheckpointSecs)
	if c.pl.savedAt.IsZero() {
		z.sendLine(c, every+" The first save since you came in is due within "+fmt.Sprint(z.cfg.CheckpointSecs)+" seconds.")
		return
	}
	ago := time.Since(c.pl.savedAt)
	when := "less than a second ago"
	if ago >= time.Second {
		when = fmt.Sprintf("%d seconds ago", int(ago/time.Second))
		if ago >= time.Minute {
			when = spellDuration(ago) + " ago"
		}
	}
	z.sendLine(c, every+" The last save was "+when+".")
}

const areasUsage = `areas
  List the parts of the world and the levels each suits. A builder sees
  each zone's file and what it declares, and the last reload.`

// cmdAreas lists the zones a player can walk into.
func (z *Zone) cmdAreas(c *Char, args string) {
	if c.role() >= roleBuilder {
		z.areasBuilder(c)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{W}The parts of %s{x}\n", z.set.Game.Name)
	for _, id := range z.set.ZoneOrder {
		zp := z.set.Zones[id]
		levels := ""
		if zp.Levels[1] > 0 {
			levels = fmt.Sprintf("levels %d to %d", zp.Levels[0], zp.Levels[1])
		}
		if zp.Instanceable {
			levels += ", a private copy for each party"
		}
		fmt.Fprintf(&b, "  %-30s %s\n", zp.Name, levels)
	}
	b.WriteString("help world tells more about each.")
	z.sendLine(c, b.String())
}

// cmdBackup starts a live backup; the answer comes when it is written.
func (z *Zone) cmdBackup(c *Char, args string) {
	z.log.Info("zone: an admin asked for a backup", logev.ID(8120), logev.Player(c.name))
	z.sendLine(c, "Writing a backup of the database...")
	answer := z.later(c)
	z.shard.Backup(func(path string, size int64, err error) {
		text := fmt.Sprintf("Backup written: %s (%d bytes).", path, size)
		if err != nil {
			text = "The backup failed: " + err.Error()
		}
		answer(text)
	})
}

// cmdQuit leaves the world.
func (z *Zone) cmdQuit(c *Char, args string) { z.quit(c) }
