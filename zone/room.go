package zone

import (
	"slices"

	"zonemud/content"
)

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
	// nfollow counts the players among them who follow someone
	// (Char.followIn): a walk out of a room of thousands looks for
	// followers only when there are some.
	nfollow int
	// news is the comings and goings of a crowded room waiting to be told
	// (crowd.go).
	news []*news
	// newsAt is the pulse the room last told its news, if newsTold.
	newsAt   uint64
	newsTold bool
	// mobs is the mobs among people, in the same order: what looks for
	// mobs (scripts, aggression, stalkers, the throng's listing) walks it
	// instead of a room of thousands of players.
	mobs []*Char
	// view keeps the description's text as last shown (roomView).
	view roomView
	// info is the room's GMCP Room.Info as last encoded, for infoOf in
	// infoSet (gmcpRoom): the same for every walker, until a reload.
	info    []byte
	infoOf  *content.Room
	infoSet *content.Set
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
	} else {
		r.mobs = append(r.mobs, c)
	}
	if c.staffIn = c.role() > rolePlayer; c.staffIn {
		r.nstaff++
	}
	if c.followIn = c.pl != nil && c.pl.following != ""; c.followIn {
		r.nfollow++
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
			} else if j := slices.Index(r.mobs, c); j >= 0 {
				r.mobs = slices.Delete(r.mobs, j, j+1)
			}
			if c.staffIn {
				r.nstaff--
				c.staffIn = false
			}
			if c.followIn {
				r.nfollow--
				c.followIn = false
			}
			break
		}
	}
	c.room = nil
}

// setFollowing makes c follow leader ("": no one), counted in c's room.
func (c *Char) setFollowing(leader string) {
	c.pl.following = leader
	if r := c.room; r != nil && c.followIn != (leader != "") {
		c.followIn = leader != ""
		if c.followIn {
			r.nfollow++
		} else {
			r.nfollow--
		}
	}
}

// exitOpen reports whether one can pass d: an exit with no door or an open
// one.
func (r *Room) exitOpen(d content.Dir) bool {
	return r.proto.Exits[d] != nil && (r.doors[d] == doorNone || r.doors[d] == doorOpen)
}
