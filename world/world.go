package world

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/internal/run"
	"zonemud/script"
	"zonemud/store"
	"zonemud/zone"
)

// Config is the [world] section of config.toml.
type Config struct {
	// MaxPlayers caps characters in the world at once (0: no cap).
	MaxPlayers int `toml:"max_players"`
	// Admins are the world's first admins, made with zonemud admin
	// create: a listed admin's role cannot be revoked in game, and a
	// listed name that is not an admin in the store is logged at start.
	// The list grants nothing by itself (see roles.go).
	Admins []string `toml:"admins"`
	// BackupDir is where backups are written, the in-game command's and
	// the scheduled ones; the wiring sets it inside data_dir.
	BackupDir string `toml:"-"`
	// BackupEvery is how often a backup is written by itself (0: never),
	// and BackupKeep how many of those are kept; the wiring sets them
	// from [store].
	BackupEvery time.Duration `toml:"-"`
	BackupKeep  int           `toml:"-"`
	// Copyover says a copyover holder keeps the connections through a
	// reboot (the wiring sets it): the countdown tells players they stay.
	Copyover bool `toml:"-"`
	// Builds names the running binaries for the admin's stat: the game's
	// and, under copyover, the holder's (the wiring sets it).
	Builds string `toml:"-"`
	// Lua is the [lua] section, set by the wiring.
	Lua script.Config `toml:"-"`
	// Directory, if set, is the directory the world hosts zones through;
	// nil is the local one, in memory, with LeaseTTL.
	Directory Directory `toml:"-"`
	// LeaseTTL is how long a zone's lease lasts unless renewed (0: 15 s).
	// The world renews every third of it; a zone whose goroutine stops
	// answering loses its lease after two missed renewals.
	LeaseTTL time.Duration `toml:"-"`
	// WatchAreas applies edits to the area files as they are saved. Off,
	// builders apply them with the reload command.
	WatchAreas bool `toml:"watch_areas"`
	// Areas is the areas folder the content was loaded from, read again
	// at each reload; nil when the world runs content that has no folder
	// (the built-in starter world), which then cannot be reloaded. Set by
	// the wiring.
	Areas fs.FS `toml:"-"`
	// AreasDir is the path of Areas on disk, watched when WatchAreas is
	// set; "" watches nothing. Set by the wiring.
	AreasDir string `toml:"-"`
	// Files, if set, is the cache the content was loaded through at
	// start, so that the first reload decodes only what changed since.
	Files *content.Cache `toml:"-"`
	// Instance is the [instance] section, set by the wiring.
	Instance InstanceConfig `toml:"-"`
	// ReloadHook, if set, is called (on the reload worker, and must not
	// block) with every reload's report. Tests and benchmarks use it.
	ReloadHook func(zone.ReloadReport) `toml:"-"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config { return Config{MaxPlayers: 20000, WatchAreas: true} }

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	if c.MaxPlayers < 0 || c.MaxPlayers > 1000000 {
		return fmt.Errorf("world.max_players: %d is out of range 0 to 1000000", c.MaxPlayers)
	}
	for _, a := range c.Admins {
		if a == "" || len(a) > 20 || strings.IndexFunc(a, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
			return fmt.Errorf("world.admins: %q is not a character name (letters only, at most 20)", a)
		}
	}
	return nil
}

// World is the shard. It implements zone.Shard.
type World struct {
	cfg     Config        // immutable after New
	zoneCfg zone.Config   // immutable after New
	db      *store.DB     // immutable after New
	log     *slog.Logger  // immutable after New
	started time.Time     // immutable after New
	share   *script.Share // immutable after New: every zone's scripts count their work in it

	owner    string        // immutable after New: this process's name in the directory
	dir      Directory     // immutable after New
	leaseTTL time.Duration // immutable after New

	// snap is the content the world runs now: replaced whole by a
	// reload (reload.go), read anywhere.
	snap atomic.Pointer[zone.Snapshot]
	// startZone is the zone of the start room, never unhosted. Guarded
	// by routeMu: a reload may move the start room to another zone.
	startZone string

	// routeMu is the routing lock (see doc.go for the lock order). Every
	// change of the zone a character is routed to (login, walk, hand-over)
	// holds it shared; host and unhost hold it exclusively, so an unhost
	// sees a quiescence no arrival can undo.
	routeMu sync.RWMutex
	hosts   map[string]*host // guarded by routeMu: every hosted zone, by id
	running bool             // guarded by routeMu: Start has run; hosted zones run at once
	// list is every hosted zone in hosting order, replaced whole on each
	// host and unhost, so readers (who, metrics, Players) take no lock.
	list atomic.Pointer[[]*zone.Zone]

	res   *residents
	saver *saver
	rl    reloader

	epoch    atomic.Uint64 // last owner epoch handed out
	itemNext atomic.Uint64 // next durable item id
	stopping atomic.Bool

	leasesLost  atomic.Uint64
	objectLoads atomic.Uint64 // calls of loadObjects: a copy must make none
	zoneMetrics *zone.Metrics // immutable after New: the series every zone counts into

	inst        instances    // instance copies: records, mint queue, caps (instance.go)
	instMetrics *instMetrics // immutable after New
	parties     parties      // who goes where with whom (party.go)
	comm        commHub      // channel fan-out and what talk keeps in the store (comm.go)

	ops   Ops                         // set by SetOps before Start; nil in worlds without a process around them
	down  countdown                   // a shutdown counting down
	snoop snoops                      // who watches whom
	bans  atomic.Pointer[[]store.Ban] // replaced whole on each ban and unban
	// bansMu is held from a ban's or unban's write to its read back, so
	// two admins at once cannot leave the older read in bans. A leaf.
	bansMu sync.Mutex
	// banWatch are told of every change of the bans (WatchBans).
	banWatch banWatchers

	gr           run.Group          // every goroutine the world starts
	zonesRunning sync.WaitGroup     // zone goroutines, for shutdown
	ctx          context.Context    // immutable after New: parent of every zone's and worker's context
	cancel       context.CancelFunc // immutable after New
	saverStop    chan struct{}
	// saving is set once Start has run the saver: a fence queued after
	// it is answered.
	saving atomic.Bool
}

// New builds the world for a content set over an open store. It starts
// nothing; call Start.
func New(set *content.Set, db *store.DB, cfg Config, zcfg zone.Config, log *slog.Logger) (*World, error) {
	if log == nil {
		log = slog.Default()
	}
	w := &World{
		cfg: cfg, zoneCfg: zcfg, db: db, log: log, started: time.Now(),
		owner:    fmt.Sprintf("zonemud/boot-%d", db.Boot()),
		dir:      cfg.Directory,
		leaseTTL: cfg.LeaseTTL,
		hosts:    map[string]*host{},
		res:      newResidents(),
		saver:    newSaver(db, log),
	}
	if w.leaseTTL <= 0 {
		w.leaseTTL = 15 * time.Second
	}
	if w.dir == nil {
		// Generations start above the boot count, so they keep growing
		// across restarts of a directory that remembers nothing.
		w.dir = NewLocalDirectory(LocalOptions{TTL: w.leaseTTL, GenBase: db.Boot() << 32})
	}
	w.zoneMetrics = zone.NewMetrics(w.Zones)
	w.inst.init(cfg.Instance)
	w.instMetrics = newInstMetrics()
	w.parties.init()
	w.comm.init()
	if err := w.loadBans(); err != nil {
		return nil, err
	}
	w.warnUnheldAdmins()
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.list.Store(&[]*zone.Zone{})
	w.epoch.Store(db.Boot() << 32)
	w.itemNext.Store(db.ItemHigh() + 1)
	w.rl.init(cfg.Files)
	scripts, probs := compileScripts(set, cfg.Lua, w.rl.cache)
	w.share = script.NewShare(scripts.Config, zone.PulseInterval) // the config as compileScripts filled it in
	scripts.Share = w.share
	var errs []error
	for _, p := range probs {
		if p.lint {
			log.Warn("world: a script cannot work as written", logev.ID(4101), "problem", p.Problem.String())
		} else {
			errs = append(errs, errors.New(p.Problem.String()))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("world: scripts do not compile: %w", errors.Join(errs...))
	}
	if p := startProblem(set); p != "" {
		return nil, fmt.Errorf("world: %s", p)
	}
	snap := &zone.Snapshot{Version: 1, Set: set, Scripts: scripts}
	w.snap.Store(snap)
	w.startZone = set.Rooms[set.Game.StartRoom].Zone
	w.rl.last = zone.ReloadReport{Version: 1, Trigger: "start", At: w.started}
	for _, id := range set.ZoneOrder {
		zp := set.Zones[id]
		if zp.Instanceable {
			continue // a template is entered only through its instances
		}
		h, err := w.newHost(w.ctx, snap, zp, false)
		if err != nil {
			return nil, err
		}
		w.addLocked(h) // nobody else sees w yet
	}
	return w, nil
}

// Start runs the saver, the lease keeper and every hosted zone; zones
// hosted later run as soon as they are hosted.
func (w *World) Start() {
	w.saverStop = make(chan struct{})
	w.gr.Go(context.Background(), func(context.Context) { w.saver.run(w.saverStop) }, "world", "saver")
	w.saving.Store(true)
	w.gr.Go(w.ctx, w.keepLeases, "world", "leases")
	if w.cfg.BackupEvery > 0 {
		w.gr.Go(w.ctx, w.scheduleBackups, "world", "backups")
	}
	for range mintWorkers {
		w.gr.Go(w.ctx, w.runMints, "world", "mint")
	}
	w.gr.Go(w.ctx, w.runReaper, "world", "reaper")
	w.gr.Go(w.ctx, func(ctx context.Context) {
		t := time.NewTicker(w.inst.cfg.ClaimEvery)
		defer t.Stop()
		w.keepClaims(ctx, t.C)
	}, "world", "claims")
	if w.cfg.Areas != nil {
		w.gr.Go(w.ctx, w.runReloads, "world", "reload")
		if w.cfg.WatchAreas && w.cfg.AreasDir != "" {
			if wt := w.startWatch(w.cfg.AreasDir); wt != nil {
				w.gr.Go(w.ctx, func(ctx context.Context) { w.runWatch(ctx, wt) }, "world", "watch")
			}
		}
	}
	w.routeMu.Lock()
	defer w.routeMu.Unlock()
	w.running = true
	for _, z := range *w.list.Load() {
		w.startLocked(w.hosts[z.ID()])
	}
}

// Shutdown stops logins and new instance copies, tells everyone, sends
// every copy's occupants to their anchors (the rooms they entered from),
// stops every zone (each hands its characters back and queues their
// saves), and writes everything before it returns. It waits at most until
// ctx is done.
func (w *World) Shutdown(ctx context.Context) error {
	if !w.stopping.CompareAndSwap(false, true) {
		return nil
	}
	for _, z := range w.Zones() {
		z.Broadcast("{R}The world is shutting down now. Your character is being saved.{x}")
	}
	w.ejectCopies(ctx)
	// Every zone stops, whenever it was hosted: a host racing with this
	// either saw stopping and refused, or is in the table and its context
	// is cancelled with the rest; an unhost in flight waits for its own.
	w.routeMu.Lock()
	w.cancel()
	w.routeMu.Unlock()
	if err := run.Wait(ctx, &w.zonesRunning); err != nil {
		return fmt.Errorf("world: shutdown: zones did not stop in time: %w", err)
	}
	if w.saverStop != nil {
		close(w.saverStop)
		w.saver.push(saverOp{}) // wake it to notice
		select {
		case <-w.saver.stopped:
		case <-ctx.Done():
			return fmt.Errorf("world: shutdown: saver did not finish: %w", ctx.Err())
		}
	}
	// Workers (backups, SSH key changes) finish what they started.
	w.gr.Close()
	if err := w.gr.Wait(ctx); err != nil {
		return fmt.Errorf("world: shutdown: workers did not finish: %w", err)
	}
	return nil
}

// Content is the content set the world runs now.
func (w *World) Content() *content.Set { return w.snap.Load().Set }

// Snapshot is the content the world runs now, with its compiled scripts
// and version.
func (w *World) Snapshot() *zone.Snapshot { return w.snap.Load() }

// Store is the world's store.
func (w *World) Store() *store.DB { return w.db }

// Started is when the world started.
func (w *World) Started() time.Time { return w.started }

// Players is the number of characters in the world, in every hosted zone.
func (w *World) Players() int {
	n := 0
	for _, z := range w.Zones() {
		n += z.Population()
	}
	return n
}

// Flush waits until every save queued so far is written.
func (w *World) Flush() { w.saver.flush() }

// SaveAll checkpoints every zone now, out of its cadence, and returns once
// those saves are written (or failed: a failed save is retried as usual).
// A backup taken after it holds everyone's state as of the call.
func (w *World) SaveAll(ctx context.Context) error {
	zones := w.Zones()
	queued := make(chan struct{}, len(zones))
	asked := 0
	for _, z := range zones {
		if z.SaveNow(func() { queued <- struct{}{} }) {
			asked++
		}
	}
	for ; asked > 0; asked-- {
		select {
		case <-queued:
		case <-ctx.Done():
			return fmt.Errorf("world: save all: %w", ctx.Err())
		}
	}
	flushed := make(chan struct{})
	w.saver.push(saverOp{flush: flushed})
	_, err := await(ctx, w.saver, (<-chan struct{})(flushed))
	if err != nil && !errors.Is(err, ErrStopping) { // stopping: the saver wrote everything as it stopped
		return fmt.Errorf("world: save all: %w", err)
	}
	return err
}

// zone.Shard

// Zone returns the hosted zone with this id, or nil.
func (w *World) Zone(id string) *zone.Zone {
	w.routeMu.RLock()
	defer w.routeMu.RUnlock()
	if h := w.hosts[id]; h != nil {
		return h.z
	}
	return nil
}

// Zones lists every hosted zone, in hosting order. The slice is a snapshot
// shared by every caller and must not be modified.
func (w *World) Zones() []*zone.Zone { return *w.list.Load() }

// Where returns the zone that holds a character, or that it is on its way
// to.
func (w *World) Where(name string) *zone.Zone {
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	if r := sh.m[k]; r != nil && r.h != nil {
		return r.h.z
	}
	return nil
}

// Moving delivers a character's handoff to zone to and records that the
// character is routed there, under the routing lock (shared) and its
// residency lock, so nothing routed by name can slip between the two. The
// only call made under the locks is to.Deliver, a push onto to's mailbox
// whose lock is a leaf. It reports false, having changed nothing, if to is
// not hosted or has stopped; the handoff then stays with the caller.
func (w *World) Moving(name string, to *zone.Zone, h zone.Handoff) bool {
	w.routeMu.RLock()
	defer w.routeMu.RUnlock()
	dest := w.hosts[to.ID()]
	if dest == nil || dest.z != to {
		return false
	}
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	if !to.Deliver(h) {
		return false
	}
	if r := sh.m[k]; r != nil {
		r.route(dest)
	} else {
		w.log.Error("world: a character moved that is not resident", logev.ID(4102), logev.Player(name))
	}
	return true
}

// TakePending hands a waiting login to the zone that holds the character.
func (w *World) TakePending(name string, from *zone.Zone) zone.Session {
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	r := sh.m[k]
	if r == nil || r.h == nil || r.h.z != from || r.pending == nil {
		return nil
	}
	s := r.pending
	r.pending = nil
	return s
}

// HandBack takes a character out of the world. Its save was queued by the
// zone before this call. If a login is waiting for the character, the
// record goes to it instead, in the same zone.
func (w *World) HandBack(rec *zone.CharRecord, why string) {
	w.forgetSnoops(rec.Name)
	s, left := w.handBack(rec, why)
	if left {
		w.leftWorld(rec.Name)
	}
	if s != nil {
		s.Close("The world is shutting down. Please come back in a moment.")
	}
}

// handBack is HandBack under the residency lock; it returns a waiting
// session to close once the lock is let go, and whether the character
// left the world (rather than going to a waiting login).
func (w *World) handBack(rec *zone.CharRecord, why string) (zone.Session, bool) {
	sh, k := w.res.lock(rec.Name)
	defer sh.mu.Unlock()
	r := sh.m[k]
	if r == nil {
		w.log.Error("world: a hand-back of a character that is not resident", logev.ID(4103), logev.Player(rec.Name), "why", why)
		return nil, false
	}
	s := r.pending
	r.pending = nil
	if s != nil && !w.stopping.Load() && why != "stop" && r.h != nil {
		rec.Epoch = w.epoch.Add(1)
		// The body goes straight back into the world from memory; if
		// its leaving save fails, the saver must not keep a copy too.
		w.saver.release(rec.Name)
		if r.h.z.Arrive(rec, s, rec.Room, "") {
			return nil, false
		}
	}
	w.res.remove(sh, k, r)
	return s, true
}

// Checkpoint queues a zone's save batch.
func (w *World) Checkpoint(b *zone.SaveBatch) { w.saver.queue(b) }

// ReserveItemIDs hands out n fresh durable item ids.
func (w *World) ReserveItemIDs(n uint64) uint64 { return w.itemNext.Add(n) - n }

// Enter puts an authenticated player's character into the world on
// session s: attached to the body already in the world if there is one
// (a reconnect or a takeover), else loaded from the store, or new. It
// returns the route the session's input goes through. It may block on the
// store; it never blocks on a zone.
func (w *World) Enter(name string, s zone.Session) (*Route, error) {
	if w.stopping.Load() {
		return nil, ErrStopping
	}
	sh, k := w.res.lock(name)
	if r := sh.m[k]; r != nil {
		old := r.pending
		r.pending = s
		var z *zone.Zone
		if r.h != nil {
			z = r.h.z
		}
		sh.mu.Unlock()
		if old != nil && old != s {
			old.Close("Another login for this character took your place.")
		}
		if z != nil {
			z.Wake(name)
		}
		return &Route{sh: sh, r: r, name: name, s: s}, nil
	}
	if w.cfg.MaxPlayers > 0 && int(w.res.n.Load()) >= w.cfg.MaxPlayers {
		sh.mu.Unlock()
		return nil, ErrFull
	}
	r := w.res.add(sh, k)
	sh.mu.Unlock()

	rec, err := w.loadRecord(name)
	roles := w.roles(name) // the store is read before any lock is taken

	// Session calls wait until the locks are let go.
	var closeS zone.Session
	var closeMsg string
	defer func() {
		if closeS != nil {
			closeS.Close(closeMsg)
		}
	}()
	w.routeMu.RLock()
	defer w.routeMu.RUnlock()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if err != nil {
		w.res.remove(sh, k, r)
		if r.pending != nil {
			closeS, closeMsg = r.pending, "Your character could not be loaded. The admin has been told."
		}
		return nil, err
	}
	// A later login for the character came while this one loaded it: the
	// later one takes the character in, and holds the route its own Enter
	// returned; this one is closed and gets none, for a route carries its
	// session and would report this connection's end as the other's.
	var took error
	if r.pending != nil {
		closeS, closeMsg = s, "Another login for this character took your place."
		s = r.pending
		r.pending = nil
		took = ErrTakenOver
	}
	if w.stopping.Load() {
		w.res.remove(sh, k, r)
		return nil, ErrStopping
	}
	rec.Epoch = w.epoch.Add(1)
	rec.Admin, rec.Builder, rec.BuildZones = roles.Admin, roles.Builder, roles.BuildZones
	h, room, note := w.place(rec)
	if !h.z.Arrive(rec, s, room, note) {
		w.res.remove(sh, k, r)
		return nil, ErrStopping // its zone stopped: the world is shutting down
	}
	r.route(h)
	if took != nil {
		return nil, took
	}
	return &Route{sh: sh, r: r, name: name, s: s}, nil
}

// loadRecord reads a character through the saver (so it sees every save
// queued before), or makes a new one.
func (w *World) loadRecord(name string) (*zone.CharRecord, error) {
	c, err := w.saver.load(name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &zone.CharRecord{Name: name, Created: time.Now().Unix(), Level: 1}, nil
	case errors.Is(err, ErrStopping):
		return nil, err
	case err != nil:
		w.log.Error("world: a character record cannot be read; the login is refused", logev.ID(4104), logev.Player(name), "err", err)
		return nil, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	return fromStore(c), nil
}

// place decides where a character arrives: its anchor if it was inside an
// instance, else its placement, else (or if that room is gone, or its zone
// is not hosted) the start room, with a note to the player. The caller
// holds the routing lock.
func (w *World) place(rec *zone.CharRecord) (*host, string, string) {
	set := w.Content()
	zoneID, room := rec.Zone, rec.Room
	if rec.AnchorZone != "" {
		zoneID, room = rec.AnchorZone, rec.AnchorRoom
		rec.AnchorZone, rec.AnchorRoom = "", ""
	}
	if zoneID != "" && !zone.IsInstanceID(zoneID) {
		zp := set.Zones[zoneID]
		if h := w.hosts[zoneID]; h != nil && zp != nil && !zp.Instanceable && set.Rooms[room] != nil && content.RefZone(room) == zoneID {
			return h, room, ""
		}
	}
	start := set.Game.StartRoom
	note := ""
	if rec.Room != "" || zoneID != "" {
		note = "The place where you last stood is no longer there. You find yourself back in " + set.Rooms[start].Name + "."
		w.log.Warn("world: a login is placed in the start room, away from where it last stood", logev.ID(4105), logev.Player(rec.Name),
			"last_zone", zoneID, "last_room", room, "why", w.unplaceable(set, zoneID, room))
	}
	return w.hosts[w.startZone], start, note
}

// unplaceable says why a login cannot go back to room of zoneID: the
// reason 4105 logs.
func (w *World) unplaceable(set *content.Set, zoneID, room string) string {
	zp := set.Zones[zoneID]
	switch {
	case zoneID == "":
		return "no zone stored"
	case zone.IsInstanceID(zoneID):
		return "an instance copy, with no anchor stored"
	case zp == nil:
		return "the zone is gone from the content"
	case zp.Instanceable:
		return "the zone is instanceable"
	case w.hosts[zoneID] == nil:
		return "the zone is not hosted"
	}
	return "the room is gone from the zone"
}

// loadObjects reads the persistent room objects of a permanent zone. It is
// the only reader of room objects; instances never call it.
func (w *World) loadObjects(zoneID string) (map[string][]zone.ItemRecord, error) {
	w.objectLoads.Add(1)
	objs, err := w.db.RoomObjects(zoneID)
	if err != nil {
		return nil, fmt.Errorf("world: zone %s: %w", zoneID, err)
	}
	out := make(map[string][]zone.ItemRecord, len(objs))
	for room, items := range objs {
		out[room] = fromStoreItems(items)
	}
	return out, nil
}
