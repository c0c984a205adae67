package world

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/queue"
	"zonemud/store"
	"zonemud/zone"
)

// saver is the one goroutine that writes game state. Zones hand it copied
// snapshots and never wait; logins ask it for loads, which it answers in
// queue order, so a load queued after a save of the same character reads
// that save.
type saver struct {
	db  *store.DB
	log *slog.Logger
	// disk commits batches: the store, or in tests the store behind a disk
	// that can be made to fail. Saver goroutine only.
	disk committer

	q *queue.Queue[saverOp] // what zones and logins asked for, in order

	// held keeps the records of characters that left the world in a batch
	// that did not commit (a full disk, a refused batch). No zone holds
	// them any more, so each is the only copy newer than the store's:
	// every commit retries them, and a load of that name takes the held
	// record instead of the store's older one. Saver goroutine only.
	held map[string]*heldRecord
	// retryEvery is how often held records are retried when nothing else
	// is being written.
	retryEvery time.Duration
	// commitGap is the least time between two commits of checkpoints that
	// nothing waits on (see run); pending holds such a run of batches
	// between two commits, in order, and names its characters. Saver
	// goroutine only.
	commitGap  time.Duration
	lastCommit time.Time
	pending    []commitItem
	names      map[string]struct{}
	// leavers: pending holds a batch of characters that left the world,
	// which commits without waiting out the gap: a tell or a login may
	// look the character up in the store at once.
	leavers bool
	// stopped is closed when run has returned: nothing queued after that
	// is done, so whoever waits on an answer stops waiting.
	stopped chan struct{}
}

// committer writes a group of batches in one transaction: *store.DB.
type committer interface {
	Commit(batches []*store.Batch) ([]error, error)
}

type saverOp struct {
	batch *zone.SaveBatch
	load  *loadReq
	flush chan struct{} // closed once every op before it is done
	// release drops a held record: its character came back into the
	// world from memory, and the zone that holds it now saves it.
	release string
	// fence adopts or releases a zone's lease generation in the store, in
	// order with the zone's saves; fenced, if set, is told the result.
	fence  *store.Batch
	fenced func(error)
}

// heldRecord is a leaver's record waiting for a commit that succeeds.
type heldRecord struct {
	zone string
	rec  *zone.CharRecord
}

type loadReq struct {
	name  string
	reply chan loadResult // capacity 1
}

type loadResult struct {
	c   *store.Character
	err error
}

func newSaver(db *store.DB, log *slog.Logger) *saver {
	return &saver{db: db, disk: db, log: log, q: queue.New(queue.Options[saverOp]{KeepCap: 1024}),
		held: map[string]*heldRecord{}, retryEvery: 5 * time.Second, stopped: make(chan struct{}),
		commitGap: defaultCommitGap, names: map[string]struct{}{}}
}

// push queues op. It never blocks: the saver's queue has no limit and is
// never closed.
func (s *saver) push(op saverOp) { _ = s.q.Push(op) }

// queue takes a batch. It never blocks.
func (s *saver) queue(b *zone.SaveBatch) { s.push(saverOp{batch: b}) }

// load reads a character after every save queued before it. A load
// queued once the saver has stopped (a login that passed the world's stop
// check just before the shutdown) gets ErrStopping.
func (s *saver) load(name string) (*store.Character, error) {
	r := &loadReq{name: name, reply: make(chan loadResult, 1)}
	s.push(saverOp{load: r})
	res, err := await(context.Background(), s, r.reply)
	if err != nil {
		return nil, err
	}
	return res.c, res.err
}

// await waits for the saver's answer on ch. If the saver stops first, an
// answer it gave as it stopped is still taken; otherwise the wait ends
// with ErrStopping (nothing queued after the saver stopped is answered).
// It ends with ctx's error if ctx ends first.
func await[T any](ctx context.Context, s *saver, ch <-chan T) (T, error) {
	var none T
	select {
	case v := <-ch:
		return v, nil
	case <-s.stopped:
		select {
		case v := <-ch:
			return v, nil
		default:
			return none, ErrStopping
		}
	case <-ctx.Done():
		return none, ctx.Err()
	}
}

// release drops any held record of name, after saves queued before it.
func (s *saver) release(name string) { s.push(saverOp{release: name}) }

// fence queues a change to a zone's lease record, behind every save queued
// before it: adopt before the zone's first save, release after its last.
// done, if set, is called on the saver goroutine with the result.
func (s *saver) fence(zoneID string, gen uint64, op store.FenceOp, done func(error)) {
	s.push(saverOp{fence: &store.Batch{Zone: zoneID, Gen: gen, Fence: op}, fenced: done})
}

// flush waits until everything queued so far is written, or the saver
// has stopped.
func (s *saver) flush() {
	done := make(chan struct{})
	s.push(saverOp{flush: done})
	_, _ = await(context.Background(), s, (<-chan struct{})(done))
}

// defaultCommitGap is the saver's commitGap. Every zone crossing queues
// a checkpoint, so a world of walkers queues a hundred a second; committed
// as they came, each cost a transaction (its pages rewritten, an fsync),
// and the saver was a third of the server's CPU in spread2500. Gathered
// for a tenth of a second, they share one, and a zone's batches of that
// run are joined (coalesce). A tenth of a second is nothing beside the
// checkpoint interval (seconds), the most a crash can lose anyway.
const defaultCommitGap = 100 * time.Millisecond

// run is the saver loop. It returns when stop is closed and the queue is
// empty.
func (s *saver) run(stop <-chan struct{}) {
	defer close(s.stopped)
	for {
		var retry, due <-chan time.Time
		if len(s.held) > 0 {
			retry = time.After(s.retryEvery)
		}
		if len(s.pending) > 0 {
			due = time.After(time.Until(s.lastCommit.Add(s.commitGap)))
		}
		select {
		case <-s.q.Signal():
		case <-due:
			s.commitPending()
			continue
		case <-retry:
			s.commitPending()
			s.commit(nil)
			continue
		case <-stop:
			if s.q.Len() == 0 {
				s.commitPending()
				s.finish()
				return
			}
		}
		ops := s.q.Pop()
		s.process(ops)
		s.q.Recycle(ops)
		if len(s.pending) > 0 && (s.leavers || !time.Now().Before(s.lastCommit.Add(s.commitGap))) {
			s.commitPending()
		}
	}
}

// process runs ops in order. Consecutive batches gather in pending, to be
// committed in one transaction (group commit: one fsync for many zones'
// checkpoints) once the commit gap since the last commit is over, or
// before an op that must see them written: a flush, a release, a load of
// one of their characters. A batch with a character leaving the world
// (quit, reap, stop) commits at once too: a tell or a login may look it up
// in the store next. A run's batches are coalesced first (see
// coalesce), so a saver that fell behind writes each character of a zone
// once per commit, however many checkpoints of it queued up meanwhile:
// its work per commit is bounded by the characters in the world, not by
// the length of its backlog, which would otherwise grow while it commits
// (10,000 players walking queued 800,000 records, 2 GiB, at a load the
// saver could not keep up with). A load commits first only if the run
// holds that character: a load must read the saves queued before it of
// its own character, and the others can wait for the run's one commit.
func (s *saver) process(ops []saverOp) {
	for _, op := range ops {
		switch {
		case op.batch != nil:
			s.pending = append(s.pending, commitItem{zb: op.batch, parts: []*zone.SaveBatch{op.batch}})
			s.leavers = s.leavers || len(op.batch.Leaving) > 0
			for _, c := range op.batch.Chars {
				s.names[c.Name] = struct{}{}
			}
		case op.fence != nil:
			s.pending = append(s.pending, commitItem{sb: op.fence, done: op.fenced})
		case op.load != nil:
			if _, ok := s.names[op.load.name]; ok {
				s.commitPending()
			}
			if h := s.held[op.load.name]; h != nil {
				// Newer than the store's: the character left in a batch that
				// did not commit. The login that asked takes it over.
				delete(s.held, op.load.name)
				op.load.reply <- loadResult{c: toStore(h.rec)}
				continue
			}
			c, err := s.db.Character(op.load.name)
			op.load.reply <- loadResult{c, err}
		case op.release != "":
			s.commitPending()
			delete(s.held, op.release)
		case op.flush != nil:
			s.commitPending()
			close(op.flush)
		}
	}
}

// commitPending commits the batches gathered so far.
func (s *saver) commitPending() {
	if len(s.pending) == 0 {
		return
	}
	s.commit(coalesce(s.pending))
	clear(s.pending)
	s.pending = s.pending[:0]
	clear(s.names)
	s.leavers = false
	s.lastCommit = time.Now()
}

// commitItem is one batch of a group commit: a zone's save, or a change
// to a zone's lease record (zb nil). parts are the zones' batches it was
// coalesced from, each told the result.
type commitItem struct {
	zb    *zone.SaveBatch
	parts []*zone.SaveBatch
	sb    *store.Batch
	done  func(error) // for a lease change: told the result
}

// coalesce folds a zone's batches of one group commit together: a batch
// joins the earlier batch of its zone and lease generation, taking its
// place in the order, when no batch between them holds any of its
// characters (else a record of another zone's, between, would be written
// over the newer one) and no change to that zone's lease came between.
// The joined batch keeps the last record of each character and room and
// every leaver, and the store judges it whole: a give between two
// players saved in two checkpoints is still all or nothing, and a refusal
// refuses both parts, whose zones then save again. Lease changes and
// batches that cannot join keep their places.
func coalesce(items []commitItem) []commitItem {
	out := make([]commitItem, 0, len(items))
	open := map[string]int{} // zone -> the index in out its next batch may join
	last := map[string]int{} // character -> the index in out of the last batch holding it
	for _, it := range items {
		if it.zb == nil {
			delete(open, it.sb.Zone)
			out = append(out, it)
			continue
		}
		b := it.zb
		if p, ok := open[b.Zone]; ok && out[p].zb.Gen == b.Gen && joinable(b, p, last) {
			out[p].zb = join(out[p].zb, len(out[p].parts) == 1, b)
			out[p].parts = append(out[p].parts, b)
			for _, c := range b.Chars {
				last[c.Name] = p
			}
			continue
		}
		open[b.Zone] = len(out)
		for _, c := range b.Chars {
			last[c.Name] = len(out)
		}
		out = append(out, it)
	}
	for i := range out {
		if out[i].zb != nil {
			out[i].sb = toStoreBatch(out[i].zb)
		}
	}
	return out
}

// joinable reports whether b may be written at index p: none of its
// characters is in a batch after p.
func joinable(b *zone.SaveBatch, p int, last map[string]int) bool {
	for _, c := range b.Chars {
		if q, ok := last[c.Name]; ok && q > p {
			return false
		}
	}
	return true
}

// join returns into with b folded in: b's records replace into's of the
// same character or room. into is copied first if it is a zone's own
// batch (fresh is set), which the saver must not change.
func join(into *zone.SaveBatch, fresh bool, b *zone.SaveBatch) *zone.SaveBatch {
	if fresh {
		into = &zone.SaveBatch{Zone: into.Zone, Gen: into.Gen,
			Chars:   slices.Clone(into.Chars),
			Rooms:   slices.Clone(into.Rooms),
			Leaving: slices.Clone(into.Leaving)}
	}
	for _, c := range b.Chars {
		if i := slices.IndexFunc(into.Chars, func(r *zone.CharRecord) bool { return r.Name == c.Name }); i >= 0 {
			into.Chars[i] = c
		} else {
			into.Chars = append(into.Chars, c)
		}
	}
	for _, r := range b.Rooms {
		if i := slices.IndexFunc(into.Rooms, func(o zone.RoomRecord) bool { return o.Room == r.Room }); i >= 0 {
			into.Rooms[i] = r
		} else {
			into.Rooms = append(into.Rooms, r)
		}
	}
	for _, name := range b.Leaving {
		if !slices.Contains(into.Leaving, name) {
			into.Leaving = append(into.Leaving, name)
		}
	}
	return into
}

// finish makes a last attempt at the held records when the world stops,
// and names in the log every character whose last progress is lost.
func (s *saver) finish() {
	if len(s.held) == 0 {
		return
	}
	s.commit(nil)
	for name, h := range s.held {
		s.log.Error("saver: a character's last save never committed; its progress since the one before is lost", logev.ID(4201), logev.Player(name), logev.Zone(h.zone))
	}
}

// heldBatch is one batch of every held record, last in a group commit so
// that releases in the zones' batches come first.
func (s *saver) heldBatch() *zone.SaveBatch {
	b := &zone.SaveBatch{Zone: "(held leavers)"}
	for name, h := range s.held {
		b.Chars = append(b.Chars, h.rec)
		b.Leaving = append(b.Leaving, name)
	}
	return b
}

// settle updates the held records after a batch's result: a leaver whose
// save committed is done; one refused for an older epoch has a newer owner
// and is dropped; any other is held for the next commit. That includes a
// leaver in a batch refused because its zone's lease lapsed: the character
// is out of the zone, so the retry is fenced by its own owner epoch and the
// item ledger, not by a lease its zone no longer holds.
func (s *saver) settle(b *zone.SaveBatch, res error) {
	if len(b.Leaving) == 0 {
		return
	}
	var be *store.BatchError
	errors.As(res, &be)
	for _, name := range b.Leaving {
		if res == nil || (be != nil && slices.Contains(be.Stale, name)) {
			delete(s.held, name)
			continue
		}
		for _, rec := range b.Chars {
			if rec.Name == name {
				if s.held[name] == nil {
					s.log.Warn("saver: a leaver's save did not commit; holding it to retry", logev.ID(4202), logev.Player(name), logev.Zone(b.Zone), "err", res)
					s.held[name] = &heldRecord{zone: b.Zone, rec: rec}
				}
				break
			}
		}
	}
}

func (s *saver) commit(items []commitItem) {
	if len(s.held) > 0 {
		hb := s.heldBatch()
		items = append(items[:len(items):len(items)], commitItem{zb: hb, sb: toStoreBatch(hb), parts: []*zone.SaveBatch{hb}})
	}
	if len(items) == 0 {
		return
	}
	sb := make([]*store.Batch, len(items))
	for i, it := range items {
		sb[i] = it.sb
	}
	results, err := s.disk.Commit(sb)
	if err != nil {
		s.log.Error("saver: a checkpoint failed; characters stay dirty and are retried", logev.ID(4203), "err", err, "batches", len(items))
	}
	for i, it := range items {
		res := results[i]
		var be *store.BatchError
		if errors.As(res, &be) {
			s.log.Error("saver: a batch was refused", logev.ID(4204), logev.Zone(it.sb.Zone), "gen", it.sb.Gen, "fenced", be.Fenced, "stale", be.Stale, "conflicts", be.Conflicts)
		}
		if it.zb == nil {
			if it.done != nil {
				it.done(res)
			}
			continue
		}
		s.settle(it.zb, res)
		for _, b := range it.parts {
			if b.Done != nil {
				b.Done(res)
			}
		}
	}
}

func toStoreBatch(b *zone.SaveBatch) *store.Batch {
	out := &store.Batch{Zone: b.Zone, Gen: b.Gen, Chars: make([]*store.Character, len(b.Chars))}
	for i, c := range b.Chars {
		out.Chars[i] = toStore(c)
	}
	for _, r := range b.Rooms {
		out.Rooms = append(out.Rooms, store.RoomObjects{Room: r.Room, Items: toStoreItems(r.Items)})
	}
	return out
}
