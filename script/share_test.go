package script

import (
	"testing"
	"time"
)

// heavyTick does about 10,000 units of work a call; lightTick a handful.
const (
	heavyTick = "function on_tick()\n  local x = 0\n  for i = 1, 5000 do x = x + i end\nend"
	lightTick = "function on_tick()\n  self.state.n = (self.state.n or 0) + 1\nend"
)

// pulseOf runs one pulse of a zone as the zone does: StartPulse, then
// on_tick for every entity until the round is done or the VM says its
// pulse is spent. It returns how many ticks ran.
func pulseOf(w *world, ids []ID) int {
	w.vm.StartPulse()
	ran := 0
	for _, id := range ids {
		if !w.vm.Tick(id) {
			break
		}
		ran++
	}
	return ran
}

// TestShare_HeavyZonesYieldToALightOne runs 30 zones whose scripts each
// fill their own pulse budget, and one light zone, in one window of the
// process's share. Work is counted, never timed: the share's clock stands
// still, so every pulse below falls in one window.
func TestShare_HeavyZonesYieldToALightOne(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxInstructions = 20000
	cfg.PulseInstructions = 100000
	cfg.ProcessInstructions = 400000
	const zones, mobs = 30, 20

	run := func(share *Share) (total int64, lightRan int, heavy []*world) {
		var light *world
		for z := 0; z <= zones; z++ {
			w := newWorld(t, "zone", cfg)
			if share != nil {
				w.vm.UseShare(share)
			}
			src, n := heavyTick, mobs
			if z == zones {
				src, n, light = lightTick, 3, w
			} else {
				heavy = append(heavy, w)
			}
			var ids []ID
			for i := 0; i < n; i++ {
				ids = append(ids, char(uint64(i+1)))
				w.attach(ids[i], "zone:mob:m", src)
			}
			ran := pulseOf(w, ids)
			total += w.vm.PulseWork()
			if w == light {
				lightRan = ran
			}
		}
		return total, lightRan, heavy
	}

	// Without a share, each heavy zone spends its own budget.
	alone, _, _ := run(nil)
	if alone < zones*int64(cfg.PulseInstructions) {
		t.Fatalf("without a share the zones did %d units, want at least %d: the scripts are too light to test anything", alone, zones*cfg.PulseInstructions)
	}

	clock := time.Unix(1000, 0)
	share := NewShare(cfg, 250*time.Millisecond)
	share.now = func() time.Time { return clock }
	total, lightRan, heavy := run(share)
	// Once the share is spent, a heavy zone runs at most a light zone's
	// work and the call that crosses it.
	bound := int64(cfg.ProcessInstructions) + zones*int64(lightWork+cfg.MaxInstructions)
	if total > bound {
		t.Fatalf("with a share the zones did %d units in one window, over the bound of %d", total, bound)
	}
	if total >= alone/2 {
		t.Fatalf("with a share the zones did %d units, without %d: the share changed little", total, alone)
	}
	if lightRan != 3 {
		t.Fatalf("the light zone ran %d of its 3 ticks while the share was spent, want all", lightRan)
	}
	if got := share.Used(); got < total {
		t.Fatalf("share counted %d units, the VMs did %d in their pulses alone", got, total)
	}
	yielded := 0
	for _, w := range heavy {
		w.vm.StartPulse()
		yielded += int(w.vm.Stats().Yielded)
	}
	if yielded == 0 {
		t.Fatal("no heavy zone counted a pulse that yielded")
	}

	// A new window gives every zone its turn again.
	clock = clock.Add(250 * time.Millisecond)
	if share.Used() != 0 {
		t.Fatalf("a new window starts at %d units, want 0", share.Used())
	}
}

// TestMeter_HangGuardWaitsForAStarvedCall drives the guard's timer function
// by hand: a call whose count moved, or whose timer came late (the process
// had no CPU to give), is looked at again; a call with no progress over a
// whole interval, on a machine with CPU to spare, is stopped.
func TestMeter_HangGuardWaitsForAStarvedCall(t *testing.T) {
	m := newMeter()
	defer m.stop()
	due := func(late time.Duration) { // make the armed deadline pass, late by late
		m.mu.Lock()
		m.at = time.Now().Add(-late)
		m.mu.Unlock()
	}
	m.arm(1<<40, time.Hour, time.Now())
	for i := 0; i < 64; i++ {
		m.Done() // 64 units: the check point records the progress
	}
	due(0)
	m.expire()
	if m.hung() {
		t.Fatal("the guard stopped a call that made progress")
	}
	due(time.Second)
	m.expire()
	if m.hung() {
		t.Fatal("the guard stopped a call when its own timer came a second late")
	}
	due(0)
	m.expire()
	if !m.hung() {
		t.Fatal("the guard let a call with no progress over an interval run on")
	}
	// The next call starts afresh.
	m.arm(1<<40, time.Hour, time.Now())
	if m.hung() {
		t.Fatal("a new call starts hung")
	}
}
