package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// playersAt boots the starter village with the given players, all of
// level, standing in room.
func playersAt(t *testing.T, seed uint64, room string, level int, names ...string) (*zone.Zone, []*logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: seed})
	z.BootForTest()
	var out []*logSession
	for _, n := range names {
		s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
		z.Arrive(&zone.CharRecord{Name: n, Level: level}, s, room, "")
		z.DrainForTest()
		if got := z.PlayerRoomForTest(n); got != room {
			t.Fatalf("%s arrived in %q, want %q", n, got, room)
		}
		out = append(out, s)
	}
	return z, out
}

const (
	square = "emberfall:room:square"
	dog    = "emberfall:mob:dog"
)

// A wandering mob in a fight stays in it: its wander chances come and go
// while it fights, and it is still there, still fighting, at the end.
func TestCombat_WandererInAFightStays(t *testing.T) {
	z, ss := playersAt(t, 5, square, 30, "Pinner")
	if room, _ := z.MobFightForTest(dog); room != square {
		t.Fatalf("the dog is in %q after boot, want the square", room)
	}
	z.ToughenMobsForTest(dog)
	z.InputForTest(ss[0], 1, "kill dog")
	// The dog's wander_every is 60 pulses: 1,800 pulses are 30 chances,
	// each taken one time in three.
	for i := 0; i < 1800; i++ {
		z.TickForTest()
		z.DrainForTest()
		if room, foe := z.MobFightForTest(dog); room != square || foe != "Pinner" {
			t.Fatalf("pulse %d: the dog is in %q fighting %q; want it in the square fighting Pinner", i, room, foe)
		}
	}
}

// A mob whose foe flees turns on another of its attackers, and a mob that
// is hit while it fights nobody fights back: the party cannot beat a
// helpless mob that one of them pulled.
func TestCombat_MobHitAfterItsTargetFledFightsBack(t *testing.T) {
	z, ss := playersAt(t, 9, square, 30, "Puller", "Helper")
	z.ToughenMobsForTest(dog)
	puller, helper := ss[0], ss[1]
	z.InputForTest(puller, 1, "kill dog")
	z.InputForTest(helper, 1, "assist puller")
	if _, foe := z.MobFightForTest(dog); foe != "Puller" {
		t.Fatalf("the dog fights %q, want Puller", foe)
	}
	fled := false
	for seq := uint64(2); seq < 60 && !fled; seq++ {
		z.InputForTest(puller, seq, "flee")
		fled = strings.Contains(puller.text(), "You flee")
	}
	if !fled {
		t.Fatal("Puller never got away")
	}
	if _, foe := z.MobFightForTest(dog); foe != "Helper" {
		t.Fatalf("after Puller fled the dog fights %q, want Helper, who is still hitting it", foe)
	}
	before := len(helper.text())
	for i := 0; i < 100; i++ {
		z.TickForTest()
		z.DrainForTest()
	}
	if after := helper.text()[before:]; !strings.Contains(after, "A scruffy stray dog's bite") {
		t.Fatalf("ten rounds on, the dog never bit Helper back:\n%s", after)
	}
}
