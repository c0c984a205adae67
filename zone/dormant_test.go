package zone_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/server/servertest"
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
		set, err := content.Load(os.DirFS(filepath.Join(servertest.Root(), "areas")))
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
