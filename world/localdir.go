package world

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// LocalOptions configure the in-memory directory.
type LocalOptions struct {
	// TTL is how long a lease lasts unless renewed (default 15 s).
	TTL time.Duration
	// GenBase is below every generation handed out. The world passes its
	// store's boot count shifted up 32 bits, so generations keep growing
	// across restarts although this directory forgets everything.
	GenBase uint64
	// Now is the directory's clock (default time.Now).
	Now func() time.Time
}

// NewLocalDirectory returns the directory for one process: the rules of
// Directory kept in memory under one mutex.
func NewLocalDirectory(opt LocalOptions) Directory {
	if opt.TTL <= 0 {
		opt.TTL = 15 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &localDir{opt: opt, zones: map[string]*localZone{}, byTemplate: map[string]map[string]*localZone{}, claims: map[string]map[string]time.Time{}}
}

// localDir is the in-memory Directory. Its mutex is a leaf: no method
// calls anything that locks.
type localDir struct {
	opt LocalOptions // immutable

	mu         sync.Mutex
	zones      map[string]*localZone            // guarded by mu: by id; a leased id's record is never deleted
	byTemplate map[string]map[string]*localZone // guarded by mu: live hostings by template, then id
	claims     map[string]map[string]time.Time  // guarded by mu: template -> owner -> expiry
}

// localZone is one id's record: its last lease, hosted or not.
type localZone struct {
	lease  Lease
	hosted bool   // not yet released
	gen    uint64 // the highest generation this id ever had
}

// liveLocked reports whether z is hosted now: not released, and not past
// its lease.
func (d *localDir) liveLocked(z *localZone, now time.Time) bool {
	return z != nil && z.hosted && (z.lease.Unleased || now.Before(z.lease.Expires))
}

func (d *localDir) Host(ctx context.Context, h Hosting) (Lease, error) {
	if h.ID == "" || h.Template == "" || h.Owner == "" {
		return Lease{}, fmt.Errorf("%w: hosting needs an id, a template and an owner: %+v", ErrBadHosting, h)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opt.Now()
	z := d.zones[h.ID]
	if d.liveLocked(z, now) {
		return Lease{}, fmt.Errorf("%w: %s by %s (generation %d)", ErrHosted, h.ID, z.lease.Owner, z.lease.Gen)
	}
	if z == nil {
		z = &localZone{}
		d.zones[h.ID] = z
	} else if z.hosted {
		d.dropLocked(z) // lapsed: the new hosting supersedes it
	}
	l := Lease{Hosting: h}
	if !h.Unleased {
		z.gen = max(z.gen, d.opt.GenBase) + 1
		l.Gen = z.gen
		l.Expires = now.Add(d.opt.TTL)
	}
	z.lease, z.hosted = l, true
	t := d.byTemplate[h.Template]
	if t == nil {
		t = map[string]*localZone{}
		d.byTemplate[h.Template] = t
	}
	t[h.ID] = z
	return l, nil
}

// dropLocked marks z no longer hosted. An id that never had a lease
// leaves no record behind.
func (d *localDir) dropLocked(z *localZone) {
	z.hosted = false
	id, tpl := z.lease.ID, z.lease.Template
	if t := d.byTemplate[tpl]; t != nil {
		delete(t, id)
		if len(t) == 0 {
			delete(d.byTemplate, tpl)
		}
	}
	if z.gen == 0 {
		delete(d.zones, id)
	}
}

// holderLocked returns the record l names if l is still its lease.
func (d *localDir) holderLocked(l Lease) *localZone {
	z := d.zones[l.ID]
	if z == nil || !z.hosted || z.lease.Gen != l.Gen || z.lease.Owner != l.Owner || z.lease.Unleased != l.Unleased {
		return nil
	}
	return z
}

func (d *localDir) Renew(ctx context.Context, l Lease) (Lease, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opt.Now()
	z := d.holderLocked(l)
	if z == nil || !d.liveLocked(z, now) {
		return Lease{}, fmt.Errorf("%w: %s generation %d", ErrLeaseLost, l.ID, l.Gen)
	}
	if !z.lease.Unleased {
		z.lease.Expires = now.Add(d.opt.TTL)
	}
	return z.lease, nil
}

func (d *localDir) Unhost(ctx context.Context, l Lease) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	z := d.holderLocked(l)
	if z == nil {
		return fmt.Errorf("%w: %s generation %d", ErrLeaseLost, l.ID, l.Gen)
	}
	d.dropLocked(z)
	return nil
}

func (d *localDir) Lookup(ctx context.Context, id string) (Lease, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if z := d.zones[id]; d.liveLocked(z, d.opt.Now()) {
		return z.lease, nil
	}
	return Lease{}, fmt.Errorf("%w: %s", ErrNotHosted, id)
}

func (d *localDir) List(ctx context.Context, template string) ([]Lease, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opt.Now()
	var out []Lease
	for _, z := range d.byTemplate[template] {
		if d.liveLocked(z, now) {
			out = append(out, z.lease)
		}
	}
	slices.SortFunc(out, func(a, b Lease) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func (d *localDir) Claim(ctx context.Context, template, owner string, ttl time.Duration) error {
	if template == "" || owner == "" || ttl <= 0 {
		return fmt.Errorf("%w: a claim needs a template, an owner and a TTL above zero", ErrBadHosting)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.claims[template]
	if c == nil {
		c = map[string]time.Time{}
		d.claims[template] = c
	}
	c[owner] = d.opt.Now().Add(ttl)
	return nil
}

func (d *localDir) Unclaim(ctx context.Context, template, owner string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.claims[template]; c != nil {
		delete(c, owner)
		if len(c) == 0 {
			delete(d.claims, template)
		}
	}
	return nil
}

func (d *localDir) Claims(ctx context.Context, template string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opt.Now()
	n := 0
	for owner, exp := range d.claims[template] {
		if now.Before(exp) {
			n++
		} else {
			delete(d.claims[template], owner) // lapsed: nothing has to reap it
		}
	}
	if len(d.claims[template]) == 0 {
		delete(d.claims, template)
	}
	return n, nil
}
