package world

import (
	"os"
	"testing"
	"testing/synctest"

	"zonemud/content"
	"zonemud/zone"
)

// enterRoute logs a character in on a null session and returns its route.
func enterRoute(t testing.TB, w *World, name string) (*Route, *nullSession) {
	t.Helper()
	s := &nullSession{}
	rt, err := w.Enter(name, s)
	if err != nil {
		t.Fatal(err)
	}
	return rt, s
}

// The lookup a route makes for every line a player types reads the
// residency index and allocates nothing.
func TestRoute_LookupAllocatesNothing(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	rt, _ := enterRoute(t, w, "Router")
	if z, _, _ := rt.lookup(); z != w.Zone("emberfall") {
		t.Fatalf("the route leads to %v, want emberfall", z)
	}
	if n := testing.AllocsPerRun(1000, func() { rt.lookup() }); n != 0 {
		t.Fatalf("a route lookup allocated %.1f times, want 0", n)
	}
}

// A route follows its character across a border, and leads nowhere once
// the character has left the world.
func TestRoute_FollowsTheCharacter(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	rt, s := enterRoute(t, w, "Rover")
	for i := range 3 {
		if !rt.Input(uint64(i+1), "east") {
			t.Fatalf("line %d refused", i+1)
		}
	}
	waitFor(t, func() bool { z, _, _ := rt.lookup(); return z == w.Zone("ashridge") })
	if !rt.Input(4, "look") {
		t.Fatal("a line after the crossing was refused")
	}
	waitFor(t, func() bool { return s.saw("The Ridge Road") })
	rt.Input(5, "quit")
	waitFor(t, func() bool { return w.Where("Rover") == nil })
	if rt.Input(6, "look") {
		t.Fatal("a route to a character that quit took a line")
	}
}

// A second login that comes while the first still loads the character
// takes it in; the first is closed, and when its connection then ends,
// the character the second one plays is not left link-dead.
func TestRoute_LoginWhileTheFirstLoads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := content.Load(os.DirFS("../areas"))
		if err != nil {
			t.Fatal(err)
		}
		w, disk := heldDiskWorld(t, set)
		// A batch the saver is stuck writing: the first login's load
		// waits behind it.
		disk.held.Store(true)
		w.saver.queue(&zone.SaveBatch{Zone: "held"})
		first, second := &nullSession{id: 1}, &nullSession{id: 2}
		type entered struct {
			rt  *Route
			err error
		}
		done := make(chan entered, 1)
		go func() {
			rt, err := w.Enter("Twice", first)
			done <- entered{rt, err}
		}()
		synctest.Wait()
		rt2, err := w.Enter("Twice", second)
		if err != nil {
			t.Fatal(err)
		}
		disk.release()
		e := <-done
		synctest.Wait()
		if !first.Closed() {
			t.Fatal("the first login was not closed")
		}
		if e.err == nil {
			// The gate plays what Enter returns, and tells the route when
			// that connection ends: the first one has been closed.
			e.rt.Dropped()
			synctest.Wait()
		}
		second.forget()
		rt2.Input(1, "look")
		synctest.Wait()
		if !second.saw("Emberfall Square") {
			t.Fatal("the second login no longer plays the character once the first one's connection ended")
		}
		if st := w.Where("Twice"); st == nil {
			t.Fatal("the character left the world")
		}
	})
}

// BenchmarkRoute_Lookup is the lookup on the routing path, once per line a
// player types.
func BenchmarkRoute_Lookup(b *testing.B) {
	w := startedWorld(b, DefaultConfig(), nil)
	rt, _ := enterRoute(b, w, "Bencher")
	b.ReportAllocs()
	for b.Loop() {
		rt.lookup()
	}
}
