package circle

import (
	"fmt"
	"strings"
)

// reset is one converted reset line.
type reset struct {
	line                  int
	kind                  string // mob, item, door
	proto, room           string
	max                   int
	equip, give, contents []string
	state                 string
	container             int // the object vnum, for P
}

func (r *reset) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[resets]] # source line %d\n", r.line)
	switch r.kind {
	case "door":
		fmt.Fprintf(&b, "door = %s\nroom = %s\nstate = %s\n", quote(r.proto), quote(r.room), quote(r.state))
		return b.String()
	case "mob":
		fmt.Fprintf(&b, "mob = %s\n", quote(r.proto))
	default:
		fmt.Fprintf(&b, "item = %s\n", quote(r.proto))
	}
	fmt.Fprintf(&b, "room = %s\nmax = %d\n", quote(r.room), r.max)
	if len(r.equip) > 0 {
		fmt.Fprintf(&b, "equip = %s\n", list(r.equip))
	}
	if len(r.give) > 0 {
		fmt.Fprintf(&b, "give = %s\n", list(r.give))
	}
	if len(r.contents) > 0 {
		fmt.Fprintf(&b, "contents = %s\n", list(r.contents))
	}
	return b.String()
}

// convertResets turns a zone's commands into reset lines, each put in the
// zone of the room it names (zonemud resets stay in their own zone; a
// Circle zone may load into another's rooms).
func (c *conv) convertResets(z *outZone) {
	if z.src == nil {
		return
	}
	file := z.src.File
	for _, l := range z.src.unknownCommands {
		c.note(at{file, l}, z, KindError, "an unknown zone command; skipped")
	}
	var lastMob *reset // the last M that converted, for G and E
	lastMobLine := 0
	var items []*reset // O resets so far, for P
	for _, cmd := range z.src.Cmds {
		where := at{file, cmd.Line}
		op := string(cmd.Op)
		if cmd.If == 1 && (cmd.Op == 'M' || cmd.Op == 'O' || cmd.Op == 'D') {
			c.note(where, z, KindApproximated, "%s with if-flag 1: zonemud runs it whether or not the command before it ran", op)
		}
		switch cmd.Op {
		case 'M':
			lastMob = nil
			lastMobLine = cmd.Line
			mz, ok := c.mobZone[cmd.A]
			if !ok {
				c.note(where, z, KindBroken, "M loads mob %d, which does not exist; left out", cmd.A)
				continue
			}
			rz, ok := c.roomZone[cmd.C]
			if !ok {
				c.note(where, z, KindBroken, "M loads mob %d into room %d, which does not exist; left out", cmd.A, cmd.C)
				continue
			}
			r := &reset{line: cmd.Line, kind: "mob", proto: c.ref(mz, "mob", cmd.A, rz), room: localName("room", cmd.C), max: c.resetMax(cmd.B, where, z)}
			c.addReset(rz, r)
			lastMob = r
		case 'G', 'E':
			oz, ok := c.objZone[cmd.A]
			switch {
			case lastMob == nil && lastMobLine == 0:
				c.note(where, z, KindBroken, "%s gives object %d to the last mob loaded, and no M comes before it; left out", op, cmd.A)
				continue
			case lastMob == nil:
				c.note(where, z, KindBroken, "%s gives object %d to the mob of line %d, which was left out; left out too", op, cmd.A, lastMobLine)
				continue
			case !ok:
				c.note(where, z, KindBroken, "%s gives object %d, which does not exist; left out", op, cmd.A)
				continue
			}
			mz := c.roomZone[vnumOf(lastMob.room)]
			ref := c.ref(oz, "item", cmd.A, mz)
			if cmd.Op == 'G' {
				lastMob.give = append(lastMob.give, ref)
				continue
			}
			o := c.w.Objs[cmd.A]
			if c.itemSlot(o) == "" && objTypeTo[o.Type] != "weapon" && objTypeTo[o.Type] != "light" {
				c.note(where, z, KindApproximated, "E equips object %d at %s, but it has no zonemud slot; the mob carries it instead", cmd.A, name2(equipPos, cmd.C))
				lastMob.give = append(lastMob.give, ref)
				continue
			}
			lastMob.equip = append(lastMob.equip, ref)
		case 'O':
			oz, ok := c.objZone[cmd.A]
			if !ok {
				c.note(where, z, KindBroken, "O loads object %d, which does not exist; left out", cmd.A)
				continue
			}
			rz, ok := c.roomZone[cmd.C]
			if !ok {
				c.note(where, z, KindBroken, "O loads object %d into room %d, which does not exist; left out", cmd.A, cmd.C)
				continue
			}
			r := &reset{line: cmd.Line, kind: "item", proto: c.ref(oz, "item", cmd.A, rz), room: localName("room", cmd.C), max: c.resetMax(cmd.B, where, z), container: cmd.A}
			c.addReset(rz, r)
			items = append(items, r)
		case 'P':
			oz, ok := c.objZone[cmd.A]
			if !ok {
				c.note(where, z, KindBroken, "P puts object %d, which does not exist; left out", cmd.A)
				continue
			}
			var into *reset
			for i := len(items) - 1; i >= 0; i-- {
				if items[i].container == cmd.C {
					into = items[i]
					break
				}
			}
			switch {
			case into == nil:
				c.note(where, z, KindDropped, "P puts object %d into object %d, which no O of this zone loads into a room (zonemud fills only containers that lie in a room); left out", cmd.A, cmd.C)
				continue
			case c.w.Objs[cmd.C] == nil || c.w.Objs[cmd.C].Type != 15:
				c.note(where, z, KindDropped, "P puts object %d into object %d, which is not a container; left out", cmd.A, cmd.C)
				continue
			}
			into.contents = append(into.contents, c.ref(oz, "item", cmd.A, c.roomZone[vnumOf(into.room)]))
		case 'D':
			rm := c.w.Rooms[cmd.A]
			rz, ok := c.roomZone[cmd.A]
			if rm == nil || !ok {
				c.note(where, z, KindBroken, "D sets a door of room %d, which does not exist; left out", cmd.A)
				continue
			}
			if cmd.B < 0 || cmd.B > 9 || !c.hasDoor(rm, cmd.B) {
				c.note(where, z, KindBroken, "D sets door %d of room %d, which has no door that way; left out", cmd.B, cmd.A)
				continue
			}
			state := map[int]string{0: "open", 1: "closed", 2: "locked"}[cmd.C]
			if state == "" {
				c.note(where, z, KindError, "D state %d is not 0, 1 or 2; left out", cmd.C)
				continue
			}
			if state == "locked" && !c.doorHasKey(rm, cmd.B) {
				state = "closed"
			}
			c.addReset(rz, &reset{line: cmd.Line, kind: "door", proto: dirNames[cmd.B], room: localName("room", cmd.A), state: state})
		case 'R':
			c.note(where, z, KindDropped, "R removes object %d from room %d at each reset; zonemud resets never remove", cmd.B, cmd.A)
		case 'T':
			c.useTrig(cmd.B, fmt.Sprintf("zone %d line %d (T command)", z.vnum, cmd.Line))
			c.note(where, z, KindDropped, "T attaches trigger %d; DG Scripts are not converted (see Triggers)", cmd.B)
		case 'V':
			c.note(where, z, KindDropped, "V sets a DG Script variable (%s); not converted", clip(cmd.Comment))
		}
	}
}

func (c *conv) addReset(z *outZone, r *reset) {
	z.resets = append(z.resets, r)
	z.stat.Resets++
}

// resetMax is the zonemud max of a source max: the source counts copies
// in the whole world, zonemud those of the reset line.
func (c *conv) resetMax(n int, where at, z *outZone) int {
	if n < 1 || n > 100 {
		nv := min(max(n, 1), 100)
		c.note(where, z, KindApproximated, "max %d is out of zonemud's range 1 to 100; written as %d", n, nv)
		return nv
	}
	return n
}

func vnumOf(local string) int {
	var v int
	fmt.Sscanf(local[1:], "%d", &v)
	return v
}

// hasDoor reports whether the converted room has a door in direction d.
func (c *conv) hasDoor(r *Room, d int) bool {
	for _, x := range r.Exits {
		if x.Dir == d {
			_, ok := c.roomZone[x.To]
			return x.DoorFlag != 0 && ok
		}
	}
	return false
}

func (c *conv) doorHasKey(r *Room, d int) bool {
	for _, x := range r.Exits {
		if x.Dir == d {
			_, ok := c.objZone[x.Key]
			return x.Key >= 0 && ok
		}
	}
	return false
}
