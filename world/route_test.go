package world

import (
	"testing"
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
