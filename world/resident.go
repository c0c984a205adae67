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
	zone    *zone.Zone   // the zone that holds it; nil while it loads
	pending zone.Session // a login waiting to take it over
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
