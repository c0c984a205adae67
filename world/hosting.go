package world

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/store"
	"zonemud/zone"
)

// host is one zone the world runs: the actor, its lease, its goroutine.
type host struct {
	z *zone.Zone // immutable

	// refs counts the residents routed to this zone: in it, on their way
	// in, or waiting to take over a character in it. It goes up only
	// under the routing lock held shared, so unhost, holding it
	// exclusively, reads a count that cannot grow.
	refs atomic.Int64

	cancel context.CancelFunc // set when started; guarded by the routing lock
	done   <-chan struct{}    // closed when z.Run has returned; guarded by the routing lock

	// acked is set by the zone's goroutine when it answers a heartbeat;
	// the lease keeper renews only a zone that answered.
	acked atomic.Bool

	mu       sync.Mutex
	lease    Lease // guarded by mu
	lost     bool  // guarded by mu: the lease lapsed; the store refuses this zone's saves
	unhosted bool  // guarded by mu: no more renewals
}

// quiescent reports whether nobody is in h's zone or on the way into it.
// refs counts every resident routed to the zone: its population (link-dead
// characters included), stashed sessions (a login waiting to take over a
// character in it), and arrivals in flight (a handoff queued on its
// mailbox and not yet handled, which Moving routes before the zone sees
// it). It only grows under the routing lock held shared, so under the
// lock held exclusively the answer cannot be undone.
func (h *host) quiescent() bool { return h.refs.Load() == 0 }

// HostSpec says what to host.
type HostSpec struct {
	// Template is the content zone to run.
	Template string
	// Instance mints a copy of an instanceable template: its own id
	// (<template>#<32 hex>), no lease, no persistent room objects. It
	// counts against the process's cap of copies and is reaped once
	// quiescent, like a copy a player opened. Otherwise Template must be an ordinary zone, hosted under its own id
	// with a lease.
	Instance bool
}

// Host builds a zone and hosts it: a lease from the directory (none for a
// copy), the store told its generation before it saves anything, and once
// the world has started its goroutine runs. It may read the store (a
// permanent zone's room objects); it never waits on a zone. A zone hosted
// already gets ErrHosted.
func (w *World) Host(ctx context.Context, spec HostSpec) (*zone.Zone, error) {
	if w.stopping.Load() {
		return nil, ErrStopping
	}
	if spec.Instance {
		return w.hostCopy(ctx, spec.Template)
	}
	snap := w.Snapshot()
	zp := snap.Set.Zones[spec.Template]
	switch {
	case zp == nil:
		return nil, fmt.Errorf("%w: no zone %q in the loaded content", ErrNoTemplate, spec.Template)
	case zp.Instanceable:
		return nil, fmt.Errorf("%w: zone %q is entered only through its instances", ErrNoTemplate, spec.Template)
	}
	h, err := w.newHost(ctx, snap, zp, false)
	if err != nil {
		return nil, err
	}
	if err := w.hostBuilt(h); err != nil {
		return nil, err
	}
	return h.z, nil
}

// newHost leases and builds a zone, not yet in the table. The lease comes
// first: a permanent zone reads its room objects only once the store knows
// its generation is the current one.
func (w *World) newHost(ctx context.Context, snap *zone.Snapshot, zp *content.Zone, instance bool) (*host, error) {
	id := zp.ID
	if instance {
		id = zone.NewInstanceID(zp.ID)
	}
	lease, err := w.dir.Host(ctx, Hosting{ID: id, Template: zp.ID, Owner: w.owner, Unleased: instance})
	if err != nil {
		return nil, err
	}
	h := &host{lease: lease}
	h.acked.Store(true)
	opt := zone.Options{Log: w.log, Scripts: snap.Scripts, Gen: lease.Gen, Version: snap.Version, Metrics: w.zoneMetrics}
	if instance {
		opt.ID = id // no room objects: every copy has the same room refs
	} else {
		if err := w.adopt(ctx, id, lease.Gen); err != nil {
			w.dropLease(h)
			return nil, err
		}
		if opt.Objects, err = w.loadObjects(id); err != nil {
			w.dropLease(h)
			return nil, err
		}
	}
	h.z = zone.New(zp, snap.Set, w, w.zoneCfg, opt)
	return h, nil
}

// adopt records gen as zone id's lease generation in the store. Once the
// saver runs it waits until that is written: the saver writes in order, so
// every save queued before it is written too, the last one of the zone's
// previous hosting included, and the room objects read next are the ones
// that hosting left (read earlier, they could be older: an item picked up
// there would lie on the floor again, one dropped there would be gone). A
// store that refuses the generation (a newer one is recorded) refuses the
// hosting. Before Start no zone has run, so nothing of id is queued.
func (w *World) adopt(ctx context.Context, id string, gen uint64) error {
	if !w.saving.Load() {
		w.saver.fence(id, gen, store.FenceAdopt, nil)
		return nil
	}
	res := make(chan error, 1)
	w.saver.fence(id, gen, store.FenceAdopt, func(err error) { res <- err })
	err, werr := await(ctx, w.saver, (<-chan error)(res))
	switch {
	case errors.Is(werr, ErrStopping):
		return ErrStopping // the saver stopped before it came to the fence
	case werr != nil:
		return fmt.Errorf("world: zone %s: waiting for the store to adopt its lease: %w", id, werr)
	}
	if err != nil {
		return fmt.Errorf("world: zone %s: the store did not adopt lease generation %d: %w", id, gen, err)
	}
	return nil
}

// dropLease gives back the lease of a zone that never ran.
func (w *World) dropLease(h *host) {
	if h.lease.Gen != 0 {
		w.saver.fence(h.lease.ID, h.lease.Gen, store.FenceRelease, nil)
	}
	_ = w.dir.Unhost(context.Background(), h.lease)
}

// addLocked puts h in the table and republishes the zone list.
func (w *World) addLocked(h *host) {
	w.hosts[h.z.ID()] = h
	list := append(append([]*zone.Zone(nil), *w.list.Load()...), h.z)
	w.list.Store(&list)
}

// removeLocked takes h out of the table and the zone list.
func (w *World) removeLocked(h *host) {
	delete(w.hosts, h.z.ID())
	old := *w.list.Load()
	list := make([]*zone.Zone, 0, len(old))
	for _, z := range old {
		if z != h.z {
			list = append(list, z)
		}
	}
	w.list.Store(&list)
}

// startLocked runs h's zone on a tracked goroutine labelled with its id
// and template.
func (w *World) startLocked(h *host) {
	ctx, cancel := context.WithCancel(w.ctx)
	w.zonesRunning.Add(1)
	done, ok := w.gr.Go(ctx, func(ctx context.Context) {
		defer w.zonesRunning.Done()
		h.z.Run(ctx)
	}, "world", "zone", "zone", h.z.ID(), "template", h.z.Template())
	if !ok {
		w.zonesRunning.Done()
		cancel()
		return
	}
	h.cancel, h.done = cancel, done
}

// Unhost stops a zone and takes it out of the world, synchronously: when it
// returns nil the zone's goroutine has returned, its last save is queued
// ahead of the release of its lease, and no route leads to it. Under the
// routing lock it first checks that the zone is quiescent (nobody in it,
// nobody on the way in, no login waiting to take a character in it over)
// and refuses with ErrBusy otherwise: an ordinary answer, not a failure.
// The zone holding the start room is never unhosted (ErrPinned). If the
// goroutine does not stop before ctx is done, Unhost releases the lease
// anyway, so nothing the zone writes later commits, and returns ErrWedged.
func (w *World) Unhost(ctx context.Context, id string) error {
	w.routeMu.Lock()
	h := w.hosts[id]
	switch {
	case w.stopping.Load():
		w.routeMu.Unlock()
		return ErrStopping
	case h == nil:
		w.routeMu.Unlock()
		return fmt.Errorf("%w: %s", ErrNotHosted, id)
	case id == w.startZone:
		w.routeMu.Unlock()
		return fmt.Errorf("%w: %s", ErrPinned, id)
	case !h.quiescent():
		n := h.refs.Load()
		w.routeMu.Unlock()
		return fmt.Errorf("%w: %s has %d characters in it or on their way", ErrBusy, id, n)
	}
	w.removeLocked(h)
	cancel, done := h.cancel, h.done
	w.routeMu.Unlock()

	h.mu.Lock()
	h.unhosted = true
	lease := h.lease
	h.mu.Unlock()
	var err error
	if cancel != nil {
		cancel()
		select {
		case <-done:
		case <-ctx.Done():
			w.log.Error("world: an unhosted zone did not stop; its lease is released so nothing it writes commits", logev.ID(4402), logev.Zone(id), "err", ctx.Err())
			err = fmt.Errorf("%w: %s: %w", ErrWedged, id, ctx.Err())
		}
	}
	if lease.Gen != 0 {
		w.saver.fence(id, lease.Gen, store.FenceRelease, nil)
	}
	w.inst.unhosted(id) // a copy's record lives until its copy is gone
	if derr := w.dir.Unhost(context.Background(), lease); derr != nil && !errors.Is(derr, ErrLeaseLost) {
		err = errors.Join(err, derr)
	}
	return err
}

// ZonesOf lists the hosted zones running a template's content: the
// template zone itself and its copies.
func (w *World) ZonesOf(template string) []*zone.Zone {
	var out []*zone.Zone
	for _, z := range *w.list.Load() {
		if z.Template() == template {
			out = append(out, z)
		}
	}
	return out
}

// LeasesLost counts the times a zone's lease lapsed because its goroutine
// stopped answering.
func (w *World) LeasesLost() uint64 { return w.leasesLost.Load() }

// keepLeases renews the lease of every leased zone whose goroutine answers,
// every third of the lease TTL, until ctx is done: a zone that stops
// answering (wedged in a handler) lets its lease lapse after two missed
// renewals, and is reported.
func (w *World) keepLeases(ctx context.Context) { every(ctx, w.leaseTTL/3, w.renewLeases) }

// renewLeases is one pass of the lease keeper.
func (w *World) renewLeases(ctx context.Context) {
	w.routeMu.RLock()
	hosts := make([]*host, 0, len(w.hosts))
	for _, h := range w.hosts {
		hosts = append(hosts, h)
	}
	w.routeMu.RUnlock()
	for _, h := range hosts {
		w.renewLease(ctx, h)
	}
}

// renewLease renews one zone's lease if its goroutine answered the last
// heartbeat, reports a lease that lapsed, takes a new lease (a higher
// generation) for a zone that answers again, and sends the next heartbeat.
func (w *World) renewLease(ctx context.Context, h *host) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unhosted || h.lease.Unleased {
		return
	}
	alive := h.acked.Swap(false)
	var gen uint64 // a generation the zone takes with this heartbeat
	switch {
	case h.lost && alive:
		l, err := w.dir.Host(ctx, h.lease.Hosting)
		if err != nil {
			w.log.Error("world: a zone answers again but its lease cannot be taken back", logev.ID(4403), logev.Zone(h.lease.ID), "err", err)
			break
		}
		w.saver.fence(l.ID, l.Gen, store.FenceAdopt, nil)
		h.lease, h.lost, gen = l, false, l.Gen
		w.log.Warn("world: a zone whose lease lapsed answers again; it saves under a new lease", logev.ID(4404), logev.Zone(l.ID), "gen", l.Gen)
	case h.lost:
	case alive:
		l, err := w.dir.Renew(ctx, h.lease)
		if err == nil {
			h.lease = l
			break
		}
		w.loseLeaseLocked(h, err)
	default:
		if l, err := w.dir.Lookup(ctx, h.lease.ID); err != nil || l.Gen != h.lease.Gen {
			w.loseLeaseLocked(h, fmt.Errorf("its goroutine has not answered since %s", h.lease.Expires.Add(-w.leaseTTL).Format(time.RFC3339)))
		}
	}
	h.z.Heartbeat(gen, func() { h.acked.Store(true) })
}

// loseLeaseLocked reports a lapsed lease and fences the store at its
// generation, so the zone's saves are refused until it takes a new one.
func (w *World) loseLeaseLocked(h *host, why error) {
	h.lost = true
	w.leasesLost.Add(1)
	w.log.Error("world: a zone's lease lapsed; its saves are refused until its goroutine answers again", logev.ID(4405), logev.Zone(h.lease.ID), "gen", h.lease.Gen, "why", why)
	w.saver.fence(h.lease.ID, h.lease.Gen, store.FenceRelease, nil)
}
