package zone

import (
	"reflect"
	"testing"
)

func TestPulses_FireInRegistrationOrder(t *testing.T) {
	var p pulses
	var got []string
	p.after(2, func() { got = append(got, "a") })
	p.every(1, func() { got = append(got, "b") })
	p.after(2, func() { got = append(got, "c") })
	p.tick()
	p.tick()
	want := []string{"b", "a", "b", "c"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestPulses_PeriodicReschedules(t *testing.T) {
	var p pulses
	n := 0
	p.every(3, func() { n++ })
	for i := 0; i < 10; i++ {
		p.tick()
	}
	if n != 3 { // pulses 3, 6, 9
		t.Fatalf("fired %d times in 10 pulses, want 3", n)
	}
}

func TestPulses_OneShotFiresOnce(t *testing.T) {
	var p pulses
	n := 0
	h := p.after(1, func() { n++ })
	for i := 0; i < 5; i++ {
		p.tick()
	}
	if n != 1 || h.active() {
		t.Fatalf("fired %d times, active %v; want once, inactive", n, h.active())
	}
}

func TestPulses_CancelStopsIt(t *testing.T) {
	var p pulses
	n := 0
	h := p.every(1, func() { n++ })
	p.tick()
	h.cancel()
	p.tick()
	p.tick()
	if n != 1 {
		t.Fatalf("fired %d times, want 1", n)
	}
	if p.len() != 0 {
		t.Fatalf("%d callbacks left, want 0", p.len())
	}
}

// A callback cancelled by an earlier callback in the same tick does not fire.
func TestPulses_CancelDuringTick(t *testing.T) {
	var p pulses
	var later pulseHandle
	fired := false
	p.after(1, func() { later.cancel() })
	later = p.after(1, func() { fired = true })
	p.tick()
	if fired {
		t.Fatal("a callback cancelled earlier in the same tick fired")
	}
}

// Callbacks registered during a tick are merged in, not lost: the snapshot
// of the due list is taken before anything fires.
func TestPulses_RegisterDuringTickIsMerged(t *testing.T) {
	var p pulses
	var got []string
	p.after(1, func() {
		got = append(got, "first")
		p.after(1, func() { got = append(got, "child") })
		p.every(2, func() { got = append(got, "periodic-child") })
	})
	p.after(1, func() { got = append(got, "second") })
	p.tick()
	if want := []string{"first", "second"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after tick 1: got %v, want %v", got, want)
	}
	p.tick()
	p.tick()
	want := []string{"first", "second", "child", "periodic-child"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after tick 3: got %v, want %v", got, want)
	}
}

// A panicking callback is reported and the rest of the tick still runs.
func TestPulses_FaultDoesNotStopTheTick(t *testing.T) {
	var p pulses
	var faults []any
	p.fault = func(v any) { faults = append(faults, v) }
	ran := false
	p.after(1, func() { panic("boom") })
	p.after(1, func() { ran = true })
	p.tick()
	if len(faults) != 1 || !ran {
		t.Fatalf("faults %v, second ran %v; want one fault and the second to run", faults, ran)
	}
}

func TestPulses_SteadyTickAllocatesNothing(t *testing.T) {
	var p pulses
	for i := 0; i < 100; i++ {
		p.every(uint64(1000+i), func() {})
	}
	p.tick()
	if n := testing.AllocsPerRun(100, p.tick); n != 0 {
		t.Fatalf("a tick with nothing due allocated %v times, want 0", n)
	}
	p2 := pulses{}
	p2.every(1, func() {})
	p2.tick()
	if n := testing.AllocsPerRun(100, p2.tick); n != 0 {
		t.Fatalf("a tick firing a periodic allocated %v times, want 0", n)
	}
}

func TestPulses_CatchUpFiresAsIfTicked(t *testing.T) {
	var a, b pulses
	var gotA, gotB []uint64
	for _, p := range []*pulses{&a, &b} {
		p := p
		var got *[]uint64
		if p == &a {
			got = &gotA
		} else {
			got = &gotB
		}
		p.every(7, func() { *got = append(*got, p.now) })
		p.after(12, func() { *got = append(*got, 1000+p.now) })
	}
	for i := 0; i < 30; i++ {
		a.tick()
	}
	b.catchUp(30, nil)
	if !reflect.DeepEqual(gotA, gotB) || a.now != b.now {
		t.Fatalf("ticked: %v (now %d); caught up: %v (now %d)", gotA, a.now, gotB, b.now)
	}
}

func TestTaskQueue_ScheduleAndReplace(t *testing.T) {
	var q taskQueue
	var got []string
	run := func(fn func()) { fn() }
	key := taskKey{id: 7, kind: "lever"}
	q.Schedule(0, 2, func() { got = append(got, "plain") })
	q.ScheduleReplacing(key, 0, 2, func() { got = append(got, "pull-1") })
	q.ScheduleReplacing(key, 0, 3, func() { got = append(got, "pull-2") })
	q.ScheduleReplacing(taskKey{id: 7, kind: "door"}, 0, 1, func() { got = append(got, "door") })
	q.runDue(1, run)
	q.runDue(2, run)
	q.runDue(3, run)
	want := []string{"door", "plain", "pull-2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v (the second pull replaces the first; other kinds on the same id stand)", got, want)
	}
	if _, ok := q.nextDue(); ok {
		t.Fatal("tasks left after all ran")
	}
}

func TestTaskQueue_ScheduledWhileRunningWaits(t *testing.T) {
	var q taskQueue
	var got []string
	run := func(fn func()) { fn() }
	q.Schedule(0, 1, func() {
		got = append(got, "a")
		q.Schedule(1, 1, func() { got = append(got, "b") })
	})
	q.runDue(1, run)
	if !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("got %v after pulse 1, want [a]", got)
	}
	q.runDue(2, run)
	if !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("got %v after pulse 2, want [a b]", got)
	}
}
