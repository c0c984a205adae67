package world

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/store"
	"zonemud/zone"
)

// gatedDisk is the real store behind a gate: the first commit waits until
// the test opens the gate, so that everything queued meanwhile reaches the
// saver as one backlog, as it does when the saver falls behind. It counts
// the commits and the character records each one wrote.
type gatedDisk struct {
	db      *store.DB
	entered chan struct{} // closed when the first commit waits at the gate
	gate    chan struct{} // closed by the test
	once    sync.Once
	mu      sync.Mutex
	records []int // per commit, the character records written
}

func (d *gatedDisk) Commit(batches []*store.Batch) ([]error, error) {
	first := false
	d.once.Do(func() { first = true })
	if first {
		close(d.entered)
		<-d.gate
	}
	n := 0
	for _, b := range batches {
		n += len(b.Chars)
	}
	d.mu.Lock()
	d.records = append(d.records, n)
	d.mu.Unlock()
	return d.db.Commit(batches)
}

// commits returns the records written by each commit after the gated one.
func (d *gatedDisk) commits() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int(nil), d.records[1:]...)
}

// gatedSaver starts a saver over a fresh store whose first commit (of a
// batch it queues itself) waits at the gate; it returns once the saver is
// waiting there.
func gatedSaver(t *testing.T) (*saver, *gatedDisk) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := newSaver(db, slog.New(slog.DiscardHandler))
	d := &gatedDisk{db: db, entered: make(chan struct{}), gate: make(chan struct{})}
	s.disk = d
	stop := make(chan struct{})
	go s.run(stop)
	t.Cleanup(func() {
		d.once.Do(func() {})
		select {
		case <-d.gate:
		default:
			close(d.gate)
		}
		close(stop)
		<-s.stopped
	})
	s.queue(batch("gate", rec("Gatekeeper", "gate:room:a")))
	select {
	case <-d.entered:
	case <-time.After(30 * time.Second): // a bound on a hang
		t.Fatal("the saver never committed")
	}
	return s, d
}

func rec(name, room string) *zone.CharRecord {
	zoneID, _, _ := strings.Cut(room, ":")
	return &zone.CharRecord{Name: name, Zone: zoneID, Room: room, Created: 1}
}

func batch(zoneID string, recs ...*zone.CharRecord) *zone.SaveBatch {
	return &zone.SaveBatch{Zone: zoneID, Chars: recs}
}

// flushed waits for everything queued so far, with a bound on a hang.
func flushed(t *testing.T, s *saver) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.flush(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a flush never returned")
	}
}

func storedRoom(t *testing.T, s *saver, name string) string {
	t.Helper()
	c, err := s.db.Character(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c.Place.Room
}

// A saver that fell behind a zone's checkpoints writes each character once
// in the commit that catches up, not once per checkpoint it missed: 400
// checkpoints of the same 50 walkers are 50 records, the last of each,
// and every checkpoint is told it committed. Without this the backlog
// grows while the saver writes it (each commit is as long as the
// backlog), which is how 10,000 walking players held 2 GiB.
func TestSaver_BackloggedCheckpointsWriteEachCharacterOnce(t *testing.T) {
	s, d := gatedSaver(t)
	const walkers, checkpoints = 50, 400
	var mu sync.Mutex
	answered, failed := 0, 0
	for i := range checkpoints {
		b := &zone.SaveBatch{Zone: "g000"}
		for w := range walkers {
			b.Chars = append(b.Chars, rec(fmt.Sprintf("Walker%c%c", 'a'+w/26, 'a'+w%26), fmt.Sprintf("g000:room:%d", i%10)))
		}
		b.Done = func(err error) {
			mu.Lock()
			answered++
			if err != nil {
				failed++
			}
			mu.Unlock()
		}
		s.queue(b)
	}
	close(d.gate)
	flushed(t, s)
	written := 0
	for _, n := range d.commits() {
		written += n
	}
	if written > walkers {
		t.Errorf("the saver wrote %d records for %d characters in %d checkpoints; want at most one each (commits: %v)", written, walkers, checkpoints, d.commits())
	}
	if answered != checkpoints || failed != 0 {
		t.Errorf("%d checkpoints answered, %d failed; want %d answered, none failed", answered, failed, checkpoints)
	}
	if got, want := storedRoom(t, s, "Walkeraa"), fmt.Sprintf("g000:room:%d", (checkpoints-1)%10); got != want {
		t.Errorf("stored room %q, want the last checkpoint's %q", got, want)
	}
}

// A zone's later checkpoint is not folded into its earlier one across
// another zone's batch that holds the same character: the character's
// records are written in the order they were taken, so the newest wins.
func TestSaver_CoalescingKeepsACharactersOrderAcrossZones(t *testing.T) {
	s, d := gatedSaver(t)
	s.queue(batch("g001", rec("Other", "g001:room:a")))   // X, the earlier
	s.queue(batch("g002", rec("Crosser", "g002:room:a"))) // Y: Crosser there
	s.queue(batch("g001", rec("Crosser", "g001:room:b"))) // X again: Crosser back
	close(d.gate)
	flushed(t, s)
	if got := storedRoom(t, s, "Crosser"); got != "g001:room:b" {
		t.Errorf("Crosser stored in %q: an older record of another zone's was written over the newest", got)
	}
}

// A give between two players saved by two checkpoints of their zone is
// judged whole once the checkpoints are joined: the giver's later record
// without the item and the taker's with it go in together, so the item's
// ledger sees its old holder rewritten, and nothing is refused.
func TestSaver_JoinedCheckpointsKeepTheLedgerWhole(t *testing.T) {
	s, d := gatedSaver(t)
	giver := rec("Giver", "g003:room:a")
	giver.Items = []zone.ItemRecord{{ID: 77, Proto: "g003:item:gem"}}
	close(d.gate)
	s.queue(batch("g003", giver, rec("Taker", "g003:room:a")))
	flushed(t, s)

	// Block again behind a commit of another zone's, then queue the give
	// in one checkpoint and the giver's next step in another.
	d2 := &gatedDisk{db: s.db, entered: make(chan struct{}), gate: make(chan struct{})}
	s.disk = d2
	s.queue(batch("gate", rec("Gatekeeper", "gate:room:a")))
	<-d2.entered
	var results []error
	var mu sync.Mutex
	done := func(err error) { mu.Lock(); results = append(results, err); mu.Unlock() }
	taker := rec("Taker", "g003:room:a")
	taker.Items = []zone.ItemRecord{{ID: 77, Proto: "g003:item:gem"}}
	b1 := batch("g003", rec("Giver", "g003:room:a"), taker)
	b1.Done = done
	b2 := batch("g003", rec("Giver", "g003:room:a"))
	b2.Done = done
	s.queue(b1)
	s.queue(b2)
	close(d2.gate)
	flushed(t, s)
	for _, err := range results {
		if err != nil {
			t.Errorf("a joined checkpoint was refused: %v", err)
		}
	}
	c, err := s.db.Character("Taker")
	if err != nil || len(c.Items) != 1 || c.Items[0].ID != 77 {
		t.Errorf("the taker's stored items: %+v, %v; want the gem", c, err)
	}
}

// A load waits for the saves of its own character queued before it, and
// for no other: in a login storm behind a backlog of checkpoints, each
// login used to cost a commit (an fsync) of everything before it.
func TestSaver_LoadCommitsOnlyForItsOwnCharacter(t *testing.T) {
	s, d := gatedSaver(t)
	s.queue(batch("g004", rec("Walker", "g004:room:a")))
	other := make(chan error, 1)
	go func() { _, err := s.load("Nobody"); other <- err }()
	// The load must be queued before the next batch; the saver is blocked,
	// so wait until the queue holds it.
	for s.q.Len() < 2 {
		time.Sleep(time.Millisecond)
	}
	s.queue(batch("g004", rec("Walker", "g004:room:b")))
	own := make(chan string, 1)
	for s.q.Len() < 3 {
		time.Sleep(time.Millisecond)
	}
	go func() {
		c, err := s.load("Walker")
		if err != nil {
			own <- err.Error()
			return
		}
		own <- c.Place.Room
	}()
	for s.q.Len() < 4 {
		time.Sleep(time.Millisecond)
	}
	close(d.gate)
	flushed(t, s)
	if err := <-other; err == nil {
		t.Error("a load of a character never saved found one")
	}
	if got := <-own; got != "g004:room:b" {
		t.Errorf("the walker's load read %q; want the save queued before it", got)
	}
	if n := len(d.commits()); n != 1 {
		t.Errorf("%d commits after the backlog; want one (the load of another character forced none, the walker's load waited for its own)", n)
	}
}

// Checkpoints that nothing waits on gather for the commit gap and share one
// transaction: ten zones' crossings, each taken by the saver before the
// next was queued, are one commit at the flush, not ten (every commit
// rewrites its pages and syncs the file: a world of walkers committed a
// hundred times a second).
func TestSaver_CheckpointsWithinTheGapShareACommit(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := newSaver(db, slog.New(slog.DiscardHandler))
	s.commitGap = time.Hour
	d := &gatedDisk{db: db, entered: make(chan struct{}), gate: make(chan struct{})}
	close(d.gate)
	s.disk = d
	stop := make(chan struct{})
	go s.run(stop)
	t.Cleanup(func() { close(stop); <-s.stopped })
	// The first commit is not held: no commit came before it.
	s.queue(batch("g010", rec("First", "g010:room:a")))
	flushed(t, s)
	for i := range 10 {
		s.queue(batch(fmt.Sprintf("g%03d", 20+i), rec(fmt.Sprintf("Walker%c", 'a'+i), fmt.Sprintf("g%03d:room:a", 20+i))))
		for s.q.Len() > 0 { // taken by the saver before the next is queued
			time.Sleep(time.Millisecond)
		}
	}
	flushed(t, s)
	if n := len(d.commits()); n != 1 {
		t.Errorf("ten checkpoints within the gap took %d commits, want one", n)
	}
	if got := storedRoom(t, s, "Walkerj"); got != "g029:room:a" {
		t.Errorf("the last walker stored in %q", got)
	}
}

// A character leaving the world is written without waiting out the gap:
// a tell to them, or their next login, looks them up in the store.
func TestSaver_LeaverCommitsWithoutTheGap(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "s.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := newSaver(db, slog.New(slog.DiscardHandler))
	s.commitGap = time.Hour
	stop := make(chan struct{})
	go s.run(stop)
	t.Cleanup(func() { close(stop); <-s.stopped })
	s.queue(batch("g010", rec("First", "g010:room:a")))
	flushed(t, s)
	b := batch("g011", rec("Quitter", "g011:room:a"))
	b.Leaving = []string{"Quitter"}
	s.queue(b)
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang
	for {
		if _, err := db.Character("Quitter"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a leaver's save waited for the commit gap")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
