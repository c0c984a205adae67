package world

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/zone"
)

// Instances: private copies of an instanceable template.
//
// Entry is three hops, so that building a copy never runs on a zone's
// goroutine. Hop 1 runs on the entrance zone: it checks the player and the
// template, then RequestInstance checks the caps, reserves a record and
// queues the mint; the zone keeps ticking. Hop 2 runs on a mint worker
// here: one content snapshot, validated and built, the copy hosted
// (unleased) through the directory. Hop 3 goes back to the entrance zone
// (the very actor that asked, by pointer), which checks everything again
// and moves the player with an ordinary transfer, or abandons the copy.
//
// Every copy has a record from the moment its mint is queued until the
// reaper has unhosted it. The record is what the caps count, what a
// party's later member finds, what claims publish, and what the reaper
// visits: a copy without one would never be reaped, so a record is never
// deleted while its copy may be hosted. Abandoning a copy (hop 3 decided
// not to move the player) is a flag on the record: it frees the account's
// slot and the process's at once, and lets the reaper take it at its first
// quiet sweep, without the grace after minting. Abandoned copies waiting
// for the reaper are bounded apart: all records together are held to twice
// per_process, so walking away from mints can neither take the slots
// others need nor pile up copies without end.

// The compiled defaults of [instance]; 0 in config.toml means these.
const (
	defaultPerAccount = 3
	defaultMintBurst  = 6
	defaultMintWindow = 60
	defaultPerProcess = 256
	defaultPerAddr    = 12
	// maxPerProcess bounds per_process: every copy's occupants are ejected
	// to their anchors under one shared deadline at shutdown (ejectWait),
	// and that deadline is sized for this many copies.
	maxPerProcess = 1024

	mintQueue   = 64 // mints waiting for a worker
	mintWorkers = 2
	// sweepBound is how many copies one sweep tears down at once. It
	// smooths, it does not protect: each teardown takes the routing lock
	// only briefly, then waits on its zone's goroutine alone.
	sweepBound = 8
	// ejectWait bounds the shutdown eject of every copy's occupants.
	ejectWait = 5 * time.Second
)

// InstanceConfig is the [instance] section of config.toml: how many copies
// may be open, per account and in the process, and how fast an account
// may open them. 0 means the compiled default. The rest are cadences,
// fixed outside tests.
type InstanceConfig struct {
	// PerAccount caps the copies one account holds open (default 3). A
	// copy counts from the moment its mint is asked for until it is
	// reaped, or abandoned at entry.
	PerAccount int `toml:"per_account"`
	// MintBurst mints are allowed per account in each MintWindowSecs
	// (defaults 6 in 60), counted at the asking, whatever came of it.
	MintBurst      int `toml:"mint_burst"`
	MintWindowSecs int `toml:"mint_window_secs"`
	// MintBurstPerAddr mints are allowed from one address in each
	// MintWindowSecs, whatever the accounts (default 12). An address is as
	// the gate counts it: an IPv4 address, or the IPv6 block of
	// gate.ipv6_prefix bits (a /64); loopback is exempt unless
	// gate.limit_loopback, as behind a proxy every player is 127.0.0.1.
	MintBurstPerAddr int `toml:"mint_burst_per_addr"`
	// MinLevel is the level a character must have reached to open a copy
	// (0 or 1: any), and MinAgeMins how old it must be, in minutes since
	// it was created (0: any age): fresh throwaway characters cannot open
	// copies by the hundred.
	MinLevel   int `toml:"min_level"`
	MinAgeMins int `toml:"min_age_mins"`
	// PerProcess caps the copies in the process, reaped ones excepted
	// (default 256, at most 1024).
	PerProcess int `toml:"per_process"`

	// SweepEvery is the reaper's cadence (15 s); a copy found quiescent
	// by IdleSweeps sweeps in a row (4) is unhosted, though never within
	// Grace (2 min) of its mint unless it was abandoned. UnhostWait (10 s)
	// bounds the wait for one copy's goroutine to stop.
	SweepEvery time.Duration `toml:"-"`
	IdleSweeps int           `toml:"-"`
	Grace      time.Duration `toml:"-"`
	UnhostWait time.Duration `toml:"-"`
	// ClaimEvery is the cadence of template-in-use claims (15 s); each
	// lasts three of it.
	ClaimEvery time.Duration `toml:"-"`
	// MintHook, if set, runs on the mint worker before each build, with
	// the template. Tests hold the worker with it.
	MintHook func(template string) `toml:"-"`
	// BuildHook, if set, runs on the mint worker between the validation
	// of template and the build. Tests land a reload there.
	BuildHook func(template string) `toml:"-"`
}

// resolved is c with every 0 replaced by its default.
func (c InstanceConfig) resolved() InstanceConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.PerAccount, defaultPerAccount)
	def(&c.MintBurst, defaultMintBurst)
	def(&c.MintWindowSecs, defaultMintWindow)
	def(&c.PerProcess, defaultPerProcess)
	def(&c.MintBurstPerAddr, defaultPerAddr)
	def(&c.IdleSweeps, 4)
	defd(&c.SweepEvery, 15*time.Second)
	defd(&c.Grace, 2*time.Minute)
	defd(&c.UnhostWait, 10*time.Second)
	defd(&c.ClaimEvery, 15*time.Second)
	return c
}

// Validate reports the first bad value, naming its key. The caps are not
// independent: an account's cap cannot pass the process's, and a mint
// burst is a rate over its window.
func (c InstanceConfig) Validate() error {
	switch {
	case c.PerAccount < 0 || c.PerAccount > 64:
		return fmt.Errorf("instance.per_account: %d is out of range 0 to 64", c.PerAccount)
	case c.MintBurst < 0 || c.MintBurst > 1000:
		return fmt.Errorf("instance.mint_burst: %d is out of range 0 to 1000", c.MintBurst)
	case c.MintWindowSecs < 0 || c.MintWindowSecs > 86400:
		return fmt.Errorf("instance.mint_window_secs: %d is out of range 0 to 86400", c.MintWindowSecs)
	case c.MintBurstPerAddr < 0 || c.MintBurstPerAddr > 100000:
		return fmt.Errorf("instance.mint_burst_per_addr: %d is out of range 0 to 100000", c.MintBurstPerAddr)
	case c.MinLevel < 0 || c.MinLevel > 10000:
		return fmt.Errorf("instance.min_level: %d is out of range 0 to 10000", c.MinLevel)
	case c.MinAgeMins < 0 || c.MinAgeMins > 525600:
		return fmt.Errorf("instance.min_age_mins: %d is out of range 0 to 525600 (a year)", c.MinAgeMins)
	case c.PerProcess < 0 || c.PerProcess > maxPerProcess:
		return fmt.Errorf("instance.per_process: %d is out of range 0 to %d (every copy is emptied within %s at shutdown)", c.PerProcess, maxPerProcess, ejectWait)
	}
	r := c.resolved()
	if r.MintBurst > r.MintWindowSecs {
		return fmt.Errorf("instance.mint_burst: %d mints in %d s (instance.mint_window_secs) is more than one a second for one account", r.MintBurst, r.MintWindowSecs)
	}
	if r.PerAccount > r.PerProcess {
		return fmt.Errorf("instance.per_account: %d is more than instance.per_process (%d)", r.PerAccount, r.PerProcess)
	}
	return nil
}

// instRec is one copy, from its mint's reservation until it is reaped.
type instRec struct {
	template string // immutable
	account  string // immutable: whose caps it counts against; "" for a copy hosted by hand
	party    string // immutable: the party that finds it again (its leader's name); "" for none

	id        string     // guarded by instances.mu: "" until minted
	z         *zone.Zone // guarded by instances.mu: nil until hosted
	minted    time.Time  // guarded by instances.mu
	idle      int        // guarded by instances.mu: sweeps in a row that found it quiescent
	abandoned bool       // guarded by instances.mu: no one was moved in; its slots are free
	reaping   bool       // guarded by instances.mu: a sweep is tearing it down
}

// mintJob is one queued mint.
type mintJob struct {
	rec *instRec
	req zone.MintRequest
	at  time.Time // when it was asked for
}

// mintWindow is one account's mint count in the current window.
type mintWindow struct {
	start time.Time
	n     int
}

// instances is the world's instance state. Its lock is a leaf: nothing is
// called under it but non-blocking channel sends.
type instances struct {
	cfg   InstanceConfig // immutable after New: resolved
	queue chan mintJob   // the mint queue, bounded
	kick  chan struct{}  // cap 1: publish the claims now

	mu        sync.Mutex
	recs      map[*instRec]struct{}  // guarded by mu: every record
	byID      map[string]*instRec    // guarded by mu: minted records by copy id
	rate      map[string]*mintWindow // guarded by mu: by account
	rateAddr  map[string]*mintWindow // guarded by mu: by address (the gate's key)
	lastSweep time.Time              // guarded by mu: when the reaper last swept
}

func (i *instances) init(cfg InstanceConfig) {
	i.cfg = cfg.resolved()
	i.queue = make(chan mintJob, mintQueue)
	i.kick = make(chan struct{}, 1)
	i.recs = map[*instRec]struct{}{}
	i.byID = map[string]*instRec{}
	i.rate = map[string]*mintWindow{}
	i.rateAddr = map[string]*mintWindow{}
}

// kickClaims asks the claim keeper to publish now; a kick already waiting
// covers this one. It never blocks.
func (i *instances) kickClaims() {
	select {
	case i.kick <- struct{}{}:
	default:
	}
}

// liveForAccountLocked counts the copies charged to account that are not
// abandoned: minting, hosted, or waiting to be reaped.
func (i *instances) liveForAccountLocked(account string) int {
	n := 0
	for r := range i.recs {
		if r.account == account && !r.abandoned {
			n++
		}
	}
	return n
}

// holdsSlotLocked reports whether r counts against the process's cap: a
// copy minting or hosted counts, but one abandoned (nobody was moved in)
// counts only while somebody is inside all the same (an admin's goto).
func (r *instRec) holdsSlotLocked() bool {
	return !r.abandoned || r.z != nil && r.z.Population() > 0
}

// slotsTakenLocked counts the copies that hold a process slot.
func (i *instances) slotsTakenLocked() int {
	n := 0
	for r := range i.recs {
		if r.holdsSlotLocked() {
			n++
		}
	}
	return n
}

// nextCloseLocked estimates how long until the first copy that holds a
// slot, or waits for the reaper, is closed: an empty one at the sweep its
// idle count runs out (and not within its grace after minting), one with
// players in it no sooner than a full count of sweeps from the next.
func (i *instances) nextCloseLocked(now time.Time) time.Duration {
	every := i.cfg.SweepEvery
	next := i.lastSweep.Add(every).Sub(now)
	if i.lastSweep.IsZero() || next <= 0 || next > every {
		next = every
	}
	best := time.Duration(-1)
	for r := range i.recs {
		need := i.cfg.IdleSweeps
		if r.abandoned {
			need = 1
		}
		var eta time.Duration
		switch {
		case r.z == nil:
			continue // minting: it is about to hold its slot, not free one
		case r.reaping:
			eta = time.Second
		case r.z.Population() > 0:
			eta = next + time.Duration(need)*every
		default:
			eta = next + time.Duration(max(need-r.idle-1, 0))*every
			if !r.abandoned {
				if g := r.minted.Add(i.cfg.Grace).Sub(now); g > eta {
					eta = g + every
				}
			}
		}
		if best < 0 || eta < best {
			best = eta
		}
	}
	if best < 0 {
		best = next
	}
	return best
}

// waitText says d to a player: seconds under two minutes, else minutes,
// else hours, rounded up.
func waitText(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		s := max(int((d+time.Second-1)/time.Second), 1)
		return fmt.Sprintf("%d second%s", s, plural(s, "", "s"))
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
	default:
		return fmt.Sprintf("%d hours", int((d+time.Hour-1)/time.Hour))
	}
}

// windowLocked is key's current window in rates, begun afresh once the
// last is over.
func (i *instances) windowLocked(rates map[string]*mintWindow, key string, now time.Time) *mintWindow {
	win := rates[key]
	if win == nil || now.Sub(win.start) >= time.Duration(i.cfg.MintWindowSecs)*time.Second {
		win = &mintWindow{start: now}
		rates[key] = win
	}
	return win
}

// windowWait is how long until win is over.
func (i *instances) windowWait(win *mintWindow, now time.Time) time.Duration {
	return max(time.Second, win.start.Add(time.Duration(i.cfg.MintWindowSecs)*time.Second).Sub(now))
}

// unhosted forgets the record of a copy that was unhosted, by whatever
// path: once its zone is out of the world, nothing needs it.
func (i *instances) unhosted(id string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if r := i.byID[id]; r != nil {
		i.dropLocked(r)
	}
}

// dropLocked forgets a record.
func (i *instances) dropLocked(r *instRec) {
	delete(i.recs, r)
	if r.id != "" && i.byID[r.id] == r {
		delete(i.byID, r.id)
	}
}

// Refusals a player is told at the door (hop 1) or after the mint (hop 3).
const (
	refuseDraining = "The way will not open while the world is shutting down."
	// refuseProcess opens the line of a full process, which goes on to
	// say when to try again.
	refuseProcess  = "Too many private copies are open in the world just now;"
	refuseAddrFmt  = "Too many copies have been opened from your address of late; the way will open for it again in %s."
	refuseLevelFmt = "The way opens only for those of level %d or more; come back when you have reached it."
	refuseAgeFmt   = "The way opens only for characters at least %s old; yours may try again in %s."
	refuseQueue    = "The way is crowded with others opening theirs; try again in a moment."
	refuseNoOpen   = "The way will not open."
)

// RequestInstance is the end of hop 1: it charges the mint to the account
// (its cap of live copies and its rate), reserves the copy's record and
// queues the mint, or returns the line that refuses it. It never blocks.
// The answer comes to req.Origin (InstanceReady) once the copy is built.
func (w *World) RequestInstance(req zone.MintRequest) string {
	if w.stopping.Load() {
		w.instMetrics.refuse("draining")
		return refuseDraining
	}
	i := &w.inst
	now := time.Now()
	if req.Level < i.cfg.MinLevel {
		w.instMetrics.refuse("level")
		return fmt.Sprintf(refuseLevelFmt, i.cfg.MinLevel)
	}
	if minAge := time.Duration(i.cfg.MinAgeMins) * time.Minute; minAge > 0 && req.Created > 0 {
		if age := now.Sub(time.Unix(req.Created, 0)); age < minAge {
			w.instMetrics.refuse("age")
			return fmt.Sprintf(refuseAgeFmt, waitText(minAge), waitText(minAge-age))
		}
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	// The process's cap counts the copies that hold a slot; records of
	// abandoned copies waiting for the reaper are held to as many again.
	if i.slotsTakenLocked() >= i.cfg.PerProcess || len(i.recs) >= 2*i.cfg.PerProcess {
		w.instMetrics.refuse("process")
		return fmt.Sprintf("%s one may close in about %s; try again then.", refuseProcess, waitText(i.nextCloseLocked(now)))
	}
	if n := i.liveForAccountLocked(req.Account); n >= i.cfg.PerAccount {
		w.instMetrics.refuse("account")
		return fmt.Sprintf("You already hold %d private cop%s open, as many as one may. A copy closes a minute or two after everyone has left it.", n, plural(n, "y", "ies"))
	}
	win := i.windowLocked(i.rate, req.Account, now)
	if win.n >= i.cfg.MintBurst {
		w.instMetrics.refuse("rate")
		return fmt.Sprintf("You have opened the way too often of late; it will not open for you again for %s.", i.windowWait(win, now).Round(time.Second))
	}
	var addrWin *mintWindow
	if req.Addr != "" {
		addrWin = i.windowLocked(i.rateAddr, req.Addr, now)
		if addrWin.n >= i.cfg.MintBurstPerAddr {
			w.instMetrics.refuse("address")
			return fmt.Sprintf(refuseAddrFmt, waitText(i.windowWait(addrWin, now)))
		}
	}
	rec := &instRec{template: req.Template, account: req.Account, party: req.Party}
	select {
	case i.queue <- mintJob{rec: rec, req: req, at: now}:
	default:
		w.instMetrics.refuse("queue")
		return refuseQueue
	}
	win.n++
	if addrWin != nil {
		addrWin.n++
	}
	i.recs[rec] = struct{}{}
	i.pruneRateLocked(now)
	i.kickClaims() // a mint in flight is evidence the template is in use
	return ""
}

// pruneRateLocked forgets windows long over, so the maps hold only
// accounts and addresses that minted of late.
func (i *instances) pruneRateLocked(now time.Time) {
	for _, rates := range []map[string]*mintWindow{i.rate, i.rateAddr} {
		if len(rates) < 1024 {
			continue
		}
		for a, win := range rates {
			if now.Sub(win.start) >= time.Duration(i.cfg.MintWindowSecs)*time.Second {
				delete(rates, a)
			}
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PartyInstance returns the live copy of template that party's members
// go into, or nil; opening reports a mint for the party in flight.
func (w *World) PartyInstance(template, party string) (z *zone.Zone, opening bool) {
	if party == "" {
		return nil, false
	}
	i := &w.inst
	i.mu.Lock()
	defer i.mu.Unlock()
	var best *instRec
	for r := range i.recs {
		if r.party != party || r.template != template || r.abandoned || r.reaping {
			continue
		}
		if r.z == nil {
			opening = true
			continue
		}
		select {
		case <-r.z.Dead():
			continue
		default:
		}
		if best == nil || r.minted.After(best.minted) {
			best = r
		}
	}
	if best != nil {
		return best.z, false
	}
	return nil, opening
}

// AbandonInstance marks a copy nobody was moved into: its account's slot
// is free at once, and the reaper takes it without the grace after
// minting. The record stays until the copy is reaped.
func (w *World) AbandonInstance(id string) {
	i := &w.inst
	i.mu.Lock()
	defer i.mu.Unlock()
	if r := i.byID[id]; r != nil && !r.abandoned {
		r.abandoned = true
		w.instMetrics.abandoned.WithLabelValues(r.template).Inc()
	}
}

// InstanceSlots is how many more copies account may open now.
func (w *World) InstanceSlots(account string) int {
	i := &w.inst
	i.mu.Lock()
	defer i.mu.Unlock()
	return max(0, i.cfg.PerAccount-i.liveForAccountLocked(account))
}

// Draining reports whether the world is shutting down: no copy opens.
func (w *World) Draining() bool { return w.stopping.Load() }

// Instances lists the live copies for the admin's view, oldest first.
func (w *World) Instances() []zone.InstanceInfo {
	i := &w.inst
	now := time.Now()
	i.mu.Lock()
	out := make([]zone.InstanceInfo, 0, len(i.recs))
	for r := range i.recs {
		inf := zone.InstanceInfo{ID: r.id, Template: r.template, Account: r.account, Party: r.party, Idle: r.idle, Abandoned: r.abandoned, Minting: r.z == nil, Reaping: r.reaping}
		if r.z != nil {
			inf.Age = now.Sub(r.minted)
			inf.Zone = r.z
		}
		out = append(out, inf)
	}
	i.mu.Unlock()
	sort.Slice(out, func(a, b int) bool { return out[a].Age > out[b].Age })
	for k := range out {
		if z := out[k].Zone; z != nil {
			for _, e := range z.Roster() {
				out[k].Occupants = append(out[k].Occupants, e.Name)
			}
		}
	}
	return out
}

// runMints is one mint worker: hop 2.
func (w *World) runMints(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.refuseQueued()
			return
		case job := <-w.inst.queue:
			w.mintOne(ctx, job)
		}
	}
}

// refuseQueued answers the mints still queued as the world stops.
func (w *World) refuseQueued() {
	for {
		select {
		case job := <-w.inst.queue:
			w.inst.mu.Lock()
			w.inst.dropLocked(job.rec)
			w.inst.mu.Unlock()
			job.req.Origin.InstanceReady(job.req, nil, refuseDraining)
		default:
			return
		}
	}
}

// mintOne builds and hosts one copy, then answers the zone that asked
// (hop 3 runs there). A copy whose answer cannot be delivered (that zone
// has stopped) is abandoned.
func (w *World) mintOne(ctx context.Context, job mintJob) {
	if hook := w.inst.cfg.MintHook; hook != nil {
		hook(job.rec.template)
	}
	z, err := w.mintCopy(ctx, job.rec)
	refusal := ""
	switch {
	case err == nil:
		w.instMetrics.mints.WithLabelValues(job.rec.template).Inc()
		w.instMetrics.mintTime.WithLabelValues(job.rec.template).Observe(time.Since(job.at).Seconds())
	case errors.Is(err, ErrStopping):
		refusal = refuseDraining
	case errors.Is(err, ErrNoTemplate):
		refusal = refuseNoOpen
		w.log.Warn("world: a copy was asked for that cannot be made", logev.ID(4801), logev.Template(job.rec.template), logev.Player(job.req.Player), "err", err)
	default:
		refusal = refuseNoOpen
		w.log.Error("world: a copy could not be minted", logev.ID(4802), logev.Template(job.rec.template), logev.Player(job.req.Player), "err", err)
	}
	if refusal != "" {
		w.instMetrics.refuse("mint")
	}
	if !job.req.Origin.InstanceReady(job.req, z, refusal) && z != nil {
		w.AbandonInstance(z.ID()) // the entrance zone stopped: nobody will go in
	}
}

// mintCopy validates template against one snapshot of the content, builds
// a copy from that same snapshot and hosts it under rec. A template the
// content does not have, or not as instanceable, or without a start room
// that the build made, is refused with ErrNoTemplate; the record is then
// dropped.
func (w *World) mintCopy(ctx context.Context, rec *instRec) (*zone.Zone, error) {
	drop := func() {
		w.inst.mu.Lock()
		w.inst.dropLocked(rec)
		w.inst.mu.Unlock()
	}
	if w.stopping.Load() {
		drop()
		return nil, ErrStopping
	}
	snap := w.Snapshot() // one version, validated and built
	zp, err := instanceTemplate(snap.Set, rec.template)
	if err != nil {
		drop()
		return nil, err
	}
	if hook := w.inst.cfg.BuildHook; hook != nil {
		hook(rec.template)
	}
	h, err := w.newHost(ctx, snap, zp, true)
	if err != nil {
		drop()
		return nil, err
	}
	if !h.z.HasRoom(zp.StartRoom) {
		w.dropLease(h)
		drop()
		return nil, fmt.Errorf("%w: zone %q: its start room %s was not built", ErrNoTemplate, zp.ID, zp.StartRoom)
	}
	w.inst.mu.Lock()
	rec.id, rec.minted = h.z.ID(), time.Now()
	w.inst.byID[rec.id] = rec
	w.inst.mu.Unlock()
	if err := w.hostBuilt(h); err != nil {
		drop()
		return nil, err
	}
	w.inst.mu.Lock()
	rec.z = h.z
	w.inst.mu.Unlock()
	w.inst.kickClaims()
	return h.z, nil
}

// instanceTemplate returns the zone of set a copy of template is built
// from, or why none can be.
func instanceTemplate(set *content.Set, template string) (*content.Zone, error) {
	zp := set.Zones[template]
	switch {
	case zp == nil:
		return nil, fmt.Errorf("%w: no zone %q in the loaded content", ErrNoTemplate, template)
	case !zp.Instanceable:
		return nil, fmt.Errorf("%w: zone %q is not instanceable", ErrNoTemplate, template)
	case zp.StartRoom == "" || set.Rooms[zp.StartRoom] == nil || set.Rooms[zp.StartRoom].Zone != template:
		return nil, fmt.Errorf("%w: zone %q has no start room", ErrNoTemplate, template)
	}
	return zp, nil
}

// hostCopy hosts a copy by hand (Host with Instance set): it counts
// against the process's cap and is reaped like any other, charged to no
// account.
func (w *World) hostCopy(ctx context.Context, template string) (*zone.Zone, error) {
	rec := &instRec{template: template}
	w.inst.mu.Lock()
	if w.inst.slotsTakenLocked() >= w.inst.cfg.PerProcess || len(w.inst.recs) >= 2*w.inst.cfg.PerProcess {
		w.inst.mu.Unlock()
		return nil, fmt.Errorf("%w: %d copies are open", ErrInstanceCap, w.inst.cfg.PerProcess)
	}
	w.inst.recs[rec] = struct{}{}
	w.inst.mu.Unlock()
	return w.mintCopy(ctx, rec)
}

// runReaper sweeps the copies every SweepEvery until ctx is done.
func (w *World) runReaper(ctx context.Context) {
	every(ctx, w.inst.cfg.SweepEvery, func(ctx context.Context) { w.SweepInstances(ctx) })
}

// SweepInstances is one sweep of the reaper, which runs one every 15
// seconds: every copy found quiescent counts an idle sweep (any other
// resets its count), and each that has been idle for enough sweeps in a
// row, and is past its grace after minting or was abandoned, is unhosted.
// The unhosts run at most sweepBound at once, each on a context of its own
// that the world's stop does not cancel (a teardown is finished, not cut
// off halfway), and the sweep waits for them all. The idle count is only a
// way of choosing: Unhost checks quiescence again under the routing lock,
// and a copy it finds busy is simply kept. It returns how many copies
// were reaped.
func (w *World) SweepInstances(ctx context.Context) int {
	i := &w.inst
	now := time.Now()
	i.mu.Lock()
	i.lastSweep = now
	var recs []*instRec
	for r := range i.recs {
		if r.z != nil && !r.reaping {
			recs = append(recs, r)
		}
	}
	i.mu.Unlock()
	// Quiescence is read without the instance lock held: the routing lock
	// comes first in the lock order.
	quiet := make([]bool, len(recs))
	w.routeMu.RLock()
	for k, r := range recs {
		h := w.hosts[r.z.ID()]
		quiet[k] = h == nil || h.z != r.z || h.quiescent()
	}
	w.routeMu.RUnlock()
	var reap []*instRec
	i.mu.Lock()
	for k, r := range recs {
		if !quiet[k] {
			r.idle = 0
			continue
		}
		r.idle++
		// An abandoned copy never had anyone in it: one quiet sweep is
		// enough, without the grace after minting.
		if r.abandoned && r.idle >= 1 || r.idle >= i.cfg.IdleSweeps && now.Sub(r.minted) >= i.cfg.Grace {
			r.reaping = true
			reap = append(reap, r)
		}
	}
	i.mu.Unlock()
	if len(reap) == 0 {
		return 0
	}
	detached := context.WithoutCancel(ctx)
	sem := make(chan struct{}, sweepBound)
	var wg sync.WaitGroup
	var mu sync.Mutex
	reaped := 0
	for _, r := range reap {
		sem <- struct{}{}
		wg.Add(1)
		_, ok := w.gr.Go(detached, func(ctx context.Context) {
			defer func() { <-sem; wg.Done() }()
			if w.reap(ctx, r) {
				mu.Lock()
				reaped++
				mu.Unlock()
			}
		}, "world", "reap", "template", r.template)
		if !ok { // the world stopped starting goroutines: it is shutting down
			<-sem
			wg.Done()
			i.mu.Lock()
			r.reaping = false
			i.mu.Unlock()
		}
	}
	wg.Wait()
	return reaped
}

// reap unhosts one copy and reports whether it is gone.
func (w *World) reap(ctx context.Context, r *instRec) bool {
	ctx, cancel := context.WithTimeout(ctx, w.inst.cfg.UnhostWait)
	defer cancel()
	id := r.z.ID()
	err := w.Unhost(ctx, id)
	i := &w.inst
	i.mu.Lock()
	defer i.mu.Unlock()
	r.reaping = false
	switch {
	case errors.Is(err, ErrBusy):
		r.idle = 0 // someone came in since the count: an ordinary outcome
		return false
	case errors.Is(err, ErrStopping):
		return false // the shutdown stops it with the rest
	case err != nil && !errors.Is(err, ErrNotHosted) && !errors.Is(err, ErrWedged):
		w.log.Error("world: a copy could not be reaped; the next sweep tries again", logev.ID(4803), logev.Zone(id), logev.Template(r.template), "err", err)
		return false
	}
	if errors.Is(err, ErrWedged) {
		// Unhost took it out of the world and released it; its goroutine
		// is left to the shutdown's wait.
		w.log.Error("world: a reaped copy's goroutine did not stop in time", logev.ID(4804), logev.Zone(id), logev.Template(r.template), "err", err)
	}
	i.dropLocked(r)
	w.instMetrics.reaped.WithLabelValues(r.template).Inc()
	w.log.Info("world: a copy was reaped", logev.ID(4805), logev.Zone(id), logev.Template(r.template), "age", time.Since(r.minted).Round(time.Second))
	return true
}

// claimTemplates lists the templates with copies: minting, hosted, or
// waiting to be reaped.
func (i *instances) claimTemplates() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []string
	for r := range i.recs {
		if !slices.Contains(out, r.template) {
			out = append(out, r.template)
		}
	}
	sort.Strings(out)
	return out
}

// keepClaims claims every template this process runs copies of, at each
// tick and at each kick (a mint), for three ticks' worth, until ctx is
// done. It runs on its own goroutine: a sweep that waits on a wedged copy
// never delays a renewal, so a template with live copies is never seen as
// unused while they live.
func (w *World) keepClaims(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-w.inst.kick:
		}
		w.publishClaims(ctx)
	}
}

// publishClaims claims each template with copies once.
func (w *World) publishClaims(ctx context.Context) {
	every := w.inst.cfg.ClaimEvery
	for _, t := range w.inst.claimTemplates() {
		cctx, cancel := context.WithTimeout(ctx, every)
		err := w.dir.Claim(cctx, t, w.owner, 3*every)
		cancel()
		if err != nil && ctx.Err() == nil {
			w.log.Warn("world: a template-in-use claim could not be renewed", logev.ID(4806), logev.Template(t), "err", err)
		}
	}
}

// TemplateInUse reports whether any process claims to run copies of
// template: whatever prunes or replaces content asks this before taking a
// template away.
func (w *World) TemplateInUse(ctx context.Context, template string) (bool, error) {
	n, err := w.dir.Claims(ctx, template)
	return n > 0, err
}

// ejectCopies sends every copy's occupants to their anchors, before the
// zones stop, and waits (at most ejectWait, or until ctx is done) for each
// copy to have sent them on. An occupant a copy cannot send on is handed
// back by the copy as it stops: its record names the anchor, so its next
// login is at the door all the same.
func (w *World) ejectCopies(ctx context.Context) {
	var copies []*zone.Zone
	for _, z := range w.Zones() {
		if zone.IsInstanceID(z.ID()) && z.Population() > 0 {
			copies = append(copies, z)
		}
	}
	if len(copies) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, ejectWait)
	defer cancel()
	done := make(chan struct{}, len(copies))
	asked := 0
	for _, z := range copies {
		if z.Eject(func() { done <- struct{}{} }) {
			asked++
		}
	}
	for ; asked > 0; asked-- {
		select {
		case <-done:
		case <-ctx.Done():
			w.log.Warn("world: shutdown: not every copy sent its occupants to their anchors in time; they are saved at the door", logev.ID(4807), "waiting", asked)
			return
		}
	}
}
