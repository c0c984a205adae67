package zone

import "zonemud/content"

// Doors. A door between two rooms is one door: both sides show the same
// state. In one zone, changing a side changes the other at once. A door on
// a zone border has a side in each zone, and the two zones agree by
// message: every change stamps the side it was made on, tells the other
// zone, and the newer stamp wins on both sides (a change made on both
// sides at once ends the same way on each). A zone that starts tells its
// neighbours what its sides are, and a neighbour whose side is newer
// answers with it, so a zone hosted later learns the state it missed.

// doorStamp orders the changes of a border door: a count of changes, then
// the id of the zone that made it, so any two stamps compare.
type doorStamp struct {
	ver  uint64
	zone string
}

// newer reports whether a is a later change than b.
func (a doorStamp) newer(b doorStamp) bool {
	return a.ver > b.ver || a.ver == b.ver && a.zone > b.zone
}

// setDoor sets a door to "open", "closed" or "locked" (resets, scripts);
// the other side follows.
func (z *Zone) setDoor(room *Room, d content.Dir, state string) {
	var s doorState
	switch state {
	case "open":
		s = doorOpen
	case "closed":
		s = doorClosed
	case "locked":
		s = doorLocked
	default:
		return
	}
	z.changeDoor(room, d, s, "")
}

// changeDoor sets room's door in direction d, and its other side: in this
// zone at once, across a border by message. verb is what a player did to
// it, for the people on the other side to hear; "" changes it silently.
func (z *Zone) changeDoor(room *Room, d content.Dir, s doorState, verb string) {
	if room.doors[d] == doorNone {
		return
	}
	room.doors[d] = s
	ex := room.proto.Exits[d]
	if other := z.localRoom(ex.To); other != nil {
		back := d.Reverse()
		if other.doors[back] != doorNone && other.proto.Exits[back] != nil && other.proto.Exits[back].To == room.ref() {
			other.doors[back] = s
			if verb != "" {
				z.heardFromOtherSide(other, back, verb)
			}
		}
		return
	}
	room.doorAt[d] = doorStamp{ver: room.doorAt[d].ver + 1, zone: z.id}
	z.tellDoor(room, d, verb)
}

// tellDoor tells the zone across the border what room's door in direction
// d is now. An instance shares no door with a permanent zone: what happens
// inside it stays inside.
func (z *Zone) tellDoor(room *Room, d content.Dir, verb string) {
	if z.isInstance() {
		return
	}
	ex := room.proto.Exits[d]
	target := z.shard.Zone(parseRef(ex.To).zone)
	if target == nil || target == z || target.isInstance() {
		return
	}
	target.send(doorMsg{room: ex.To, dir: d.Reverse(), from: room.ref(), state: room.doors[d], at: room.doorAt[d], verb: verb})
}

// handleDoor takes the other side of a border door: the newer of the two
// stamps wins; if ours is newer, the other zone is told ours.
func (z *Zone) handleDoor(m doorMsg) {
	r := z.localRoom(m.room)
	if r == nil || r.doors[m.dir] == doorNone || r.proto.Exits[m.dir] == nil || r.proto.Exits[m.dir].To != m.from {
		return
	}
	switch {
	case m.at.newer(r.doorAt[m.dir]):
		changed := r.doors[m.dir] != m.state
		r.doors[m.dir] = m.state
		r.doorAt[m.dir] = m.at
		if changed && m.verb != "" {
			z.heardFromOtherSide(r, m.dir, m.verb)
		}
	case r.doorAt[m.dir].newer(m.at):
		z.tellDoor(r, m.dir, "")
	}
}

// greetBorderDoors tells every neighbour, as the zone starts, what its
// sides of their shared doors are.
func (z *Zone) greetBorderDoors() {
	for _, r := range z.rooms {
		for d := content.Dir(0); d < content.NumDirs; d++ {
			if r.doors[d] == doorNone || z.localRoom(r.proto.Exits[d].To) != nil {
				continue
			}
			if r.doorAt[d].zone == "" {
				r.doorAt[d].zone = z.id // the content's state, as this zone has it
			}
			z.tellDoor(r, d, "")
		}
	}
}

// heardFromOtherSide tells the people in room that its door in direction d
// was worked from the other side.
func (z *Zone) heardFromOtherSide(room *Room, d content.Dir, verb string) {
	what := map[string]string{"open": "opens", "close": "closes", "lock": "clicks", "unlock": "clicks"}[verb]
	if what == "" || room.nplayers == 0 {
		return
	}
	line := capFirst(room.proto.Exits[d].Door.Short) + " " + what + " from the other side."
	for _, o := range room.people {
		if o.pl != nil {
			z.sendLine(o, line)
		}
	}
}
