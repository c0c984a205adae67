package world

import (
	"time"

	"zonemud/zone"
)

// placedWait bounds how long a line waits for a character still loading
// (a second login while the first one loads it).
const placedWait = 10 * time.Second

// Route is where one session's input goes. Enter hands one to the gate for
// each login; every line the player types is posted to the zone the
// residency index names for the character at that moment, so the gate keeps
// no copy of where the character is. A line posted just before the
// character walked on reaches the zone it left, which passes it on through
// the shard, behind the handoff.
//
// A Route is used by its session's reader goroutine only.
type Route struct {
	sh   *residentShard // immutable
	r    *resident      // immutable: the character's entry, read under sh.mu
	name string         // immutable
	s    zone.Session   // immutable
}

// Input posts a line the player typed, numbered seq. It blocks while the
// zone's inbox is full, and while the character is still loading (at most
// placedWait). It reports false if the character has left the world, or
// its zone stopped with it still there (the world is shutting down): the
// session has nothing more to play.
func (rt *Route) Input(seq uint64, line string) bool {
	var last *zone.Zone
	for {
		z := rt.next(last)
		if z == nil {
			return false
		}
		if z.Input(rt.s, rt.name, seq, line) {
			return true
		}
		last = z
	}
}

// Dropped tells the character's zone that the connection went without a
// quit, so the character goes link-dead there.
func (rt *Route) Dropped() {
	var last *zone.Zone
	for {
		z := rt.next(last)
		if z == nil || z.Dropped(rt.s, rt.name) {
			return
		}
		last = z
	}
}

// next is the zone to post to: the one the character is routed to now,
// after waiting while it loads. It is nil if the character has left the
// world, or is still routed to last, a zone that refused a post because
// it had stopped.
func (rt *Route) next(last *zone.Zone) *zone.Zone {
	for {
		z, wait, gone := rt.lookup()
		switch {
		case z != nil && z != last:
			return z
		case z != nil || gone:
			return nil
		}
		select {
		case <-wait:
		case <-time.After(placedWait):
			return nil
		}
	}
}

// lookup reads where the character is routed, under its residency lock
// only. It is on the path of every line a player types and allocates
// nothing. wait is closed once a character still loading is placed.
func (rt *Route) lookup() (z *zone.Zone, wait <-chan struct{}, gone bool) {
	rt.sh.mu.Lock()
	h, gone := rt.r.h, rt.r.gone
	rt.sh.mu.Unlock()
	if h != nil {
		return h.z, nil, false
	}
	return nil, rt.r.placed, gone
}
