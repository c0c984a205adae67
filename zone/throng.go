package zone

import (
	"slices"
	"strconv"
	"strings"
)

// Throngs. In a room holding more players than the zone's throng size,
// nobody hears or sees the whole room: what a player says, asks or emotes
// reaches only those near them, and a look names those near them and
// counts the rest ("A throng of 2994 people is here; near you stand Aria,
// Bran and Cora."). Near means within throngNear players either side in
// the room's order, which is the order they came in: a pack that walks in
// together stands together, and whoever A hears hears A.
//
// Without this, one say in a room of thousands is a line for each of
// them, and each of them a write every flush gap: the fan-out grows with
// the square of the room while nobody could follow a thousand voices.

// throngNear is how many players on each side of someone stand near them
// in a throng.
const throngNear = 10

// throng reports whether room holds more players than the throng size.
func (z *Zone) throng(room *Room) bool {
	return room != nil && z.cfg.ThrongSize > 0 && room.nplayers > z.cfg.ThrongSize
}

// near is the players near c in room, a throng, without c: up to
// throngNear each side of c in the room's order, wrapping round its ends,
// listed in that order (those before c, then those after). The slice is
// the zone's scratch, good until the next call.
func (z *Zone) near(room *Room, c *Char) []*Char {
	out := z.nearBuf[:0]
	i := slices.Index(room.people, c)
	if i < 0 {
		return out
	}
	n := len(room.people)
	stop := i // the farthest taken before c, where those after c stop
	for k := 1; k < n && len(out) < throngNear; k++ {
		j := (i - k + n) % n
		if o := room.people[j]; o.pl != nil {
			out = append(out, o)
			stop = j
		}
	}
	slices.Reverse(out)
	before := len(out)
	for k := 1; k < n && len(out)-before < throngNear; k++ {
		j := (i + k) % n
		if j == stop {
			break // round the ring to those already taken
		}
		if o := room.people[j]; o.pl != nil {
			out = append(out, o)
		}
	}
	z.nearBuf = out
	return out
}

// hearers is who hears what from says in room: everyone there, or in a
// throng those near from.
func (z *Zone) hearers(room *Room, from *Char) []*Char {
	if z.throng(room) {
		return z.near(room, from)
	}
	return room.people
}

// throngLine is the look listing's line for the players of a throng, seen
// by c: how many c sees, and the names of those near c.
func (z *Zone) throngLine(room *Room, c *Char, width int) string {
	seen := room.nplayers - 1
	if room.nstaff > 0 {
		// Someone here may be wizinvis: count only those c sees.
		seen = 0
		for _, o := range room.people {
			if o != c && o.pl != nil && z.canSee(c, o) {
				seen++
			}
		}
	}
	var names []string
	for _, o := range z.near(room, c) {
		if z.canSee(c, o) {
			names = append(names, capFirst(o.short()))
		}
	}
	s := "A throng of " + strconv.Itoa(seen) + " people is here"
	if len(names) > 0 {
		s += "; near you stand " + listWords(names)
	}
	return "{y}" + strings.TrimRight(wrap(s+".", width), "\n") + "{x}"
}
