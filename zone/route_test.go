package zone_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"zonemud/world"
	"zonemud/zone"
)

// runningWorld starts the starter world over a real store, inside the
// caller's synctest bubble, and shuts it down when the test ends.
func runningWorld(t *testing.T) *world.World {
	t.Helper()
	return instWorld(t, world.InstanceConfig{})
}

// rosterEntry finds a player in a zone's published roster.
func rosterEntry(z *zone.Zone, name string) (zone.RosterEntry, bool) {
	for _, e := range z.Roster() {
		if e.Name == name {
			return e, true
		}
	}
	return zone.RosterEntry{}, false
}

// A connection that ends as its character crosses a border is reported to
// the zone it left (the route read the residency index just before the
// crossing); that zone passes the drop on through the shard, so the
// character goes link-dead where it is rather than playing on, online, on
// a dead connection.
func TestTransfer_DropDuringTheCrossingFollows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := runningWorld(t)
		s := newBenchSession()
		rt, err := w.Enter("Hopper", s)
		if err != nil {
			t.Fatal(err)
		}
		for i, dir := range []string{"east", "east", "east"} {
			rt.Input(uint64(i+1), dir)
			synctest.Wait()
		}
		ash := w.Zone("ashridge")
		if w.Where("Hopper") != ash {
			t.Fatalf("Hopper is routed to %v, want ashridge", w.Where("Hopper"))
		}
		w.Zone("emberfall").Dropped(s, "Hopper")
		synctest.Wait()
		if e, ok := rosterEntry(ash, "Hopper"); !ok || !e.LinkDead {
			t.Fatalf("after a drop posted to the zone it left, Ash Ridge lists Hopper as %+v (held %v); want link-dead", e, ok)
		}
	})
}

// A line posted to the zone a character just left, by a route that read
// the residency index before the crossing, is passed on through the
// shard and runs once, in the zone that holds the character now.
func TestTransfer_InputDuringTheCrossingFollows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := runningWorld(t)
		s := newBenchSession()
		rt, err := w.Enter("Skipper", s)
		if err != nil {
			t.Fatal(err)
		}
		for i, dir := range []string{"east", "east", "east"} {
			rt.Input(uint64(i+1), dir)
			synctest.Wait()
		}
		w.Zone("emberfall").Input(s, "Skipper", 4, "east") // a stale route's post
		synctest.Wait()
		if !strings.Contains(s.Last(), "The Pithead") {
			t.Fatalf("the line posted to the zone left behind did not run where Skipper is: %q", s.Last())
		}
		w.Zone("emberfall").Input(s, "Skipper", 4, "west") // the same seq again: applied once only
		synctest.Wait()
		if !strings.Contains(s.Last(), "The Pithead") {
			t.Fatalf("a line was applied twice: %q", s.Last())
		}
	})
}

// An admin's stat asked of the zone a player just left (the world read
// the index before the crossing) follows the player and is answered by
// the zone that holds them, not with "not in the world".
func TestStat_FollowsAPlayerAcrossABorder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := runningWorld(t)
		s := newBenchSession()
		rt, err := w.Enter("Strider", s)
		if err != nil {
			t.Fatal(err)
		}
		for i, dir := range []string{"east", "east", "east"} {
			rt.Input(uint64(i+1), dir)
			synctest.Wait()
		}
		var got zone.StatInfo
		var held bool
		w.Zone("emberfall").Stat("Strider", func(si zone.StatInfo, ok bool) { got, held = si, ok })
		synctest.Wait()
		if !held || got.Template != "ashridge" {
			t.Fatalf("stat asked of the zone Strider left answered held %v, %+v; want the answer from Ash Ridge", held, got)
		}
	})
}

// A player crossing a border can be in the rosters of both zones for a
// moment (each zone publishes its own); who lists them once, where the
// residency index says they are, and counts them once.
func TestWho_ListsACrossingPlayerOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := runningWorld(t)
		s := newBenchSession()
		rt, err := w.Enter("Crosser", s)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		here, ok := rosterEntry(w.Zone("emberfall"), "Crosser")
		if !ok {
			t.Fatal("Crosser is not in Emberfall's roster")
		}
		stale := here
		stale.Zone = "Stale Zone"
		w.Zone("ashridge").SetRosterForTest([]zone.RosterEntry{stale})
		rt.Input(1, "who")
		synctest.Wait()
		out := s.Last()
		if n := strings.Count(out, "Crosser"); n != 1 || strings.Contains(out, "Stale Zone") {
			t.Fatalf("who lists Crosser %d times (want once, where the world holds them):\n%s", n, out)
		}
		if !strings.Contains(out, "One player is in the world.") {
			t.Fatalf("who counts a crossing player twice:\n%s", out)
		}
	})
}
