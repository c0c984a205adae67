package world

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/script"
	"zonemud/zone"
)

// Hot reload. One worker goroutine (runReloads) does every reload, one at
// a time: it reads the areas folder again, validates the whole new version
// and compiles its scripts, all off every zone goroutine. A version with
// any problem is refused whole: the world keeps running the old one, and
// every builder online and the log are told each problem with its file,
// line and key. A valid version is swapped in (Snapshot); new zones are
// hosted first, so exits into them work the moment the zones that lead
// there reconcile; every zone is offered a notice (zone.Reload, which
// never blocks) and reconciles on its own goroutine, telling the world when
// it has (Reconciled); zones the new version no longer has send their
// players to the start room and are unhosted once empty. Instance copies
// keep the version they were minted from and are listed in the report.
//
// A reload is asked for by the watcher (watch.go) when files under the
// areas folder change, or by a builder's reload command.

// reloadApplyBound bounds how long a reload waits for every zone to
// reconcile before it reports; a zone that has not is listed as late and
// catches up at its next pulse regardless.
const reloadApplyBound = 10 * time.Second

// reloadUnhostTries bounds the tries to unhost a zone the new content no
// longer has, a tenth of a second apart; one still busy after them is
// tried again at the next reload.
const reloadUnhostTries = 50

// reloader is the world's reload state.
type reloader struct {
	cache *script.Cache  // compiled scripts, kept across versions
	files *content.Cache // decoded area files, kept across versions
	kick  chan struct{}  // a reload is wanted; cap 1

	mu    sync.Mutex
	asks  []reloadAsk       // guarded by mu: reload commands waiting for the next report
	last  zone.ReloadReport // guarded by mu: the last report
	done  chan struct{}     // guarded by mu: closed and replaced when a reload ends
	apply *applying         // guarded by mu: the zones a swap is waiting for
}

type reloadAsk struct {
	by   string
	done func(zone.ReloadReport)
}

// applying is one swap waiting for the zones to reconcile.
type applying struct {
	version uint64
	waiting map[*zone.Zone]bool
	longest time.Duration
	zone    string
	n, slow int           // zones reconciled; of them, those that took over 5 ms
	done    chan struct{} // closed when waiting is empty
}

func (rl *reloader) init(files *content.Cache) {
	rl.cache = script.NewCache()
	rl.files = files
	if rl.files == nil {
		rl.files = new(content.Cache)
	}
	rl.kick = make(chan struct{}, 1)
	rl.done = make(chan struct{})
}

// Reload asks for a reload now (the reload command) and calls done, on the
// reload worker (it must only post), with its report.
func (w *World) Reload(by string, done func(zone.ReloadReport)) {
	if w.cfg.Areas == nil {
		rep := w.LastReload()
		rep.Trigger = "reload by " + by
		rep.Problems = content.Problems{{Msg: "the world runs the built-in starter world, which has no files to reload; `zonemud init DIR` writes them out for editing"}}
		done(rep)
		return
	}
	w.rl.mu.Lock()
	w.rl.asks = append(w.rl.asks, reloadAsk{by: by, done: done})
	w.rl.mu.Unlock()
	w.kickReload()
}

// kickReload asks the worker for a reload; one already asked for covers it.
func (w *World) kickReload() {
	select {
	case w.rl.kick <- struct{}{}:
	default:
	}
}

// LastReload is the report of the last reload (or of the start).
func (w *World) LastReload() zone.ReloadReport {
	w.rl.mu.Lock()
	defer w.rl.mu.Unlock()
	return w.rl.last
}

// WaitReload waits until a reload later than seq (a ReloadReport.Seq) has
// ended, and returns its report.
func (w *World) WaitReload(ctx context.Context, seq uint64) (zone.ReloadReport, error) {
	for {
		w.rl.mu.Lock()
		last, done := w.rl.last, w.rl.done
		w.rl.mu.Unlock()
		if last.Seq > seq {
			return last, nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return last, fmt.Errorf("world: waiting for reload %d: %w", seq+1, ctx.Err())
		}
	}
}

// Reconciled records that zone z runs version, and how long its goroutine
// spent getting there. It never blocks.
func (w *World) Reconciled(z *zone.Zone, version uint64, took time.Duration) {
	w.rl.mu.Lock()
	defer w.rl.mu.Unlock()
	a := w.rl.apply
	if a == nil || version < a.version || !a.waiting[z] {
		return
	}
	delete(a.waiting, z)
	a.n++
	if took > 5*time.Millisecond {
		a.slow++
	}
	if took > a.longest {
		a.longest, a.zone = took, z.ID()
	}
	if len(a.waiting) == 0 {
		close(a.done)
	}
}

// runReloads is the reload worker.
func (w *World) runReloads(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			w.failAsks(ErrStopping)
			return
		case <-w.rl.kick:
			w.reloadOnce(ctx)
		}
	}
}

// failAsks answers the reload commands still waiting when the world stops.
func (w *World) failAsks(err error) {
	w.rl.mu.Lock()
	asks := w.rl.asks
	w.rl.asks = nil
	rep := w.rl.last
	w.rl.mu.Unlock()
	rep.Problems = content.Problems{{Msg: err.Error()}}
	for _, a := range asks {
		a.done(rep)
	}
}

// reloadOnce is one reload: load, validate, and either refuse or swap and
// apply.
func (w *World) reloadOnce(ctx context.Context) {
	w.rl.mu.Lock()
	asks := w.rl.asks
	w.rl.asks = nil
	w.rl.mu.Unlock()
	rep := zone.ReloadReport{Trigger: "files changed"}
	if len(asks) > 0 {
		var by []string
		for _, a := range asks {
			if !slices.Contains(by, a.by) {
				by = append(by, a.by)
			}
		}
		rep.Trigger = "reload by " + strings.Join(by, ", ")
	}
	start := time.Now()
	old := w.Snapshot()
	rep.Version = old.Version
	set, scripts, err := validate(w.cfg.Areas, w.cfg.Lua, w.rl.files, w.rl.cache)
	scripts.Share = w.share
	rep.Loaded = time.Since(start)
	switch {
	case err != nil:
		rep.Problems = problemsOf(err)
	default:
		rep.Warnings = CheckHelp(set)
		rep.Changes = diffContent(old, set, scripts)
		if len(rep.Changes) == 0 {
			rep.Unchanged = true
			break
		}
		snap := &zone.Snapshot{Version: old.Version + 1, Set: set, Scripts: scripts}
		w.apply(ctx, snap, &rep)
		w.rl.cache.Prune()
	}
	w.unhostRetired(ctx, &rep)
	rep.Copies = w.copies(ctx)
	w.finishReload(rep, asks)
}

// apply swaps snap in and waits for the zones to reconcile with it.
func (w *World) apply(ctx context.Context, snap *zone.Snapshot, rep *zone.ReloadReport) {
	// New zones first, so an exit into one leads somewhere the moment the
	// zone it starts in has reconciled. They are built from snap, so they
	// never reconcile.
	for _, id := range snap.Set.ZoneOrder {
		zp := snap.Set.Zones[id]
		if zp.Instanceable || w.Zone(id) != nil {
			continue
		}
		h, err := w.newHost(ctx, snap, zp, false)
		if err == nil {
			err = w.hostBuilt(h)
		}
		if err != nil {
			w.log.Error("world: reload: a new zone could not be hosted", logev.ID(4504), logev.Zone(id), "err", err)
			rep.Changes = append(rep.Changes, fmt.Sprintf("%s: could not be hosted: %v", id, err))
		}
	}
	// Every login without a placement, and every player of a zone taken
	// out, goes to the start room: a version whose start room runs
	// nowhere is refused whole. The zones hosted above for it are not in
	// the running content, and unhostRetired takes them out again.
	if start := snap.Set.Rooms[snap.Set.Game.StartRoom].Zone; w.Zone(start) == nil {
		rep.Problems = content.Problems{{Msg: fmt.Sprintf("the start room %s is in zone %s, which could not be hosted; the running content is kept", snap.Set.Game.StartRoom, start)}}
		return
	}
	// The zones to wait for are known before the swap, so none can
	// reconcile before the world listens for it. A zone hosted above was
	// built from snap and has nothing to catch up.
	a := &applying{version: snap.Version, waiting: map[*zone.Zone]bool{}, done: make(chan struct{})}
	var notify []*zone.Zone
	for _, z := range w.Zones() {
		if !zone.IsInstanceID(z.ID()) && z.Version() < snap.Version {
			a.waiting[z] = true
			notify = append(notify, z)
		}
	}
	if len(a.waiting) == 0 {
		close(a.done)
	}
	w.rl.mu.Lock()
	w.rl.apply = a
	w.rl.mu.Unlock()
	w.routeMu.Lock()
	w.snap.Store(snap)
	w.startZone = snap.Set.Rooms[snap.Set.Game.StartRoom].Zone
	w.routeMu.Unlock()
	rep.Version = snap.Version
	swapped := time.Now()
	for _, z := range notify {
		z.Reload() // a dropped notice is caught up at the zone's next pulse
	}
	t := time.NewTimer(reloadApplyBound)
	defer t.Stop()
	select {
	case <-a.done:
	case <-t.C:
	case <-ctx.Done():
	}
	w.rl.mu.Lock()
	w.rl.apply = nil
	rep.Applied = time.Since(swapped)
	rep.LongestPause, rep.PauseZone = a.longest, a.zone
	rep.Reconciled, rep.SlowPauses = a.n, a.slow
	for z := range a.waiting {
		rep.Late = append(rep.Late, z.ID())
	}
	w.rl.mu.Unlock()
	sort.Strings(rep.Late)
}

// hostBuilt puts a zone built by newHost in the table and runs it.
func (w *World) hostBuilt(h *host) error {
	w.routeMu.Lock()
	defer w.routeMu.Unlock()
	if w.stopping.Load() {
		w.dropLease(h)
		return ErrStopping
	}
	if w.hosts[h.z.ID()] != nil {
		w.dropLease(h)
		return fmt.Errorf("%w: %s", ErrHosted, h.z.ID())
	}
	w.addLocked(h)
	if w.running {
		w.startLocked(h)
	}
	return nil
}

// unhostRetired unhosts every permanent zone the content no longer has
// (or that became instanceable); each has sent its players on already.
func (w *World) unhostRetired(ctx context.Context, rep *zone.ReloadReport) {
	set := w.Content()
	for _, z := range w.Zones() {
		if zone.IsInstanceID(z.ID()) {
			continue
		}
		if zp := set.Zones[z.ID()]; zp != nil && !zp.Instanceable {
			continue
		}
		var err error
		for try := 0; try < reloadUnhostTries; try++ {
			uctx, cancel := context.WithTimeout(ctx, reloadApplyBound)
			err = w.Unhost(uctx, z.ID())
			cancel()
			if !errors.Is(err, ErrBusy) {
				break
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			w.log.Warn("world: reload: a zone the content no longer has is still hosted; the next reload tries again", logev.ID(4505), logev.Zone(z.ID()), "err", err)
			rep.Changes = append(rep.Changes, fmt.Sprintf("%s: still hosted (%v); the next reload tries again", z.ID(), err))
			continue
		}
		rep.Changes = append(rep.Changes, z.ID()+": unhosted")
	}
}

// copies lists the live instance copies by template: each keeps the
// version it was minted from. A template the content no longer has is
// still claimed by its copies, and is never taken from under them.
func (w *World) copies(ctx context.Context) []string {
	byTpl := map[string][]*zone.Zone{}
	for _, z := range w.Zones() {
		if zone.IsInstanceID(z.ID()) {
			byTpl[z.Template()] = append(byTpl[z.Template()], z)
		}
	}
	set := w.Content()
	var tpls []string
	for _, zp := range set.Zones {
		if zp.Instanceable {
			tpls = append(tpls, zp.ID)
		}
	}
	for t := range byTpl {
		if !slices.Contains(tpls, t) {
			tpls = append(tpls, t)
		}
	}
	sort.Strings(tpls)
	var out []string
	for _, t := range tpls {
		live := byTpl[t]
		inUse, _ := w.TemplateInUse(ctx, t) // a directory that cannot say: only the copies seen here are listed
		if len(live) == 0 && !inUse {
			continue
		}
		var vers []string
		for _, z := range live {
			vers = append(vers, fmt.Sprintf("%s (version %d)", z.ID(), z.Version()))
		}
		sort.Strings(vers)
		line := fmt.Sprintf("%s: %d live cop%s keep the version each was minted from", t, len(live), plural(len(live), "y", "ies"))
		if len(vers) > 0 {
			line += ": " + strings.Join(vers, ", ")
		}
		if zp := set.Zones[t]; zp == nil || !zp.Instanceable {
			line += "; the template is gone from the files, and new copies are no longer made, but it is kept for these until they empty"
		}
		out = append(out, line)
	}
	return out
}

// finishReload publishes a report: to the reload commands that asked, to
// every builder online (refusals and what changed), to the log, and to
// WaitReload and the hook.
func (w *World) finishReload(rep zone.ReloadReport, asks []reloadAsk) {
	rep.At = time.Now()
	w.rl.mu.Lock()
	// Files put back as the running version after a refused reload: the
	// builders who were told of the refusal hear that it is over.
	rep.Restored = rep.Unchanged && w.rl.last.Refused()
	rep.Seq = w.rl.last.Seq + 1
	w.rl.last = rep
	close(w.rl.done)
	w.rl.done = make(chan struct{})
	w.rl.mu.Unlock()
	switch {
	case rep.Refused():
		for _, p := range rep.Problems {
			w.log.Warn("world: reload refused; the running content is kept", logev.ID(4501), "problem", p.String(), "trigger", rep.Trigger)
		}
	case rep.Unchanged:
		w.log.Info("world: reload: nothing changed", logev.ID(4503), "trigger", rep.Trigger, "version", rep.Version)
	default:
		w.log.Info("world: reload applied", logev.ID(4502), "trigger", rep.Trigger, "version", rep.Version, "changes", strings.Join(rep.Changes, "; "),
			"loaded", rep.Loaded, "applied", rep.Applied, "longest_pause", rep.LongestPause, "late", strings.Join(rep.Late, ","))
	}
	for _, a := range asks {
		a.done(rep)
	}
	if !rep.Unchanged || rep.Refused() || rep.Restored {
		text := rep.Told()
		for _, z := range w.Zones() {
			z.TellBuilders(text, func(name string) bool { return !asked(asks, name) })
		}
	}
	if w.cfg.ReloadHook != nil {
		w.cfg.ReloadHook(rep)
	}
}

func asked(asks []reloadAsk, name string) bool {
	for _, a := range asks {
		if strings.EqualFold(a.by, name) {
			return true
		}
	}
	return false
}
