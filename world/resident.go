package world

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"zonemud/zone"
)

// resident is one character in the world, or on its way in.
type resident struct {
	// h is the zone that holds the character, or that it is on its way
	// to; nil while it loads. Guarded by its shard's mu; it changes only
	// with the routing lock held shared (route).
	h       *host
	pending zone.Session // guarded by its shard's mu: a login waiting to take it over
	// placed is closed once h is first set: a route to a character still
	// loading waits on it.
	placed chan struct{}
	gone   bool // guarded by its shard's mu: out of the world; routes to it lead nowhere
}

// route points r at h (or nowhere), keeping each zone's count of the
// residents routed to it. The caller holds r's shard lock, and the routing
// lock shared if h is not nil.
func (r *resident) route(h *host) {
	if r.h != nil {
		r.h.refs.Add(-1)
	}
	if r.h == nil && h != nil {
		close(r.placed)
	}
	r.h = h
	if h != nil {
		h.refs.Add(1)
	}
}

// residents is the residency index, split in shards by name so that no one
// lock is shared by every zone.
type residents struct {
	seed   maphash.Seed
	n      atomic.Int64 // characters resident or loading
	shards [64]residentShard
}

type residentShard struct {
	mu sync.Mutex
	m  map[string]*resident // guarded by mu; keyed by lower-case name
}

func newResidents() *residents {
	r := &residents{seed: maphash.MakeSeed()}
	for i := range r.shards {
		r.shards[i].m = map[string]*resident{}
	}
	return r
}

// lock returns the shard that holds name, locked, and the key to use in it.
func (r *residents) lock(name string) (*residentShard, string) {
	k := strings.ToLower(name)
	sh := &r.shards[maphash.String(r.seed, k)%uint64(len(r.shards))]
	sh.mu.Lock()
	return sh, k
}

// add makes a resident for key k of locked shard sh.
func (r *residents) add(sh *residentShard, k string) *resident {
	res := &resident{placed: make(chan struct{})}
	sh.m[k] = res
	r.n.Add(1)
	return res
}

// remove takes res, the resident for key k of locked shard sh, out of the
// world.
func (r *residents) remove(sh *residentShard, k string, res *resident) {
	if sh.m[k] == res {
		delete(sh.m, k)
		r.n.Add(-1)
	}
	res.route(nil)
	res.gone = true
}
