package world

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/internal/markup"
	"zonemud/store"
	"zonemud/zone"
)

// nullSession is a session that keeps what it was sent.
type nullSession struct {
	id     uint64 // 0: 4242
	shut   atomic.Bool
	mu     sync.Mutex
	out    strings.Builder
	closes atomic.Int32
}

func (s *nullSession) ID() uint64 {
	if s.id == 0 {
		return 4242
	}
	return s.id
}
func (s *nullSession) Write(p []byte, b bool) bool {
	s.mu.Lock()
	s.out.Write(p)
	s.mu.Unlock()
	return true
}
func (s *nullSession) Close(string)            { s.closes.Add(1); s.shut.Store(true) }
func (s *nullSession) Width() int              { return 80 }
func (s *nullSession) GMCP(string, any)        {}
func (s *nullSession) Closed() bool            { return s.shut.Load() }
func (s *nullSession) Client() zone.ClientInfo { return zone.ClientInfo{} }
func (s *nullSession) SetColor(markup.Level)   {}
func (s *nullSession) ResetColor()             {}

// forget drops the output so far, so that saw looks only at what comes next.
func (s *nullSession) forget() {
	s.mu.Lock()
	s.out.Reset()
	s.mu.Unlock()
}

// saw reports whether the session has been sent text containing want.
func (s *nullSession) saw(want string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.out.String(), want)
}

// failingDisk is the real store behind a disk that refuses every write
// while failing is set, as a full disk does: the whole transaction fails.
type failingDisk struct {
	db      *store.DB
	failing atomic.Bool
	refused atomic.Int64 // commits refused so far
}

func (d *failingDisk) Commit(batches []*store.Batch) ([]error, error) {
	if !d.failing.Load() {
		return d.db.Commit(batches)
	}
	d.refused.Add(1)
	err := errors.New("no space left on device (a test's failing disk)")
	results := make([]error, len(batches))
	for i := range results {
		results[i] = err
	}
	return results, err
}

// failingDiskWorld starts a world that checkpoints every second over a
// disk that refuses every write while its failing flag is set; held
// leavers are retried every retry.
func failingDiskWorld(t *testing.T, retry time.Duration) (*World, *failingDisk) {
	zcfg := zone.DefaultConfig()
	zcfg.CheckpointSecs = 1
	w := testWorldCfg(t, zcfg)
	w.saver.retryEvery = retry
	disk := &failingDisk{db: w.db}
	w.saver.disk = disk
	w.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = w.Shutdown(ctx)
	})
	return w, disk
}

// saveAll checkpoints every zone and waits for the saver.
func saveAll(t *testing.T, w *World) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.SaveAll(ctx); err != nil {
		t.Fatal(err)
	}
}

// A disk that refuses writes fails checkpoints, never the game: the zone
// keeps answering, characters stay dirty, nothing committed is lost, and
// the first commit after the fault clears writes the current state.
func TestSaver_WriteErrorIsRetried(t *testing.T) {
	w, disk := failingDiskWorld(t, 5*time.Second)
	s := &nullSession{}
	rt, err := w.Enter("Disky", s)
	if err != nil {
		t.Fatal(err)
	}
	s.forget()
	rt.Input(1, "west")
	waitFor(t, func() bool { return s.saw("Market Row") })
	saveAll(t, w)
	if c, err := w.db.Character("Disky"); err != nil || c.Place.Room != "emberfall:room:market" {
		t.Fatalf("after a save with the disk well: %+v, %v", c, err)
	}
	disk.failing.Store(true)
	s.forget()
	rt.Input(2, "east")
	rt.Input(3, "north")
	waitFor(t, func() bool { return s.saw("Temple Street") })
	saveAll(t, w)
	if disk.refused.Load() == 0 {
		t.Fatal("no commit reached the failing disk")
	}
	c, err := w.db.Character("Disky")
	if err != nil || c.Place.Room != "emberfall:room:market" {
		t.Fatalf("during the fault the stored state changed or was lost: %+v, %v", c, err)
	}
	// The zone still answers.
	rt.Input(4, "say still here")
	waitFor(t, func() bool { return s.saw("still here") })
	disk.failing.Store(false)
	saveAll(t, w)
	if c, err := w.db.Character("Disky"); err != nil || c.Place.Room != "emberfall:room:north_street" {
		t.Fatalf("after the disk recovered, the next save did not write the current state: %+v, %v", c, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A character that quits while the disk refuses writes is out of every
// zone, so its failed save is the only copy of what it did: the saver
// holds it, a new login takes it instead of the store's older record, and
// once the disk recovers a held record is written without anyone logging in.
func TestSaver_LeaverOnAFailingDiskIsNotLost(t *testing.T) {
	w, disk := failingDiskWorld(t, 100*time.Millisecond)
	failing := &disk.failing
	stored := func(name, room, proto string) bool {
		c, err := w.db.Character(name)
		if err != nil || c.Place.Room != room {
			return false
		}
		for _, it := range c.Items {
			if it.Proto == proto {
				return true
			}
		}
		return proto == ""
	}
	play := func(name string) {
		s := &nullSession{}
		rt, err := w.Enter(name, s)
		if err != nil {
			t.Fatal(err)
		}
		s.forget()
		rt.Input(1, "west")
		waitFor(t, func() bool { return s.saw("Market Row") })
		saveAll(t, w)
		if !stored(name, "emberfall:room:market", "") {
			t.Fatalf("%s not saved in the market", name)
		}
		failing.Store(true)
		rt.Input(2, "east")
		rt.Input(3, "south")
		rt.Input(4, "get lantern")
		rt.Input(5, "quit")
		waitFor(t, func() bool { return w.Where(name) == nil })
		w.Flush()
	}

	// Back in while the disk still fails: the login gets the held record.
	play("Hella")
	s := &nullSession{}
	rt, err := w.Enter("Hella", s)
	if err != nil {
		t.Fatal(err)
	}
	failing.Store(false)
	rt.Input(6, "save")
	waitFor(t, func() bool { return stored("Hella", "emberfall:room:inn", "emberfall:item:lantern") })
	rt.Input(7, "quit")
	waitFor(t, func() bool { return w.Where("Hella") == nil })

	// Never back: the held record is written when the disk recovers.
	play("Holt")
	if stored("Holt", "emberfall:room:inn", "") {
		t.Fatal("a save committed while the disk was failing")
	}
	failing.Store(false)
	// (Hella took the inn's only lantern, so Holt's hands are empty.)
	waitFor(t, func() bool { return stored("Holt", "emberfall:room:inn", "") })
}

// A login that passed the world's stop check just before the shutdown
// asks the saver for its character after the saver has stopped: it is
// refused, not left waiting for ever (its session goroutine would outlive
// the server's shutdown).
func TestSaver_LoadAfterTheSaverStoppedIsRefused(t *testing.T) {
	w := testWorld(t)
	w.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	loaded := make(chan error, 1)
	go func() {
		_, err := w.loadRecord("Late")
		loaded <- err
	}()
	select {
	case err := <-loaded:
		if !errors.Is(err, ErrStopping) {
			t.Fatalf("a load after the saver stopped: %v, want ErrStopping", err)
		}
	case <-time.After(30 * time.Second): // a bound on a hang, not a measure
		t.Fatal("a load asked after the saver stopped never returned")
	}
	flushed := make(chan struct{})
	go func() { w.Flush(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(30 * time.Second):
		t.Fatal("a flush asked after the saver stopped never returned")
	}
}
