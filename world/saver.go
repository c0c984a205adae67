package world

import (
	"errors"
	"log/slog"
	"sync"
	"time"

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

	mu     sync.Mutex
	q      []saverOp     // guarded by mu
	signal chan struct{} // capacity 1
	// failures counts commits that failed as a whole (disk full).
	failures int // saver goroutine only

	// inject, when set (by tests only), is asked before each commit; an
	// error it returns fails the commit as a full disk would.
	inject func() error

	lastCommit     time.Duration // saver goroutine only
	slowestCommit  time.Duration // saver goroutine only
	committedBytes int64         // saver goroutine only
}

type saverOp struct {
	batch *zone.SaveBatch
	load  *loadReq
	flush chan struct{} // closed once every op before it is done
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
	return &saver{db: db, log: log, signal: make(chan struct{}, 1)}
}

func (s *saver) push(op saverOp) {
	s.mu.Lock()
	s.q = append(s.q, op)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// queue takes a batch. It never blocks.
func (s *saver) queue(b *zone.SaveBatch) { s.push(saverOp{batch: b}) }

// load reads a character after every save queued before it.
func (s *saver) load(name string) (*store.Character, error) {
	r := &loadReq{name: name, reply: make(chan loadResult, 1)}
	s.push(saverOp{load: r})
	res := <-r.reply
	return res.c, res.err
}

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
		select {
		case <-s.signal:
		case <-stop:
			s.mu.Lock()
			empty := len(s.q) == 0
			s.mu.Unlock()
			if empty {
				return
			}
		}
		s.mu.Lock()
		ops := s.q
		s.q = nil
		s.mu.Unlock()
		s.process(ops)
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
			c, err := s.db.Character(op.load.name)
			op.load.reply <- loadResult{c, err}
		case op.flush != nil:
			commit()
			close(op.flush)
		}
	}
	commit()
}

func (s *saver) commit(batches []*zone.SaveBatch) {
	sb := make([]*store.Batch, len(batches))
	for i, b := range batches {
		sb[i] = toStoreBatch(b)
	}
	start := time.Now()
	var results []error
	var err error
	if s.inject != nil {
		err = s.inject()
	}
	if err == nil {
		results, err = s.db.Commit(sb)
	} else {
		results = make([]error, len(sb))
		for i := range results {
			results[i] = err
		}
	}
	took := time.Since(start)
	s.lastCommit = took
	s.slowestCommit = max(s.slowestCommit, took)
	if err != nil {
		s.failures++
		s.log.Error("saver: checkpoint failed; characters stay dirty and are retried", "err", err, "batches", len(batches))
	}
	for i, b := range batches {
		res := results[i]
		var be *store.BatchError
		if errors.As(res, &be) {
			s.log.Error("saver: batch refused", "zone", b.Zone, "stale", be.Stale, "conflicts", be.Conflicts)
		}
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
