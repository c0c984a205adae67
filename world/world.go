package world

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"zonemud/script"
	"zonemud/store"
	"zonemud/world/content"
	"zonemud/zone"
)

// Config is the [world] section of config.toml.
type Config struct {
	// MaxPlayers caps characters in the world at once (0: no cap).
	MaxPlayers int `toml:"max_players"`
	// Admins are the characters with admin commands. The list is read at
	// each login: taking a name off it takes the rights away.
	Admins []string `toml:"admins"`
	// BackupDir is where the in-game backup command writes; the wiring
	// sets it inside data_dir.
	BackupDir string `toml:"-"`
	// Lua is the [lua] section, set by the wiring.
	Lua script.Config `toml:"-"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config { return Config{MaxPlayers: 20000} }

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
	cfg     Config       // immutable after New
	zoneCfg zone.Config  // immutable after New
	set     *content.Set // immutable after New (hot reload swaps a whole World's set later)
	db      *store.DB    // immutable after New
	log     *slog.Logger // immutable after New
	started time.Time    // immutable after New

	zones    map[string]*zone.Zone // immutable after New: permanent zones by id
	zoneList []*zone.Zone          // immutable after New

	res     *residents
	saver   *saver
	scripts zone.Scripts // immutable after New: compiled once, shared by every zone

	epoch    atomic.Uint64 // last owner epoch handed out
	itemNext atomic.Uint64 // next durable item id
	stopping atomic.Bool

	gr        goroutines // every goroutine the world starts
	zoneDone  []<-chan struct{}
	cancel    context.CancelFunc
	saverStop chan struct{}
	saverDone <-chan struct{}
}

// New builds the world for a content set over an open store. It starts
// nothing; call Start.
func New(set *content.Set, db *store.DB, cfg Config, zcfg zone.Config, log *slog.Logger) (*World, error) {
	if log == nil {
		log = slog.Default()
	}
	w := &World{
		cfg: cfg, zoneCfg: zcfg, set: set, db: db, log: log, started: time.Now(),
		zones: map[string]*zone.Zone{},
		res:   newResidents(),
		saver: newSaver(db, log),
	}
	w.epoch.Store(db.Boot() << 32)
	w.itemNext.Store(db.ItemHigh() + 1)
	scripts, err := compileScripts(set, cfg.Lua)
	if err != nil {
		return nil, err
	}
	w.scripts = scripts
	for _, id := range set.ZoneOrder {
		zp := set.Zones[id]
		if zp.Instanceable {
			continue // a template is entered only through its instances
		}
		objs, err := w.loadObjects(id)
		if err != nil {
			return nil, err
		}
		z := zone.New(zp, set, w, zcfg, zone.Options{Log: log, Objects: objs, Scripts: scripts})
		w.zones[id] = z
		w.zoneList = append(w.zoneList, z)
	}
	start := set.Rooms[set.Game.StartRoom]
	if start == nil || w.zones[start.Zone] == nil {
		return nil, fmt.Errorf("world: start room %s is not in a hosted zone", set.Game.StartRoom)
	}
	return w, nil
}

// Start runs every zone and the saver.
func (w *World) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.saverStop = make(chan struct{})
	w.saverDone, _ = w.gr.start(context.Background(), func(context.Context) { w.saver.run(w.saverStop) }, "world", "saver")
	for _, z := range w.zoneList {
		if done, ok := w.gr.start(ctx, z.Run, "world", "zone", "zone", z.ID(), "template", z.Template()); ok {
			w.zoneDone = append(w.zoneDone, done)
		}
	}
}

// Shutdown stops logins, tells everyone, stops every zone (each hands its
// characters back and queues their saves), and writes everything before it
// returns. It waits at most until ctx is done.
func (w *World) Shutdown(ctx context.Context) error {
	if !w.stopping.CompareAndSwap(false, true) {
		return nil
	}
	for _, z := range w.zoneList {
		z.Broadcast("{R}The world is shutting down now. Your character is being saved.{x}")
	}
	if w.cancel != nil {
		w.cancel()
	}
	for _, done := range w.zoneDone {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("world: shutdown: zones did not stop in time: %w", ctx.Err())
		}
	}
	if w.saverStop != nil {
		close(w.saverStop)
		w.saver.push(saverOp{}) // wake it to notice
		select {
		case <-w.saverDone:
		case <-ctx.Done():
			return fmt.Errorf("world: shutdown: saver did not finish: %w", ctx.Err())
		}
	}
	// Workers (backups, SSH key changes) finish what they started.
	w.gr.close()
	if err := w.gr.wait(ctx); err != nil {
		return fmt.Errorf("world: shutdown: workers did not finish: %w", err)
	}
	return nil
}

// Content is the content set the world runs.
func (w *World) Content() *content.Set { return w.set }

// Store is the world's store.
func (w *World) Store() *store.DB { return w.db }

// Started is when the world started.
func (w *World) Started() time.Time { return w.started }

// Players is the number of characters in the world.
func (w *World) Players() int {
	n := 0
	for _, z := range w.zoneList {
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
	queued := make(chan struct{}, len(w.zoneList))
	asked := 0
	for _, z := range w.zoneList {
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
	select {
	case <-flushed:
		return nil
	case <-w.saverDone:
		select {
		case <-flushed:
			return nil
		default:
			return ErrStopping // the saver wrote everything as it stopped
		}
	case <-ctx.Done():
		return fmt.Errorf("world: save all: %w", ctx.Err())
	}
}

// zone.Shard

// Zone returns the hosted zone with this id.
func (w *World) Zone(id string) *zone.Zone { return w.zones[id] }

// Zones lists the hosted zones.
func (w *World) Zones() []*zone.Zone { return w.zoneList }

// Where returns the zone that holds a character.
func (w *World) Where(name string) *zone.Zone {
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	if r := sh.m[k]; r != nil {
		return r.zone
	}
	return nil
}

// Moving records a character's new zone and delivers it, under its
// residency lock.
func (w *World) Moving(name string, to *zone.Zone, deliver func()) {
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	if r := sh.m[k]; r != nil {
		r.zone = to
	} else {
		w.log.Error("world: a character moved that is not resident", "name", name)
	}
	deliver()
}

// TakePending hands a waiting login to the zone that holds the character.
func (w *World) TakePending(name string, from *zone.Zone) zone.Session {
	sh, k := w.res.lock(name)
	defer sh.mu.Unlock()
	r := sh.m[k]
	if r == nil || r.zone != from || r.pending == nil {
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
	sh, k := w.res.lock(rec.Name)
	defer sh.mu.Unlock()
	r := sh.m[k]
	if r == nil {
		w.log.Error("world: hand-back of a character that is not resident", "name", rec.Name, "why", why)
		return
	}
	if r.pending != nil {
		s := r.pending
		r.pending = nil
		if w.stopping.Load() || why == "stop" || r.zone == nil {
			s.Close("The world is shutting down. Please come back in a moment.")
		} else {
			rec.Epoch = w.epoch.Add(1)
			// The body goes straight back into the world from memory; if
			// its leaving save fails, the saver must not keep a copy too.
			w.saver.release(rec.Name)
			r.zone.Arrive(rec, s, rec.Room, "")
			return
		}
	}
	delete(sh.m, k)
	w.res.n.Add(-1)
}

// Checkpoint queues a zone's save batch.
func (w *World) Checkpoint(b *zone.SaveBatch) { w.saver.queue(b) }

// ReserveItemIDs hands out n fresh durable item ids.
func (w *World) ReserveItemIDs(n uint64) uint64 { return w.itemNext.Add(n) - n }

// Logins

// Account reads an account; store.ErrNotFound if there is none.
func (w *World) Account(name string) (*store.Account, error) { return w.db.Account(name) }

// CreateAccount adds an account; store.ErrExists if the name is taken.
func (w *World) CreateAccount(a *store.Account) error { return w.db.CreateAccount(a) }

// UpdateAccount changes an account in one transaction.
func (w *World) UpdateAccount(name string, fn func(*store.Account) error) error {
	return w.db.UpdateAccount(name, fn)
}

// Enter puts an authenticated player's character into the world on
// session s: attached to the body already in the world if there is one
// (a reconnect or a takeover), else loaded from the store, or new. It may
// block on the store; it never blocks on a zone.
func (w *World) Enter(name string, s zone.Session) error {
	if w.stopping.Load() {
		return ErrStopping
	}
	sh, k := w.res.lock(name)
	if r := sh.m[k]; r != nil {
		if r.pending != nil && r.pending != s {
			r.pending.Close("Another login for this character took your place.")
		}
		r.pending = s
		z := r.zone
		sh.mu.Unlock()
		if z != nil {
			z.Wake(name)
		}
		return nil
	}
	if w.cfg.MaxPlayers > 0 && int(w.res.n.Load()) >= w.cfg.MaxPlayers {
		sh.mu.Unlock()
		return ErrFull
	}
	r := &resident{}
	sh.m[k] = r
	w.res.n.Add(1)
	sh.mu.Unlock()

	rec, err := w.loadRecord(name)

	sh.mu.Lock()
	defer sh.mu.Unlock()
	if err != nil {
		delete(sh.m, k)
		w.res.n.Add(-1)
		if r.pending != nil {
			r.pending.Close("Your character could not be loaded. The admin has been told.")
		}
		return err
	}
	if r.pending != nil {
		s.Close("Another login for this character took your place.")
		s = r.pending
		r.pending = nil
	}
	if w.stopping.Load() {
		delete(sh.m, k)
		w.res.n.Add(-1)
		return ErrStopping
	}
	rec.Epoch = w.epoch.Add(1)
	rec.Admin = w.isAdmin(name)
	z, room, note := w.place(rec)
	r.zone = z
	z.Arrive(rec, s, room, note)
	return nil
}

func (w *World) isAdmin(name string) bool {
	for _, a := range w.cfg.Admins {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// Backup saves everyone, then writes a consistent copy of the database
// into the backup folder, on its own goroutine, and reports to done.
func (w *World) Backup(done func(path string, size int64, err error)) {
	_, ok := w.gr.start(context.Background(), func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := w.SaveAll(ctx)
		cancel()
		if err != nil {
			done("", 0, err)
			return
		}
		dir := w.cfg.BackupDir
		if dir == "" {
			dir = filepath.Join(filepath.Dir(w.db.Path()), "backups")
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			done("", 0, err)
			return
		}
		path := filepath.Join(dir, "zonemud-"+time.Now().UTC().Format("20060102-150405")+".db")
		n, err := w.db.BackupFile(path)
		if err == nil {
			w.log.Info("world: backup written", "path", path, "bytes", n)
		}
		done(path, n, err)
	}, "world", "backup")
	if !ok {
		done("", 0, ErrStopping)
	}
}

// loadRecord reads a character through the saver (so it sees every save
// queued before), or makes a new one.
func (w *World) loadRecord(name string) (*zone.CharRecord, error) {
	c, err := w.saver.load(name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &zone.CharRecord{Name: name, Created: time.Now().Unix(), Level: 1}, nil
	case err != nil:
		w.log.Error("world: character record cannot be read; login refused", "name", name, "err", err)
		return nil, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	return fromStore(c), nil
}

// place decides where a character arrives: its anchor if it was inside an
// instance, else its placement, else (or if that room is gone) the start
// room, with a note to the player.
func (w *World) place(rec *zone.CharRecord) (*zone.Zone, string, string) {
	zoneID, room := rec.Zone, rec.Room
	if rec.AnchorZone != "" {
		zoneID, room = rec.AnchorZone, rec.AnchorRoom
		rec.AnchorZone, rec.AnchorRoom = "", ""
	}
	if zoneID != "" && !strings.Contains(zoneID, "#") {
		if z := w.zones[zoneID]; z != nil && w.set.Rooms[room] != nil && content.RefZone(room) == zoneID {
			return z, room, ""
		}
	}
	start := w.set.Game.StartRoom
	note := ""
	if rec.Room != "" || zoneID != "" {
		note = "The place where you last stood is no longer there. You find yourself back in " + w.set.Rooms[start].Name + "."
	}
	return w.zones[content.RefZone(start)], start, note
}

// loadObjects reads the persistent room objects of a permanent zone. It is
// the only reader of room objects; instances never call it.
func (w *World) loadObjects(zoneID string) (map[string][]zone.ItemRecord, error) {
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

// newInstance builds an instance of an instanceable template: a zone with
// its own id (<template>#<128 random bits>), its own RNG stream and its own
// rooms. It is not hosted, leased or placed. It loads no persistent room
// objects: every copy of a template has the same room refs, so loading
// would give each copy the same stored items to loot. The world does not
// even ask the store.
func (w *World) newInstance(template string) (*zone.Zone, error) {
	zp := w.set.Zones[template]
	switch {
	case zp == nil:
		return nil, fmt.Errorf("world: no zone %q in the loaded content", template)
	case !zp.Instanceable:
		return nil, fmt.Errorf("world: zone %q is not instanceable", template)
	case w.set.Rooms[zp.StartRoom] == nil:
		return nil, fmt.Errorf("world: zone %q has no start room", template)
	}
	return zone.New(zp, w.set, w, w.zoneCfg, zone.Options{ID: zone.NewInstanceID(template), Log: w.log, Scripts: w.scripts}), nil
}
