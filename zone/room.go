package zone

import "zonemud/content"

// Room is a room's runtime state. Its prototype is shared and immutable.
// Zone goroutine only.
type Room struct {
	proto  *content.Room
	people []*Char
	items  []*Item
	doors  [content.NumDirs]doorState
	// doorAt stamps each door on a zone border with its last change, so
	// the two zones that share it agree on one state (door.go).
	doorAt [content.NumDirs]doorStamp
	// objVer counts changes to the persistent items lying here; objSaved
	// is the count the last queued checkpoint carried.
	objVer, objSaved uint64
	// nplayers counts the players in people, so messages for a room with
	// no one to read them are never built.
	nplayers int
	// nstaff counts the staff among them when they came in (Char.staffIn),
	// who alone may be wizinvis: a throng's look counts the room without
	// asking each player whether they are seen when there are none.
	nstaff int
	// news is the comings and goings of a crowded room waiting for the
	// next pulse (crowd.go).
	news []*news
	// view keeps the description's text as last shown (roomView).
	view roomView
}

type doorState uint8

const (
	doorNone doorState = iota
	doorOpen
	doorClosed
	doorLocked
)

func newRoom(p *content.Room) *Room {
	r := &Room{proto: p}
	for d, ex := range p.Exits {
		if ex != nil && ex.Door != nil {
			r.doors[d] = initialDoor(ex.Door)
		}
	}
	return r
}

// initialDoor is the state a door starts in, as its prototype says.
func initialDoor(d *content.Door) doorState {
	switch {
	case d.Locked:
		return doorLocked
	case d.Closed:
		return doorClosed
	}
	return doorOpen
}

// ref is the room's authored ref.
func (r *Room) ref() string { return r.proto.Ref }

func (r *Room) addChar(c *Char) {
	r.people = append(r.people, c)
	c.room = r
	if c.pl != nil {
		r.nplayers++
	}
	if c.staffIn = c.role() > rolePlayer; c.staffIn {
		r.nstaff++
	}
}

func (r *Room) removeChar(c *Char) {
	for i, o := range r.people {
		if o == c {
			copy(r.people[i:], r.people[i+1:])
			r.people[len(r.people)-1] = nil
			r.people = r.people[:len(r.people)-1]
			if c.pl != nil {
				r.nplayers--
			}
			if c.staffIn {
				r.nstaff--
				c.staffIn = false
			}
			break
		}
	}
	c.room = nil
}

// exitOpen reports whether one can pass d: an exit with no door or an open
// one.
func (r *Room) exitOpen(d content.Dir) bool {
	return r.proto.Exits[d] != nil && (r.doors[d] == doorNone || r.doors[d] == doorOpen)
}
