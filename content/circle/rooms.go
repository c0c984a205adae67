package circle

import (
	"fmt"
	"strings"
)

// writeZone writes one zone's area file.
func (c *conv) writeZone(b *strings.Builder, z *outZone) {
	src := "no zone file"
	if z.src != nil {
		src = fmt.Sprintf("zone %d of %s", z.vnum, z.src.File)
	}
	fmt.Fprintf(b, "# Imported by `zonemud import circle` from %s.\n", src)
	b.WriteString("# IMPORT.md lists what did not convert as written. Edit freely.\n\n")
	b.WriteString("[zone]\n")
	name := "Unzoned rooms"
	where := at{}
	if z.src != nil {
		where = z.src.at
		name = oneLine(c.str(z.src.Name, maxShort, where, z, fmt.Sprintf("zone %d name", z.vnum)))
		if name == "" {
			name = fmt.Sprintf("Zone %d", z.vnum)
		}
	}
	z.stat.Name = name
	fmt.Fprintf(b, "name = %s\n", quote(name))
	credits := "Imported from a CircleMUD world"
	if z.src != nil {
		credits = fmt.Sprintf("Imported from CircleMUD zone %d", z.vnum)
		if bl := oneLine(c.str(z.src.Builders, maxShort, where, z, "zone builders")); bl != "" && !strings.EqualFold(bl, "none") {
			credits += "; builders: " + bl
		}
	}
	fmt.Fprintf(b, "credits = %s\n", quote(cut(credits, maxText)))
	if z.src != nil {
		secs := z.src.Lifespan * 60
		switch {
		case z.src.Mode == 0:
			secs = 0
		case z.src.Lifespan <= 0:
			secs = 0
			c.note(where, z, KindApproximated, "zone %d: lifespan %d minutes; the zone never resets", z.vnum, z.src.Lifespan)
		case secs > maxResetSecs:
			c.note(where, z, KindApproximated, "zone %d: lifespan %d minutes, more than zonemud's longest (a day); it resets once a day", z.vnum, z.src.Lifespan)
			secs = maxResetSecs
		}
		if z.src.Mode == 1 {
			c.note(where, z, KindApproximated, "zone %d: reset mode 1 (only when no player is in the zone): it resets every %d minutes whoever is there", z.vnum, z.src.Lifespan)
		} else if z.src.Mode != 0 && z.src.Mode != 2 {
			c.note(where, z, KindApproximated, "zone %d: reset mode %d is not 0, 1 or 2; taken as 2 (always)", z.vnum, z.src.Mode)
		}
		fmt.Fprintf(b, "reset_secs = %d\n", secs)
		if lo, hi := z.src.MinLvl, z.src.MaxLvl; lo >= 0 && hi >= lo && hi > 0 && hi <= maxLevel {
			fmt.Fprintf(b, "levels = [%d, %d]\n", lo, hi)
		}
	}
	for _, r := range z.rooms {
		c.writeRoom(b, z, r)
	}
	for _, m := range z.mobs {
		c.writeMob(b, z, m)
	}
	for _, o := range z.objs {
		c.writeObj(b, z, o)
	}
	for _, r := range z.resets {
		b.WriteString(r.String())
	}
}

// collectDoorStates reads every D reset first: the state it sets is the
// state a door starts in, as it is after the zone's first reset at boot.
func (c *conv) collectDoorStates() {
	for _, z := range c.zones {
		if z.src == nil {
			continue
		}
		for _, cmd := range z.src.Cmds {
			if cmd.Op != 'D' {
				continue
			}
			k := [2]int{cmd.A, cmd.B}
			if _, ok := c.doorState[k]; !ok {
				c.doorState[k] = cmd.C
			}
		}
	}
}

// door is an exit's door as converted.
type door struct {
	keywords       []string
	short          string
	closed, locked bool
	key            string
}

func (c *conv) writeRoom(b *strings.Builder, z *outZone, r *Room) {
	z.stat.Rooms++
	what := fmt.Sprintf("room %d", r.Vnum)
	fmt.Fprintf(b, "\n[rooms.%s]\n", localName("room", r.Vnum))
	name := oneLine(c.str(r.Name, maxShort, r.at, z, what+" name"))
	if name == "" {
		name = fmt.Sprintf("Room %d", r.Vnum)
		c.note(r.at, z, KindApproximated, "%s has no name; named %q", what, name)
	}
	fmt.Fprintf(b, "name = %s\n", quote(name))
	desc := c.str(r.Desc, maxText, r.at, z, what+" description")
	if strings.TrimSpace(desc) == "" {
		desc = name + "."
		c.note(r.at, z, KindApproximated, "%s has no description; its name stands for one", what)
	}
	fmt.Fprintf(b, "description = %s\n", multi(desc))
	if r.Sector >= 0 && r.Sector < len(sectors) {
		fmt.Fprintf(b, "environment = %s\n", quote(sectors[r.Sector]))
	} else {
		c.note(r.at, z, KindDropped, "%s: sector %d is not one of CircleMUD's 0 to 9", what, r.Sector)
	}
	var fl []string
	death := false
	for _, bit := range r.Flags.bits() {
		if to, ok := roomFlagTo[bit]; ok {
			fl = append(fl, to)
			continue
		}
		switch {
		case bit == 1:
			death = true
		case roomFlagInternal[bit]:
		default:
			c.note(r.at, z, KindDropped, "%s: flag %s has no zonemud equivalent", what, name2(roomFlagNames, bit))
		}
	}
	if r.Sector == 0 && !r.Flags.has(3) {
		fl = append(fl, "indoors") // INSIDE is under a roof
	}
	if len(fl) > 0 {
		fmt.Fprintf(b, "flags = %s\n", list(dedupe(fl)))
	}
	exits := map[int]bool{}
	var exitParts []string
	doors := map[int]door{}
	extras := map[string]string{}
	var extraOrder []string
	addExtra := func(k, v string) {
		if _, ok := extras[k]; !ok {
			extraOrder = append(extraOrder, k)
			extras[k] = v
		}
	}
	for _, x := range r.Exits {
		dir := dirNames[x.Dir]
		xw := fmt.Sprintf("%s exit %s", what, dir)
		if exits[x.Dir] {
			c.note(x.at, z, KindError, "%s: a second exit %s; the first is kept", what, dir)
			continue
		}
		if x.To < 0 {
			if strings.TrimSpace(x.Desc) != "" {
				c.note(x.at, z, KindDropped, "%s leads nowhere (-1): only its description was there; zonemud has no exit descriptions", xw)
			} else {
				c.note(x.at, z, KindDropped, "%s leads nowhere (-1)", xw)
			}
			continue
		}
		tz, ok := c.roomZone[x.To]
		if !ok {
			c.note(x.at, z, KindBroken, "%s leads to room %d, which does not exist; left out", xw, x.To)
			continue
		}
		exits[x.Dir] = true
		exitParts = append(exitParts, fmt.Sprintf("%s = %s", dir, quote(c.ref(tz, "room", x.To, z))))
		desc := strings.TrimSpace(c.str(x.Desc, maxText, x.at, z, xw+" description"))
		if x.DoorFlag == 0 {
			if desc != "" {
				c.note(x.at, z, KindDropped, "%s: its description (look %s) is dropped; zonemud has no exit descriptions", xw, dir)
			}
			if state, ok := c.doorState[[2]int{r.Vnum, x.Dir}]; ok && state != 0 {
				c.note(x.at, z, KindDropped, "%s has no door, but a D reset sets its state", xw)
			}
			continue
		}
		d := door{keywords: keywords(stripMarkup(c.str(x.Keywords, maxShort, x.at, z, xw+" keywords")))}
		if len(d.keywords) == 0 {
			d.keywords = []string{"door"}
		}
		d.short = "the " + d.keywords[0]
		if desc != "" {
			addExtra(strings.Join(d.keywords, " "), desc)
			c.note(x.at, z, KindApproximated, "%s: its description is kept as the extra description of %q, since zonemud has no exit descriptions", xw, d.keywords[0])
		}
		switch x.DoorFlag {
		case 1:
		case 2:
			c.note(x.at, z, KindApproximated, "%s: pick-proof; zonemud doors cannot be picked at all", xw)
		case 3, 4:
			c.note(x.at, z, KindDropped, "%s: a hidden door; zonemud shows every door", xw)
		default:
			c.note(x.at, z, KindApproximated, "%s: door flag %d is not 0 to 4; taken as an ordinary door", xw, x.DoorFlag)
		}
		if x.Key > 0 || (x.Key == 0 && c.objZone[0] != nil) {
			if kz, ok := c.objZone[x.Key]; ok {
				d.key = c.ref(kz, "item", x.Key, z)
			} else {
				c.note(x.at, z, KindBroken, "%s: its key, object %d, does not exist; the door has no key", xw, x.Key)
			}
		}
		switch state := c.doorState[[2]int{r.Vnum, x.Dir}]; state {
		case 0:
		case 1:
			d.closed = true
		case 2:
			d.closed = true
			if d.key != "" {
				d.locked = true
			} else {
				c.note(x.at, z, KindApproximated, "%s is reset locked but has no key; zonemud needs a key for a locked door, so it is closed instead", xw)
			}
		}
		doors[x.Dir] = d
	}
	if len(exitParts) > 0 {
		fmt.Fprintf(b, "exits = { %s }\n", strings.Join(exitParts, ", "))
	}
	if death {
		c.note(r.at, z, KindApproximated, "%s: a death trap; a script kills whoever enters (the engine junks their items too; here they keep them)", what)
		b.WriteString("script = \"\"\"\n" +
			"-- A death trap in the source world: whoever enters dies.\n" +
			"function on_enter(actor)\n" +
			"  if actor:is_player() then\n" +
			"    actor:send(\"You have walked into a death trap.\")\n" +
			"    local v = actor:vitals()\n" +
			"    if v then actor:damage(v.hp + 10) end\n" +
			"  end\n" +
			"end\"\"\"\n")
	}
	var lua string
	var converted map[int]bool
	if !death {
		lua, converted = c.trigScript("room", r.Trigs)
	}
	if lua != "" {
		fmt.Fprintf(b, "script = %s\n", multi(lua))
	}
	c.trigNotes(r.at, z, what, fmt.Sprintf("room %d (%s)", r.Vnum, z.id), r.Trigs, converted)
	for i := range dirNames {
		d, ok := doors[i]
		if !ok {
			continue
		}
		fmt.Fprintf(b, "\n[rooms.%s.doors.%s]\n", localName("room", r.Vnum), dirNames[i])
		fmt.Fprintf(b, "keywords = %s\nshort = %s\n", list(d.keywords), quote(d.short))
		if d.closed {
			b.WriteString("closed = true\n")
		}
		if d.locked {
			b.WriteString("locked = true\n")
		}
		if d.key != "" {
			fmt.Fprintf(b, "key = %s\n", quote(d.key))
		}
	}
	for _, e := range r.Extras {
		kw := keywords(stripMarkup(c.str(e.Keywords, maxShort, r.at, z, what+" extra keywords")))
		if len(kw) == 0 {
			c.note(r.at, z, KindDropped, "%s: an extra description with no keywords", what)
			continue
		}
		addExtra(strings.Join(kw, " "), c.str(e.Text, maxText, r.at, z, what+" extra description"))
	}
	c.writeExtras(b, "rooms."+localName("room", r.Vnum), extras, extraOrder)
}

func (c *conv) writeExtras(b *strings.Builder, table string, extras map[string]string, order []string) {
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(b, "\n[%s.extra]\n", table)
	for _, k := range order {
		v := extras[k]
		if strings.TrimSpace(v) == "" {
			v = "You see nothing special."
		}
		fmt.Fprintf(b, "%s = %s\n", quote(k), multi(v))
	}
}

// trigNotes lists the triggers attached to a room or mob: converted, or
// left for a builder to rewrite.
func (c *conv) trigNotes(where at, z *outZone, what, user string, vnums []int, converted map[int]bool) {
	for _, t := range vnums {
		c.useTrig(t, user)
		if converted[t] {
			c.trigConverted[t] = true
			c.note(where, z, KindApproximated, "%s: trigger %d, a greeting or an echo, is converted to a Lua script; check it reads as it did", what, t)
		} else {
			c.note(where, z, KindDropped, "%s: trigger %d is attached; DG Scripts are not converted (see Triggers)", what, t)
		}
	}
}

func (c *conv) useTrig(vnum int, where string) {
	c.trigUse[vnum] = append(c.trigUse[vnum], where)
}

// name2 names a bit of a table.
func name2(table []string, bit int) string {
	if bit < len(table) {
		return table[bit]
	}
	return fmt.Sprintf("bit %d", bit)
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
