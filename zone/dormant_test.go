package zone_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

// An empty zone with nothing due soon stops ticking, and a player walking
// in wakes it with its clock caught up as if it had ticked all along. The
// world runs in a synctest bubble, so its clock is the test's and the
// pulse count is exact however busy the machine is.
func TestZone_DormantZoneSleepsAndCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
		if err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(filepath.Join(t.TempDir(), "dormant.db"), store.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w, err := world.New(set, db, world.DefaultConfig(), zone.DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		w.Start()
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := w.Shutdown(ctx); err != nil {
				t.Error(err)
			}
		}()
		ash := w.Zone("ashridge")
		for !ash.Dormant() {
			if time.Since(start) > time.Minute {
				t.Fatal("the empty zone never went dormant")
			}
			time.Sleep(zone.PulseInterval)
		}
		time.Sleep(30 * time.Second)

		s := newBenchSession()
		rt, err := w.Enter("Walker", s)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for i, dir := range []string{"east", "east", "east"} {
			rt.Input(uint64(i+1), dir)
			synctest.Wait()
		}
		if w.Where("Walker") != ash {
			t.Fatalf("Walker is in %v, want ashridge", w.Where("Walker"))
		}
		if ash.Dormant() {
			t.Fatal("the zone still sleeps with a player in it")
		}
		want := uint64(time.Since(start) / zone.PulseInterval)
		if got := ash.Pulses(); got+1 < want || got > want {
			t.Fatalf("after waking the zone's clock reads %d pulses, want %d", got, want)
		}
	})
}

// An empty zone sleeps through its checkpoints and idle sweeps: with
// nobody in it they have nothing to do, so they do not wake it, and an
// idle zone (or a thousand idle instance copies) costs nothing until
// something is really due. Its wandering mobs are made to stand still
// (they are real work and do wake it); then over two minutes, twelve
// checkpoint intervals, Ash Ridge may wake at most once (its ten-minute
// reset could fall in the window).
func TestZone_EmptyZoneSleepsThroughItsCheckpoints(t *testing.T) {
	set, err := content.Load(os.DirFS(quietAreas(t)))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		w := instWorldOf(t, set, world.InstanceConfig{})
		ash := w.Zone("ashridge")
		for start := time.Now(); !ash.Dormant(); time.Sleep(zone.PulseInterval) {
			if time.Since(start) > time.Minute {
				t.Fatal("the empty zone never went dormant")
			}
		}
		// Look between the zone's pulses, never on one.
		time.Sleep(zone.PulseInterval / 2)
		wakes, asleep := 0, true
		for range int(2 * time.Minute / zone.PulseInterval) {
			time.Sleep(zone.PulseInterval)
			synctest.Wait()
			now := ash.Dormant()
			if asleep && !now {
				wakes++
			}
			asleep = now
		}
		if wakes > 1 {
			t.Fatalf("the empty zone woke %d times in two minutes; its checkpoints (every %d s) and idle sweeps should not wake it",
				wakes, zone.DefaultConfig().CheckpointSecs)
		}
	})
}

// A zone that is awake pulses four times a second (the seed's 250 ms),
// by the bubble's clock, so the count is exact on any machine. The inbox
// a session posts into holds the seed's 256 lines.
func TestZone_PulsesFourTimesASecond(t *testing.T) {
	if zone.InboxSize != 256 {
		t.Errorf("the inbox holds %d messages, want 256", zone.InboxSize)
	}
	synctest.Test(t, func(t *testing.T) {
		w := startAwakeWorld(t, nil)
		z := w.Zone("emberfall")
		synctest.Wait()
		before := z.Pulses()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := z.Pulses() - before; got != 40 {
			t.Fatalf("%d pulses in 10 s, want 40", got)
		}
	})
}

// Seed 004-05: there is no global tick, so one zone stuck in a handler
// does not hold back another zone's pulse. Counted, not timed: while
// emberfall's goroutine waits inside a heartbeat's callback, ashridge must
// tick three more times (30 s is only the bound for a hang) and emberfall
// not once.
func TestZone_StuckZoneDoesNotHoldAnotherZonesPulse(t *testing.T) {
	w := startAwakeWorld(t, nil) // an empty zone keeps ticking, so a pause means a wait
	stuck, other := w.Zone("emberfall"), w.Zone("ashridge")
	if stuck == nil || other == nil {
		t.Fatal("emberfall and ashridge are not both hosted")
	}
	const bound = 30 * time.Second
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release) // before the world's shutdown, a cleanup
	if !stuck.Heartbeat(0, func() { close(entered); <-release }) {
		t.Fatal("emberfall has stopped")
	}
	select {
	case <-entered:
	case <-time.After(bound):
		t.Fatal("emberfall never handled the heartbeat")
	}
	held, from := stuck.Pulses(), other.Pulses()
	for deadline := time.Now().Add(bound); other.Pulses() < from+3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ashridge ticked %d times in %v while emberfall was stuck in a handler: its pulse waits for another zone", other.Pulses()-from, bound)
		}
	}
	if got := stuck.Pulses(); got != held {
		t.Fatalf("emberfall ticked from pulse %d to %d: it was not stuck, so the test shows nothing", held, got)
	}
}

// startAwakeWorld starts a world on the repository's areas and a fresh
// store whose zones never go dormant (an empty zone keeps ticking), with
// before (if not nil) run on it before it starts; the test's cleanup
// shuts it down, then closes the store.
func startAwakeWorld(t *testing.T, before func(*world.World)) *world.World {
	t.Helper()
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "awake.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	zcfg := zone.DefaultConfig()
	zcfg.Dormant = false
	w, err := world.New(set, db, world.DefaultConfig(), zcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(w)
	}
	w.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return w
}
