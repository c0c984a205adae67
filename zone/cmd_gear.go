package zone

import (
	"fmt"
	"slices"
	"strings"

	"zonemud/content"
)

// Gear, containers, doors and light.

const wearUsage = `wear <item> | wear all
  Put on something you carry, in the slot it is made for. wield, hold and
  remove work the same way; equipment lists what you wear.`

// slotFor is the slot an item goes in when worn, wielded or held.
func (z *Zone) slotFor(it *Item, how string) string {
	switch how {
	case "wield":
		if it.proto.Type == content.ItemWeapon || it.proto.Wear == "wield" {
			return "wield"
		}
		return ""
	case "hold":
		if it.proto.Wear == "hold" || it.proto.Type == content.ItemLight {
			if it.proto.Type == content.ItemLight && z.slotIndex("light") >= 0 {
				return "light"
			}
			return "hold"
		}
		return "hold"
	}
	if it.proto.Wear != "" {
		return it.proto.Wear
	}
	switch it.proto.Type {
	case content.ItemWeapon:
		return "wield"
	case content.ItemLight:
		return "light"
	}
	return ""
}

// putOn wears an item carried by c. It reports what to tell c and the
// room, and whether it worked.
func (z *Zone) putOn(c *Char, it *Item, how string) (self, room string, ok bool) {
	slot := z.slotFor(it, how)
	i := z.slotIndex(slot)
	if slot == "" || i < 0 {
		return "You cannot " + how + " " + it.short() + ".", "", false
	}
	if it.proto.Level > c.level {
		return "You are not experienced enough to use " + it.short() + ".", "", false
	}
	if c.eq[i] != nil {
		return "You already use " + c.eq[i].short() + " there; remove it first.", "", false
	}
	c.inv = removeItem(c.inv, it)
	c.eq[i] = it
	it.slot = i
	c.recValid = false
	z.recalc(c)
	z.dirty(c)
	switch slot {
	case "wield":
		return "You wield " + it.short() + ".", "$n wields " + it.short() + ".", true
	case "light":
		return "You light " + it.short() + " and hold it up to see by.", "$n lights " + it.short() + ".", true
	case "hold":
		return "You hold " + it.short() + ".", "$n holds " + it.short() + ".", true
	}
	return "You wear " + it.short() + ".", "$n wears " + it.short() + ".", true
}

func (z *Zone) wearCmd(c *Char, args, how string) {
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, capFirst(how)+" what?")
		return
	}
	items := pickItems(spec, c.inv)
	if len(items) == 0 {
		z.sendLine(c, "You do not have that.")
		return
	}
	done := 0
	for i, it := range items {
		if i >= maxAll {
			break
		}
		self, room, ok := z.putOn(c, it, how)
		if spec.all && !ok {
			continue
		}
		z.sendLine(c, self)
		if ok {
			done++
			z.act(c.room, c, c, room)
		}
	}
	if spec.all && done == 0 {
		z.sendLine(c, "You have nothing more you can "+how+".")
	}
}

func (z *Zone) cmdWear(c *Char, args string)  { z.wearCmd(c, args, "wear") }
func (z *Zone) cmdWield(c *Char, args string) { z.wearCmd(c, args, "wield") }
func (z *Zone) cmdHold(c *Char, args string)  { z.wearCmd(c, args, "hold") }

// cmdRemove takes off worn items.
func (z *Zone) cmdRemove(c *Char, args string) {
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, "Remove what?")
		return
	}
	var worn []*Item
	for _, it := range c.eq {
		if it != nil {
			worn = append(worn, it)
		}
	}
	items := pickItems(spec, worn)
	if len(items) == 0 {
		z.sendLine(c, "You are not wearing that.")
		return
	}
	for _, it := range items {
		if len(c.inv) >= maxCarry {
			z.sendLine(c, "Your hands are full.")
			break
		}
		c.eq[it.slot] = nil
		it.slot = -1
		c.inv = append(c.inv, it)
		c.recValid = false
		z.sendLine(c, "You stop using "+it.short()+".")
		z.act(c.room, c, c, "$n stops using "+it.short()+".")
	}
	z.recalc(c)
	z.dirty(c)
}

// cmdEquipment lists what c wears.
func (z *Zone) cmdEquipment(c *Char, args string) {
	lines := z.equipmentLines(c)
	if len(lines) == 0 {
		z.sendLine(c, "You are wearing nothing special.")
		return
	}
	z.sendLine(c, "You are using:\n"+strings.Join(lines, "\n"))
}

// cmdPut puts an item into a container.
func (z *Zone) cmdPut(c *Char, args string) {
	what, into := splitIn(args)
	if what == "" || into == "" {
		z.sendLine(c, "Put what in what?")
		return
	}
	cont := findItem(c, into)
	if cont == nil {
		z.sendLine(c, "You do not see that container here.")
		return
	}
	if cont.proto.Type != content.ItemContainer {
		z.sendLine(c, capFirst(cont.short())+" is not a container.")
		return
	}
	if cont.closed {
		z.sendLine(c, capFirst(cont.short())+" is closed.")
		return
	}
	spec, ok := parseTarget(what)
	if !ok {
		z.sendLine(c, "You do not have that.")
		return
	}
	items := pickItems(spec, c.inv)
	if len(items) == 0 {
		z.sendLine(c, "You do not have that.")
		return
	}
	if spec.all { // "put all in bag" means all but the bag
		items = slices.DeleteFunc(items, func(it *Item) bool { return it == cont })
	}
	put := z.letGo(c, items, func(it *Item) (string, bool) {
		switch {
		case it == cont:
			return "You cannot put " + it.short() + " inside itself.", false
		case it.contains(cont):
			return "You cannot put " + it.short() + " into something it holds.", false
		case len(cont.contents) >= cont.proto.Capacity:
			return capFirst(cont.short()) + " is full.", true
		}
		return "", false
	}, func(it *Item) { z.itemToContainer(it, cont) })
	for _, line := range groupItems(put, (*Item).short) {
		z.sendLine(c, "You put "+line+" in "+cont.short()+".")
		z.act(c.room, c, c, "$n puts "+line+" in "+cont.short()+".")
	}
}

// splitIn splits "sword in chest" into "sword" and "chest".
func splitIn(args string) (string, string) {
	for _, sep := range []string{" into ", " in "} {
		if i := strings.Index(args, sep); i >= 0 {
			return strings.TrimSpace(args[:i]), strings.TrimSpace(args[i+len(sep):])
		}
	}
	return strings.TrimSpace(args), ""
}

// lookIn shows what is in a container.
func (z *Zone) lookIn(c *Char, what string) {
	cont := findItem(c, what)
	z.showContents(c, cont)
}

// showContents tells c what a container holds, or why it cannot see.
func (z *Zone) showContents(c *Char, cont *Item) {
	switch {
	case cont == nil:
		z.sendLine(c, "You do not see that here.")
	case cont.proto.Type != content.ItemContainer && cont.proto.Type != content.ItemCorpse:
		z.sendLine(c, "That is not a container.")
	case cont.closed:
		z.sendLine(c, capFirst(cont.short())+" is closed.")
	case len(cont.contents) == 0:
		z.sendLine(c, capFirst(cont.short())+" is empty.")
	default:
		lines := groupItems(cont.contents, (*Item).short)
		z.sendLine(c, capFirst(cont.short())+" holds:\n  "+strings.Join(lines, "\n  "))
	}
}

// hasKey reports whether c carries an item of the key prototype.
func hasKey(c *Char, key string) bool {
	if key == "" {
		return false
	}
	var walk func([]*Item) bool
	walk = func(items []*Item) bool {
		for _, it := range items {
			if it.proto.Ref == key || walk(it.contents) {
				return true
			}
		}
		return false
	}
	return walk(c.carried())
}

// findDoor finds a door by direction or keyword in c's room.
func (z *Zone) findDoor(c *Char, word string) (content.Dir, bool) {
	word = strings.ToLower(strings.TrimSpace(word))
	if d, ok := content.ParseDir(word); ok && c.room.doors[d] != doorNone {
		return d, true
	}
	for d := content.Dir(0); d < content.NumDirs; d++ {
		ex := c.room.proto.Exits[d]
		if ex != nil && ex.Door != nil && matches(word, ex.Door.Keywords) {
			return d, true
		}
	}
	return 0, false
}

// doorCmd opens, closes, locks or unlocks a door or a container.
func (z *Zone) doorCmd(c *Char, args, verb string) {
	what := strings.TrimSpace(args)
	if what == "" {
		z.sendLine(c, capFirst(verb)+" what?")
		return
	}
	if d, ok := z.findDoor(c, what); ok {
		z.useDoor(c, d, verb)
		return
	}
	it := findItem(c, what)
	if it == nil {
		z.sendLine(c, "You see no "+what+" here.")
		return
	}
	if it.proto.Type != content.ItemContainer || !it.proto.Closeable {
		z.sendLine(c, "You cannot "+verb+" "+it.short()+".")
		return
	}
	z.useContainer(c, it, verb)
}

// useDoor does verb to the door of c's room that leads d, or tells c why
// not: a locked door does not open, a lock wants its key.
func (z *Zone) useDoor(c *Char, d content.Dir, verb string) {
	ex := c.room.proto.Exits[d]
	st := c.room.doors[d]
	name := ex.Door.Short
	var next doorState
	switch verb {
	case "open":
		if st == doorLocked {
			z.sendLine(c, capFirst(name)+" is locked.")
			return
		}
		if st == doorOpen {
			z.sendLine(c, capFirst(name)+" is already open.")
			return
		}
		next = doorOpen
	case "close":
		if st != doorOpen {
			z.sendLine(c, capFirst(name)+" is already closed.")
			return
		}
		next = doorClosed
	case "lock":
		if st == doorOpen {
			z.sendLine(c, "Close it first.")
			return
		}
		if st == doorLocked {
			z.sendLine(c, capFirst(name)+" is already locked.")
			return
		}
		if !hasKey(c, ex.Door.Key) {
			z.sendLine(c, "You lack the key.")
			return
		}
		next = doorLocked
	case "unlock":
		if st != doorLocked {
			z.sendLine(c, capFirst(name)+" is not locked.")
			return
		}
		if !hasKey(c, ex.Door.Key) {
			z.sendLine(c, "You lack the key.")
			return
		}
		next = doorClosed
	}
	z.changeDoor(c.room, d, next, verb)
	z.sendLine(c, "You "+verb+" "+name+".")
	z.act(c.room, c, c, "$n "+verb+"s "+name+".")
}

// useContainer does verb to a container c can reach, or tells c why not.
func (z *Zone) useContainer(c *Char, it *Item, verb string) {
	switch verb {
	case "open":
		if it.locked {
			z.sendLine(c, capFirst(it.short())+" is locked.")
			return
		}
		if !it.closed {
			z.sendLine(c, "It is already open.")
			return
		}
		it.closed = false
	case "close":
		if it.closed {
			z.sendLine(c, "It is already closed.")
			return
		}
		it.closed = true
	case "lock":
		if !it.closed {
			z.sendLine(c, "Close it first.")
			return
		}
		if it.locked || !hasKey(c, it.proto.Key) {
			z.sendLine(c, "You cannot lock it.")
			return
		}
		it.locked = true
	case "unlock":
		if !it.locked {
			z.sendLine(c, "It is not locked.")
			return
		}
		if !hasKey(c, it.proto.Key) {
			z.sendLine(c, "You lack the key.")
			return
		}
		it.locked = false
	}
	z.itemsChanged(it)
	z.dirty(c)
	z.sendLine(c, "You "+verb+" "+it.short()+".")
	z.act(c.room, c, c, "$n "+verb+"s "+it.short()+".")
}

func (z *Zone) cmdOpen(c *Char, args string)   { z.doorCmd(c, args, "open") }
func (z *Zone) cmdClose(c *Char, args string)  { z.doorCmd(c, args, "close") }
func (z *Zone) cmdLock(c *Char, args string)   { z.doorCmd(c, args, "lock") }
func (z *Zone) cmdUnlock(c *Char, args string) { z.doorCmd(c, args, "unlock") }

// lit reports whether c can see in its room: the room is not dark, or a
// light shines there (a light held or worn by anyone present, or a glowing
// item carried or lying there), or c is staff with holylight on.
func (z *Zone) lit(c *Char) bool {
	r := c.room
	if r == nil || !r.proto.Flags.Has(content.RoomDark) || holylight(c) {
		return true
	}
	for _, it := range r.items {
		if it.proto.Flags.Has(content.ItemGlow) {
			return true
		}
	}
	for _, o := range r.people {
		for _, it := range o.eq {
			if it != nil && (it.proto.Type == content.ItemLight || it.proto.Flags.Has(content.ItemGlow)) {
				return true
			}
		}
		for _, it := range o.inv {
			if it.proto.Flags.Has(content.ItemGlow) {
				return true
			}
		}
	}
	return false
}

// scoreLines are the lines of score with the numbers combat reads.
func (z *Zone) scoreLines(c *Char) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hitroll %d, damroll %d, armour %d, dodge %d%%, %d attack(s) a round.",
		c.st.hitroll, c.st.damroll, c.st.armor, c.st.dodge, c.st.attacks)
	if len(c.st.attrs) > 0 {
		b.WriteString("\n")
		for i, a := range z.set.Game.Attributes {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", a.Name, c.st.attrs[i])
		}
		b.WriteString(".")
	}
	return b.String()
}
