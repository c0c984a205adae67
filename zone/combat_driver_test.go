package zone

import "testing"

// One combat driver runs a zone's fights, however many there are, every
// round_pulses pulses, and it stops itself once nobody fights (seed 000,
// "every(PULSE_VIOLENCE), one driver per zone, self-cancelling"). The zone
// runs on the fakes of its host.
func TestCombat_OneDriverPerZoneThatStopsItself(t *testing.T) {
	z, _, _ := loggedZone(t)
	dog, room := z.set.Mobs["emberfall:mob:dog"], z.rooms["emberfall:room:square"]
	if dog == nil || room == nil {
		t.Fatal("the starter village lost its dog or its square")
	}
	var mobs []*Char
	for range 6 {
		m := z.spawnMob(dog, room)
		m.hp, m.maxHP = 1<<40, 1<<40
		z.wake(m) // its own pulse (regen, affects) runs apart from the fight
		mobs = append(mobs, m)
	}
	before := z.pulses.len()
	for i := 0; i < len(mobs); i += 2 {
		z.startFight(mobs[i], mobs[i+1])
	}
	if got := z.pulses.len() - before; got != 1 {
		t.Fatalf("three fights started %d pulse callbacks, want one driver", got)
	}
	if !z.combat.active() {
		t.Fatal("no combat driver runs while three fights go on")
	}
	round := uint64(z.set.Game.Combat.RoundPulses)
	for range 3 * round {
		z.TickForTest()
	}
	if !z.combat.active() || len(z.fighters) != 6 {
		t.Fatalf("after three rounds: driver running %v, %d fighters; want the driver and all six", z.combat.active(), len(z.fighters))
	}
	for i := 0; i < len(mobs); i += 2 {
		z.stopFighting(mobs[i])
		z.stopFighting(mobs[i+1])
	}
	for range round {
		z.TickForTest()
	}
	if z.combat.active() {
		t.Error("the combat driver still runs a round after the last fight ended")
	}
	if len(z.fighters) != 0 {
		t.Errorf("%d fighters listed after every fight ended", len(z.fighters))
	}
	// A fight after that starts one driver again.
	z.startFight(mobs[0], mobs[1])
	if !z.combat.active() {
		t.Error("a new fight started no combat driver")
	}
}
