package world

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/zone"
)

type nullSession struct {
	z atomic.Pointer[zone.Zone]
}

func (s *nullSession) ID() uint64                  { return 4242 }
func (s *nullSession) Write(p []byte, b bool) bool { return true }
func (s *nullSession) Close(string)                {}
func (s *nullSession) SetZone(z *zone.Zone)        { s.z.Store(z) }
func (s *nullSession) Zone() *zone.Zone            { return s.z.Load() }
func (s *nullSession) Width() int                  { return 80 }
func (s *nullSession) GMCP(string, any)            {}
func (s *nullSession) Closed() bool                { return false }
func (s *nullSession) Client() zone.ClientInfo     { return zone.ClientInfo{} }
func (s *nullSession) SetColor(int)                {}

// failingDiskWorld starts a world that checkpoints every second over a
// disk that refuses every write while the returned flag is set; held
// leavers are retried every retry.
func failingDiskWorld(t *testing.T, retry time.Duration) (*World, *atomic.Bool) {
	zcfg := zone.DefaultConfig()
	zcfg.CheckpointSecs = 1
	w := testWorldCfg(t, zcfg)
	w.saver.retryEvery = retry
	failing := new(atomic.Bool)
	w.saver.inject = func() error {
		if failing.Load() {
			return errors.New("no space left on device (injected)")
		}
		return nil
	}
	w.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = w.Shutdown(ctx)
	})
	return w, failing
}

// A disk that refuses writes fails checkpoints, never the game: the zone
// keeps answering, characters stay dirty, nothing committed is lost, and
// the first commit after the fault clears writes the current state.
func TestSaver_WriteErrorIsRetried(t *testing.T) {
	w, failing := failingDiskWorld(t, 5*time.Second)
	s := &nullSession{}
	if err := w.Enter("Disky", s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Zone() != nil })
	z := s.Zone()
	z.Input(s, 1, "west")
	w.Flush()
	waitFor(t, func() bool {
		c, err := w.db.Character("Disky")
		return err == nil && c.Place.Room == "emberfall:room:market"
	})
	failing.Store(true)
	z.Input(s, 2, "east")
	z.Input(s, 3, "north")
	time.Sleep(2500 * time.Millisecond) // checkpoints come and fail
	c, err := w.db.Character("Disky")
	if err != nil || c.Place.Room != "emberfall:room:market" {
		t.Fatalf("during the fault the stored state changed or was lost: %+v, %v", c, err)
	}
	// The zone still answers.
	done := make(chan struct{})
	_ = z.Query(context.Background(), func(*zone.Zone) { close(done) })
	<-done
	failing.Store(false)
	waitFor(t, func() bool {
		c, err := w.db.Character("Disky")
		return err == nil && c.Place.Room == "emberfall:room:north_street"
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A character that quits while the disk refuses writes is out of every
// zone, so its failed save is the only copy of what it did: the saver
// holds it, a new login takes it instead of the store's older record, and
// once the disk recovers a held record is written without anyone logging in.
func TestSaver_LeaverOnAFailingDiskIsNotLost(t *testing.T) {
	w, failing := failingDiskWorld(t, 100*time.Millisecond)
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
		if err := w.Enter(name, s); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return s.Zone() != nil })
		s.Zone().Input(s, 1, "west")
		waitFor(t, func() bool { return stored(name, "emberfall:room:market", "") })
		failing.Store(true)
		z := s.Zone()
		z.Input(s, 2, "east")
		z.Input(s, 3, "south")
		z.Input(s, 4, "get lantern")
		z.Input(s, 5, "quit")
		waitFor(t, func() bool { return w.Where(name) == nil })
		w.Flush()
	}

	// Back in while the disk still fails: the login gets the held record.
	play("Hella")
	s := &nullSession{}
	if err := w.Enter("Hella", s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Zone() != nil })
	failing.Store(false)
	s.Zone().Input(s, 6, "save")
	waitFor(t, func() bool { return stored("Hella", "emberfall:room:inn", "emberfall:item:lantern") })
	s.Zone().Input(s, 7, "quit")
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
