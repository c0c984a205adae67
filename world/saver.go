package world

import (
	"errors"
	"log/slog"
	"slices"
	"time"

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
	return &saver{db: db, disk: db, log: log, q: queue.New[saverOp](queue.Options{KeepCap: 1024}),
		held: map[string]*heldRecord{}, retryEvery: 5 * time.Second}
}

// push queues op. It never blocks: the saver's queue has no limit and is
// never closed.
func (s *saver) push(op saverOp) { _ = s.q.Push(op) }

// queue takes a batch. It never blocks.
func (s *saver) queue(b *zone.SaveBatch) { s.push(saverOp{batch: b}) }

// load reads a character after every save queued before it.
func (s *saver) load(name string) (*store.Character, error) {
	r := &loadReq{name: name, reply: make(chan loadResult, 1)}
	s.push(saverOp{load: r})
	res := <-r.reply
	return res.c, res.err
}

// release drops any held record of name, after saves queued before it.
func (s *saver) release(name string) { s.push(saverOp{release: name}) }

// flush waits until everything queued so far is written.
func (s *saver) flush() {
	done := make(chan struct{})
	s.push(saverOp{flush: done})
	<-done
}

// run is the saver loop. It returns when stop is closed and the queue is
// empty.
func (s *saver) run(stop <-chan struct{}) {
	for {
		var retry <-chan time.Time
		if len(s.held) > 0 {
			retry = time.After(s.retryEvery)
		}
		select {
		case <-s.q.Signal():
		case <-retry:
			s.commit(nil)
			continue
		case <-stop:
			if s.q.Len() == 0 {
				s.finish()
				return
			}
		}
		ops := s.q.Pop()
		s.process(ops)
		s.q.Recycle(ops)
	}
}

// process runs ops in order, committing each run of consecutive batches in
// one transaction (group commit: one fsync for many zones' checkpoints).
func (s *saver) process(ops []saverOp) {
	var pending []*zone.SaveBatch
	commit := func() {
		if len(pending) > 0 {
			s.commit(pending)
			pending = pending[:0]
		}
	}
	for _, op := range ops {
		switch {
		case op.batch != nil:
			pending = append(pending, op.batch)
		case op.load != nil:
			commit()
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
			commit()
			delete(s.held, op.release)
		case op.flush != nil:
			commit()
			close(op.flush)
		}
	}
	commit()
}

// finish makes a last attempt at the held records when the world stops,
// and names in the log every character whose last progress is lost.
func (s *saver) finish() {
	if len(s.held) == 0 {
		return
	}
	s.commit(nil)
	for name, h := range s.held {
		s.log.Error("saver: character's last save never committed; its progress since the one before is lost", "name", name, "zone", h.zone)
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
// and is dropped; any other is held for the next commit.
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
					s.log.Warn("saver: a leaver's save did not commit; holding it to retry", "name", name, "zone", b.Zone, "err", res)
					s.held[name] = &heldRecord{zone: b.Zone, rec: rec}
				}
				break
			}
		}
	}
}

func (s *saver) commit(batches []*zone.SaveBatch) {
	if len(s.held) > 0 {
		batches = append(batches[:len(batches):len(batches)], s.heldBatch())
	}
	if len(batches) == 0 {
		return
	}
	sb := make([]*store.Batch, len(batches))
	for i, b := range batches {
		sb[i] = toStoreBatch(b)
	}
	results, err := s.disk.Commit(sb)
	if err != nil {
		s.log.Error("saver: checkpoint failed; characters stay dirty and are retried", "err", err, "batches", len(batches))
	}
	for i, b := range batches {
		res := results[i]
		var be *store.BatchError
		if errors.As(res, &be) {
			s.log.Error("saver: batch refused", "zone", b.Zone, "stale", be.Stale, "conflicts", be.Conflicts)
		}
		s.settle(b, res)
		if b.Done != nil {
			b.Done(res)
		}
	}
}

func toStoreBatch(b *zone.SaveBatch) *store.Batch {
	out := &store.Batch{Zone: b.Zone, Chars: make([]*store.Character, len(b.Chars))}
	for i, c := range b.Chars {
		out.Chars[i] = toStore(c)
	}
	for _, r := range b.Rooms {
		out.Rooms = append(out.Rooms, store.RoomObjects{Room: r.Room, Items: toStoreItems(r.Items)})
	}
	return out
}
