// Package dirtest is the contract suite of world.Directory. Any
// implementation (the local one, or one over Redis or etcd) runs it from
// its own test:
//
//	func TestMyDirectory(t *testing.T) {
//		dirtest.Run(t, dirtest.Harness{New: ..., TTL: ..., Advance: ...})
//	}
//
// It checks the rules written on world.Directory: one hosting per id,
// generations that only grow and fence the store, leases that lapse and are
// taken over, unleased hostings, claims with a TTL, and all of it under
// concurrent use (run it with -race). The store it fences against is a
// real bbolt file in a temporary directory.
//
// Nothing outside tests imports this package.
package dirtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/store"
	"zonemud/world"
)

// Harness is what Run needs of an implementation.
type Harness struct {
	// New returns an empty directory whose leases last TTL. Each subtest
	// calls it once.
	New func(t *testing.T) world.Directory
	// TTL is the lease TTL of the directories New returns.
	TTL time.Duration
	// Advance moves the clock of the directory New last returned forward
	// by d: a fake clock for the local directory, a sleep against a server.
	Advance func(d time.Duration)
}

var ctx = context.Background()

// Run runs every rule of the contract as a subtest.
func Run(t *testing.T, h Harness) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"HostLookupList", hostLookupList},
		{"DoubleHostRefused", doubleHostRefused},
		{"NeverHosted", neverHosted},
		{"BadRequests", badRequests},
		{"GenerationsOnlyGrow", generationsOnlyGrow},
		{"RenewExtends", renewExtends},
		{"ExpiryAndTakeover", expiryAndTakeover},
		{"StaleGenerationRefusedAtStore", staleGenerationAtStore},
		{"UnleasedHosting", unleasedHosting},
		{"Claims", claims},
		{"ConcurrentDoubleHost", concurrentDoubleHost},
		{"HostUnhostRace", hostUnhostRace},
		{"LookupsDuringUnhost", lookupsDuringUnhost},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, h) })
	}
}

func leased(id, owner string) world.Hosting {
	return world.Hosting{ID: id, Template: id, Owner: owner}
}

func copyOf(template, id, owner string) world.Hosting {
	return world.Hosting{ID: id, Template: template, Owner: owner, Unleased: true}
}

func host(t *testing.T, d world.Directory, h world.Hosting) world.Lease {
	t.Helper()
	l, err := d.Host(ctx, h)
	if err != nil {
		t.Fatalf("host %s: %v", h.ID, err)
	}
	return l
}

func hostLookupList(t *testing.T, h Harness) {
	d := h.New(t)
	l := host(t, d, leased("town", "a"))
	if l.Gen == 0 || l.Expires.IsZero() || l.ID != "town" || l.Owner != "a" {
		t.Fatalf("granted %+v, want a lease with a generation and an expiry", l)
	}
	got, err := d.Lookup(ctx, "town")
	if err != nil || got.Gen != l.Gen || got.Owner != "a" {
		t.Fatalf("lookup: %+v, %v; want the lease granted", got, err)
	}
	host(t, d, copyOf("crypt", "crypt#02", "a"))
	host(t, d, copyOf("crypt", "crypt#01", "a"))
	list, err := d.List(ctx, "crypt")
	if err != nil || len(list) != 2 || list[0].ID != "crypt#01" || list[1].ID != "crypt#02" {
		t.Fatalf("list of crypt: %+v, %v; want both copies sorted by id", list, err)
	}
	if list, _ := d.List(ctx, "town"); len(list) != 1 || list[0].ID != "town" {
		t.Fatalf("list of town: %+v", list)
	}
}

func doubleHostRefused(t *testing.T, h Harness) {
	d := h.New(t)
	l := host(t, d, leased("town", "a"))
	for _, again := range []world.Hosting{leased("town", "a"), leased("town", "b"), {ID: "town", Template: "town", Owner: "b", Unleased: true}} {
		if _, err := d.Host(ctx, again); !errors.Is(err, world.ErrHosted) {
			t.Fatalf("second host %+v: %v, want ErrHosted", again, err)
		}
	}
	if got, _ := d.Lookup(ctx, "town"); got.Gen != l.Gen || got.Owner != "a" {
		t.Fatalf("a refused host changed the hosting: %+v", got)
	}
	host(t, d, copyOf("crypt", "crypt#01", "a"))
	if _, err := d.Host(ctx, copyOf("crypt", "crypt#01", "b")); !errors.Is(err, world.ErrHosted) {
		t.Fatalf("second host of a copy: %v, want ErrHosted", err)
	}
}

func neverHosted(t *testing.T, h Harness) {
	d := h.New(t)
	if _, err := d.Lookup(ctx, "atlantis"); !errors.Is(err, world.ErrNotHosted) {
		t.Fatalf("lookup of an id never hosted: %v, want ErrNotHosted", err)
	}
	if list, err := d.List(ctx, "atlantis"); err != nil || len(list) != 0 {
		t.Fatalf("list of a template never hosted: %+v, %v", list, err)
	}
	forged := world.Lease{Hosting: leased("atlantis", "a"), Gen: 7, Expires: time.Now().Add(time.Hour)}
	if _, err := d.Renew(ctx, forged); !errors.Is(err, world.ErrLeaseLost) {
		t.Fatalf("renew of a lease never granted: %v, want ErrLeaseLost", err)
	}
	if err := d.Unhost(ctx, forged); !errors.Is(err, world.ErrLeaseLost) {
		t.Fatalf("unhost of a lease never granted: %v, want ErrLeaseLost", err)
	}
	if n, err := d.Claims(ctx, "atlantis"); err != nil || n != 0 {
		t.Fatalf("claims on a template never claimed: %d, %v", n, err)
	}
}

func badRequests(t *testing.T, h Harness) {
	d := h.New(t)
	for _, bad := range []world.Hosting{{Template: "town", Owner: "a"}, {ID: "town", Owner: "a"}, {ID: "town", Template: "town"}} {
		if _, err := d.Host(ctx, bad); !errors.Is(err, world.ErrBadHosting) {
			t.Errorf("host %+v: %v, want ErrBadHosting", bad, err)
		}
	}
	if err := d.Claim(ctx, "crypt", "a", 0); !errors.Is(err, world.ErrBadHosting) {
		t.Errorf("a claim without a TTL: %v, want ErrBadHosting", err)
	}
	if err := d.Claim(ctx, "", "a", time.Minute); !errors.Is(err, world.ErrBadHosting) {
		t.Errorf("a claim without a template: %v, want ErrBadHosting", err)
	}
	if _, err := d.Lookup(ctx, "town"); !errors.Is(err, world.ErrNotHosted) {
		t.Errorf("a refused request hosted something: %v", err)
	}
}

func generationsOnlyGrow(t *testing.T, h Harness) {
	d := h.New(t)
	var last uint64
	for i := 0; i < 50; i++ {
		l := host(t, d, leased("town", fmt.Sprintf("owner%d", i%3)))
		if l.Gen <= last {
			t.Fatalf("hosting %d got generation %d after %d", i, l.Gen, last)
		}
		last = l.Gen
		if err := d.Unhost(ctx, l); err != nil {
			t.Fatal(err)
		}
		if err := d.Unhost(ctx, l); !errors.Is(err, world.ErrLeaseLost) {
			t.Fatalf("a second release of one lease: %v, want ErrLeaseLost", err)
		}
		if _, err := d.Renew(ctx, l); !errors.Is(err, world.ErrLeaseLost) {
			t.Fatalf("renew of a released lease: %v, want ErrLeaseLost", err)
		}
	}
}

func renewExtends(t *testing.T, h Harness) {
	d := h.New(t)
	l := host(t, d, leased("town", "a"))
	for i := 0; i < 5; i++ {
		h.Advance(h.TTL * 2 / 3)
		r, err := d.Renew(ctx, l)
		if err != nil {
			t.Fatalf("renew %d within the TTL: %v", i, err)
		}
		if r.Gen != l.Gen || !r.Expires.After(l.Expires) {
			t.Fatalf("renewed %+v from %+v: want the same generation, a later expiry", r, l)
		}
		l = r
	}
	if got, err := d.Lookup(ctx, "town"); err != nil || got.Gen != l.Gen {
		t.Fatalf("after renewals, %+v, %v", got, err)
	}
}

func expiryAndTakeover(t *testing.T, h Harness) {
	d := h.New(t)
	old := host(t, d, leased("town", "a"))
	h.Advance(h.TTL + h.TTL/10)
	if _, err := d.Lookup(ctx, "town"); !errors.Is(err, world.ErrNotHosted) {
		t.Fatalf("lookup of a lapsed lease: %v, want ErrNotHosted", err)
	}
	if _, err := d.Renew(ctx, old); !errors.Is(err, world.ErrLeaseLost) {
		t.Fatalf("renew of a lapsed lease: %v, want ErrLeaseLost", err)
	}
	if list, _ := d.List(ctx, "town"); len(list) != 0 {
		t.Fatalf("a lapsed lease is still listed: %+v", list)
	}
	next := host(t, d, leased("town", "b"))
	if next.Gen <= old.Gen {
		t.Fatalf("takeover generation %d, want above the lapsed %d", next.Gen, old.Gen)
	}
	if err := d.Unhost(ctx, old); !errors.Is(err, world.ErrLeaseLost) {
		t.Fatalf("the old holder released a lease taken over: %v, want ErrLeaseLost", err)
	}
	if got, err := d.Lookup(ctx, "town"); err != nil || got.Owner != "b" || got.Gen != next.Gen {
		t.Fatalf("after the takeover: %+v, %v", got, err)
	}
	// A holder may release its own lapsed lease while no one took it.
	l := host(t, d, leased("ridge", "a"))
	h.Advance(h.TTL * 2)
	if err := d.Unhost(ctx, l); err != nil {
		t.Fatalf("release of one's own lapsed lease: %v", err)
	}
}

// The generations a directory grants work as fencing tokens in the store:
// once a takeover's generation is adopted, or a lease released, a save
// written under the old generation is refused.
func staleGenerationAtStore(t *testing.T, h Harness) {
	d := h.New(t)
	db, err := store.Open(filepath.Join(t.TempDir(), "fence.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	save := func(l world.Lease, fence store.FenceOp, room string) error {
		t.Helper()
		b := &store.Batch{Zone: l.ID, Gen: l.Gen, Fence: fence}
		if room != "" {
			b.Chars = []*store.Character{{Name: "Aria", Epoch: 1, Place: store.Placement{Zone: l.ID, Room: room}}}
		}
		res, err := db.Commit([]*store.Batch{b})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	old := host(t, d, leased("town", "a"))
	if err := save(old, store.FenceAdopt, ""); err != nil {
		t.Fatal(err)
	}
	if err := save(old, store.FenceNone, "town:room:a"); err != nil {
		t.Fatalf("a save under the current lease: %v", err)
	}
	h.Advance(h.TTL * 2)
	next := host(t, d, leased("town", "b"))
	if err := save(next, store.FenceAdopt, ""); err != nil {
		t.Fatalf("adopting the takeover's generation: %v", err)
	}
	if err := save(old, store.FenceNone, "town:room:zombie"); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a save under the lapsed lease after a takeover: %v, want store.ErrFenced", err)
	}
	if err := d.Unhost(ctx, next); err != nil {
		t.Fatal(err)
	}
	if err := save(next, store.FenceRelease, ""); err != nil {
		t.Fatal(err)
	}
	if err := save(next, store.FenceNone, "town:room:late"); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a save under a released lease: %v, want store.ErrFenced", err)
	}
	if c, err := db.Character("Aria"); err != nil || c.Place.Room != "town:room:a" {
		t.Fatalf("stored %+v, %v; want only the save made under a current lease", c, err)
	}
}

func unleasedHosting(t *testing.T, h Harness) {
	d := h.New(t)
	l := host(t, d, copyOf("crypt", "crypt#01", "a"))
	if l.Gen != 0 || !l.Expires.IsZero() {
		t.Fatalf("an unleased hosting got %+v, want no generation and no expiry", l)
	}
	h.Advance(h.TTL * 10)
	if got, err := d.Lookup(ctx, "crypt#01"); err != nil || got.ID != "crypt#01" {
		t.Fatalf("an unleased hosting lapsed: %+v, %v", got, err)
	}
	if _, err := d.Renew(ctx, l); err != nil {
		t.Fatalf("renew of a live unleased hosting: %v", err)
	}
	if err := d.Unhost(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Lookup(ctx, "crypt#01"); !errors.Is(err, world.ErrNotHosted) {
		t.Fatalf("after unhost: %v, want ErrNotHosted", err)
	}
	if err := d.Unhost(ctx, l); !errors.Is(err, world.ErrLeaseLost) {
		t.Fatalf("second unhost of a copy: %v, want ErrLeaseLost", err)
	}
	// The id is free again, and still unleased.
	if again := host(t, d, copyOf("crypt", "crypt#01", "b")); again.Gen != 0 {
		t.Fatalf("rehosted copy got generation %d", again.Gen)
	}
}

func claims(t *testing.T, h Harness) {
	d := h.New(t)
	count := func(want int) {
		t.Helper()
		if n, err := d.Claims(ctx, "crypt"); err != nil || n != want {
			t.Fatalf("claims: %d, %v; want %d", n, err, want)
		}
	}
	ttl := h.TTL * 3
	if err := d.Claim(ctx, "crypt", "a", ttl); err != nil {
		t.Fatal(err)
	}
	count(1)
	if err := d.Claim(ctx, "crypt", "b", ttl); err != nil {
		t.Fatal(err)
	}
	count(2)
	if err := d.Claim(ctx, "crypt", "a", ttl); err != nil { // a renewal, not a second claim
		t.Fatal(err)
	}
	count(2)
	h.Advance(ttl * 2 / 3)
	if err := d.Claim(ctx, "crypt", "a", ttl); err != nil {
		t.Fatal(err)
	}
	h.Advance(ttl/3 + ttl/10)
	count(1) // b lapsed; a was renewed
	if err := d.Unclaim(ctx, "crypt", "a"); err != nil {
		t.Fatal(err)
	}
	count(0)
	if err := d.Unclaim(ctx, "crypt", "nobody"); err != nil {
		t.Fatalf("unclaim of no claim: %v", err)
	}
	if n, _ := d.Claims(ctx, "town"); n != 0 {
		t.Fatalf("claims on another template: %d", n)
	}
}

func concurrentDoubleHost(t *testing.T, h Harness) {
	d := h.New(t)
	const n = 16
	var won atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, err := d.Host(ctx, leased("town", fmt.Sprintf("owner%d", i)))
			switch {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, world.ErrHosted):
				t.Errorf("host: %v, want nil or ErrHosted", err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d of %d concurrent hosts of one id succeeded, want exactly 1", won.Load(), n)
	}
}

// Several owners host and unhost one id in a loop: at no moment do two
// hold it, and every grant's generation is above all before it.
func hostUnhostRace(t *testing.T, h Harness) {
	d := h.New(t)
	var holders atomic.Int32
	var mu sync.Mutex
	var gens []uint64
	var wg sync.WaitGroup
	for i := range 4 {
		owner := fmt.Sprintf("owner%d", i)
		wg.Go(func() {
			for range 200 {
				l, err := d.Host(ctx, leased("town", owner))
				if errors.Is(err, world.ErrHosted) {
					continue
				}
				if err != nil {
					t.Errorf("host: %v", err)
					return
				}
				if n := holders.Add(1); n != 1 {
					t.Errorf("%d holders of one id at once", n)
				}
				mu.Lock()
				if len(gens) > 0 && l.Gen <= gens[len(gens)-1] {
					t.Errorf("generation %d granted after %d", l.Gen, gens[len(gens)-1])
				}
				gens = append(gens, l.Gen)
				mu.Unlock()
				holders.Add(-1)
				if err := d.Unhost(ctx, l); err != nil {
					t.Errorf("unhost of a held lease: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(gens) == 0 {
		t.Fatal("no host succeeded")
	}
}

// A lookup while the id is hosted and unhosted answers either a whole
// hosting (one that was granted, with its own generation and owner) or
// ErrNotHosted, never a torn or invented one.
func lookupsDuringUnhost(t *testing.T, h Harness) {
	d := h.New(t)
	var granted sync.Map // generation -> owner
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(stop)
		for i := range 300 {
			owner := fmt.Sprintf("owner%d", i%5)
			l, err := d.Host(ctx, leased("town", owner))
			if err != nil {
				t.Errorf("host: %v", err)
				return
			}
			granted.Store(l.Gen, owner)
			if err := d.Unhost(ctx, l); err != nil {
				t.Errorf("unhost: %v", err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			seen := 0
			for {
				select {
				case <-stop:
					if seen == 0 {
						t.Log("no lookup landed while the id was hosted (the loops did not overlap)")
					}
					return
				default:
				}
				l, err := d.Lookup(ctx, "town")
				if errors.Is(err, world.ErrNotHosted) {
					continue
				}
				if err != nil {
					t.Errorf("lookup: %v", err)
					return
				}
				seen++
				owner, ok := granted.Load(l.Gen)
				if l.ID != "town" || (ok && owner != l.Owner) {
					t.Errorf("lookup answered %+v, which was never granted as such", l)
					return
				}
			}
		})
	}
	wg.Wait()
}
