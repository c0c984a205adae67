package zone_test

import (
	"strings"
	"sync"
	"testing"

	"zonemud/content"
	"zonemud/zone"
)

// logSession records everything a zone sends it.
type logSession struct {
	benchSession
	mu  sync.Mutex
	all strings.Builder
}

func (s *logSession) Write(p []byte, prompt bool) bool {
	s.mu.Lock()
	s.all.Write(p)
	s.mu.Unlock()
	return true
}

func (s *logSession) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all.String()
}

func gameZone(t *testing.T, seed uint64) (*zone.Zone, *logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: seed})
	z.BootForTest()
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Duelist", Level: 1}, s, "emberfall:room:cellar", "")
	z.DrainForTest()
	return z, s
}

// fight runs a fight with a rat to its end and returns what the player saw.
func fight(t *testing.T, seed uint64) string {
	z, s := gameZone(t, seed)
	z.InputForTest(s, 1, "kill rat")
	for i := 0; i < 2000 && !strings.Contains(s.text(), "is DEAD!") && !strings.Contains(s.text(), "slain"); i++ {
		z.TickForTest()
		z.DrainForTest()
	}
	out := s.text()
	if !strings.Contains(out, "is DEAD!") {
		t.Fatalf("seed %d: the fight did not end with the rat dead:\n%s", seed, out)
	}
	return out
}

// A fight replays exactly from the zone's seed: every roll comes from its
// RNG, in a fixed order.
func TestCombat_ReplaysExactlyFromSeed(t *testing.T) {
	a, b := fight(t, 42), fight(t, 42)
	if a != b {
		t.Fatalf("same seed, different fights:\n--- first\n%s\n--- second\n%s", a, b)
	}
	c := fight(t, 43)
	if c == a {
		t.Fatal("a different seed gave the very same fight; the RNG is not in play")
	}
	both := a + c
	for _, want := range []string{"You attack a giant rat!", "Your punch", "giant rat's bite", "You gain"} {
		if !strings.Contains(both, want) {
			t.Errorf("the fights never showed %q", want)
		}
	}
}

// The combat formulas: a level 1 player against a rat hits at the rate the
// data's hit_chance gives, within statistical bounds over many swings.
func TestCombat_HitRateFollowsTheFormula(t *testing.T) {
	z, s := gameZone(t, 7)
	hit, miss := 0, 0
	for round := 0; round < 40; round++ {
		z.InputForTest(s, uint64(round+1), "kill rat")
		for i := 0; i < 200 && !strings.Contains(s.text(), "is DEAD!"); i++ {
			z.TickForTest()
			z.DrainForTest()
		}
		out := s.text()
		hit += strings.Count(out, "Your punch hits") + strings.Count(out, "Your punch scratches") + strings.Count(out, "Your punch glances")
		miss += strings.Count(out, "Your punch misses") + strings.Count(out, "dodges your punch")
		s.all.Reset()
		z.ResetForTest()
	}
	// hit_chance = 75 + 0 + hitroll(1)*3 - armor(0) = 78%, less the rat's
	// dodge (0): about 78% of swings land.
	rate := float64(hit) / float64(hit+miss)
	if hit+miss < 100 || rate < 0.65 || rate > 0.90 {
		t.Fatalf("%d hits, %d misses (%.2f); want about 0.78 over at least 100 swings", hit, miss, rate)
	}
}

// Affect stacking: stack adds up to the cap and refreshes; refresh starts
// the time again; extend adds time, capped; the modifiers count per stack.
func TestAffects_Stacking(t *testing.T) {
	z, s := gameZone(t, 1)
	_ = s
	z.ApplyAffectForTest("Duelist", "poisoned")
	for i := 0; i < 10; i++ {
		z.TickForTest()
	}
	z.ApplyAffectForTest("Duelist", "poisoned")
	st, left, _ := z.AffectState("Duelist", "poisoned")
	if st != 2 || left != 40 {
		t.Fatalf("poisoned twice: %d stacks, %d left; want 2 stacks and the time refreshed to 40", st, left)
	}
	for i := 0; i < 10; i++ {
		z.ApplyAffectForTest("Duelist", "poisoned")
	}
	if st, _, _ := z.AffectState("Duelist", "poisoned"); st != 5 {
		t.Fatalf("poisoned 12 times: %d stacks, want the cap of 5", st)
	}
	hr, ar, _, _ := z.StatsForTest("Duelist")
	z.ApplyAffectForTest("Duelist", "blessed")
	hr2, ar2, _, _ := z.StatsForTest("Duelist")
	if hr2-hr != 2 || ar2-ar != 2 {
		t.Fatalf("blessed: hitroll +%d, armour +%d; want +2 and +2", hr2-hr, ar2-ar)
	}
	for i := 0; i < 100; i++ {
		z.TickForTest()
	}
	z.ApplyAffectForTest("Duelist", "blessed") // refresh
	if st, left, _ := z.AffectState("Duelist", "blessed"); st != 1 || left != 240 {
		t.Fatalf("blessed again: %d stacks, %d left; want 1 stack refreshed to 240", st, left)
	}
	// Every affect ends: tick past the longest and nothing is left.
	for i := 0; i < 300; i++ {
		z.TickForTest()
	}
	z.DrainForTest()
	for _, a := range []string{"poisoned", "blessed"} {
		if _, _, ok := z.AffectState("Duelist", a); ok {
			t.Fatalf("%s never expired", a)
		}
	}
	if hr3, ar3, _, _ := z.StatsForTest("Duelist"); hr3 != hr || ar3 != ar {
		t.Fatalf("modifiers left behind: hitroll %d armour %d, want %d %d", hr3, ar3, hr, ar)
	}
	if !strings.Contains(s.text(), "The blessing fades.") {
		t.Fatal("no expiry message")
	}
}

// Resets bring mobs back up to their max, never past it; put items back
// when missing; and set doors to their state.
func TestResets(t *testing.T) {
	z, _ := gameZone(t, 1)
	rat := "emberfall:mob:rat"
	if n := z.CountMobs(rat); n != 4 { // three in the cellar, one in the old adit
		t.Fatalf("rats at boot: %d, want 4", n)
	}
	z.ResetForTest()
	if n := z.CountMobs(rat); n != 4 {
		t.Fatalf("rats after a reset with none missing: %d, want 4", n)
	}
	z.PurgeMobs(rat)
	if n := z.CountMobs(rat); n != 0 {
		t.Fatalf("rats after purge: %d", n)
	}
	z.ResetForTest()
	if n := z.CountMobs(rat); n != 4 {
		t.Fatalf("rats after the reset: %d, want 4", n)
	}
	if n := z.RoomItems("emberfall:room:inn", "emberfall:item:lantern"); n != 1 {
		t.Fatalf("lanterns in the inn: %d, want 1", n)
	}
	z.SetDoorForTest("emberfall:room:north_gate", "north", "open")
	z.ResetForTest()
	if got := z.DoorState("emberfall:room:north_gate", "north"); got != "closed" {
		t.Fatalf("gate after reset: %q, want closed", got)
	}
}

// Bad input to item commands: huge counts, a bag into itself, a container
// cycle, a room flooded with items. Each gets a line, never a panic.
func TestItems_BadInput(t *testing.T) {
	z, s := gameZone(t, 1)
	z.DropForTest("emberfall:item:bread", "emberfall:room:cellar", 10000)
	z.InputForTest(s, 1, "get all")
	if !strings.Contains(s.text(), "You stop after 50") {
		t.Fatalf("get all in a room of 10,000 items: %q", s.text()[max(0, len(s.text())-300):])
	}
	for i, cmd := range []string{
		"get 99999999999.bread", "get -1.bread", "get 0.bread", "kill", "kill nobody", "put", "put bread in",
		"drop all.", "give", "give bread", "get all.", "wear", "remove", "open", "unlock north", "look in",
		"get bread from bread", "put bread in bread",
	} {
		z.InputForTest(s, uint64(100+i), cmd)
	}
	if z.Faults() != 0 {
		t.Fatalf("%d faults from bad item commands", z.Faults())
	}
}

// A mob killed by damage over time dies like any other, without a fault:
// the kill, its experience and the corpse are the poisoner's, if present.
func TestAffects_DamageOverTimeKills(t *testing.T) {
	z, s := gameZone(t, 3)
	if !z.PoisonMobForTest("Duelist", "emberfall:mob:rat", "poisoned", 1) {
		t.Fatal("no rat to poison in the cellar")
	}
	for i := 0; i < 100 && !strings.Contains(s.text(), "is DEAD!"); i++ {
		z.TickForTest()
		z.DrainForTest()
	}
	if n := z.Faults(); n != 0 {
		t.Fatalf("%d faults while the poison killed the rat:\n%s", n, s.text())
	}
	if !strings.Contains(s.text(), "is DEAD!") {
		t.Fatalf("the poisoned rat did not die:\n%s", s.text())
	}
	if z.ExpForTest("Duelist") == 0 {
		t.Fatal("the poisoner gained no experience for the kill")
	}
	z.InputForTest(s, 1, "get all from corpse")
	if out := s.text(); strings.Contains(out, "not yours to loot") {
		t.Fatalf("the poisoner may not loot their own kill:\n%s", out)
	}
}

// With death_drops_items, a slain player's gear goes into a corpse only
// they may loot; when it rots, the gear falls to the floor: never destroyed.
func TestDeath_PlayerCorpseRotsIntoItsContents(t *testing.T) {
	z, s := gameZone(t, 5)
	g := z.GameForTest()
	g.Combat.DeathDropsItems = true
	g.Combat.CorpseDecaySecs = 2
	z.DropForTest("emberfall:item:bread", "emberfall:room:cellar", 1)
	z.InputForTest(s, 1, "get bread")
	z.KillForTest("Duelist")
	if n := z.RoomItems("emberfall:room:cellar", "emberfall:item:bread"); n != 0 {
		t.Fatalf("the bread lies loose in the cellar at death (%d); want it in the corpse", n)
	}
	for i := 0; i < 12; i++ { // 3 s of pulses
		z.TickForTest()
		z.DrainForTest()
	}
	if n := z.RoomItems("emberfall:room:cellar", "emberfall:item:bread"); n != 1 {
		t.Fatalf("after the corpse rotted the cellar holds %d bread, want 1", n)
	}
	if n := z.RoomItems("emberfall:room:cellar", "emberfall:item:corpse_of_player"); n != 0 {
		t.Fatal("the corpse did not rot")
	}
}

// examine looks into the very container named, not the first one with
// that keyword.
func TestItems_ExamineNumberedContainer(t *testing.T) {
	z, s := gameZone(t, 1)
	z.DropForTest("whisperwood:item:strongbox", "emberfall:room:cellar", 1) // closed, locked
	z.DropForTest("ashridge:item:pay_chest", "emberfall:room:cellar", 1)    // closed
	z.InputForTest(s, 1, "open 2.chest")
	z.InputForTest(s, 2, "examine 2.chest")
	out := s.text()
	if !strings.Contains(out, "The iron pay chest is empty.") || strings.Contains(out, "strongbox is closed") {
		t.Fatalf("examine 2.chest did not look into the pay chest:\n%s", out)
	}
}

// An ability that may target anyone is still an attack when it hurts:
// players who have not agreed to PvP cannot be struck with it.
func TestAbilities_AnyTargetHarmNeedsConsent(t *testing.T) {
	z, s := gameZone(t, 1)
	g := z.GameForTest()
	zap := *g.Ability("strike")
	zap.Name, zap.Target, zap.Level, zap.CooldownPulses, zap.LagPulses = "zap", "any", 1, 0, 0
	g.Abilities = append(g.Abilities, &zap)
	v := &logSession{benchSession: benchSession{id: 777}}
	z.Arrive(&zone.CharRecord{Name: "Bystander", Level: 1}, v, "emberfall:room:cellar", "")
	z.DrainForTest()
	_, _, before, _ := z.StatsForTest("Bystander")
	z.InputForTest(s, 1, "zap bystander")
	if _, _, hp, _ := z.StatsForTest("Bystander"); hp != before {
		t.Fatalf("a player without PvP was zapped: hp %d -> %d\n%s", before, hp, s.text())
	}
	if !strings.Contains(s.text(), "agreed to it (pvp)") {
		t.Fatalf("no refusal naming PvP consent:\n%s", s.text())
	}
}

// Zones count their own pulses, so a cooldown carried across a border
// keeps what was left of it, not a pulse number of the other zone's clock.
func TestTransfer_TimersKeepWhatWasLeft(t *testing.T) {
	w, z1 := benchWorld(t)
	z2 := w.Zone("whisperwood")
	z2.BootForTest()
	for i := 0; i < 1000; i++ {
		z1.TickForTest()
	}
	s := enter(t, z1, "Wayfarer")
	z1.SetDoorForTest("emberfall:room:north_gate", "north", "open")
	z1.SetCooldownForTest("Wayfarer", "strike", 40)
	for i, dir := range []string{"north", "north", "north", "north"} {
		z1.InputForTest(s, uint64(i+1), dir)
	}
	z2.DrainForTest()
	if _, _, _, ok := z2.CharState("Wayfarer"); !ok {
		t.Fatalf("Wayfarer did not reach Whisperwood; last output %q", s.Last())
	}
	if left := z2.CooldownLeft("Wayfarer", "strike"); left != 40 {
		t.Fatalf("cooldown after the border: %d pulses left, want the 40 that were left", left)
	}
}

// Lines typed while lagged belong to their connection: if it drops, they
// are not run for a character nobody is at (a setting command would find
// no session to set).
func TestLag_PendingLinesGoWithTheConnection(t *testing.T) {
	z, s := gameZone(t, 1)
	z.LagForTest("Duelist", 8)
	z.InputForTest(s, 1, "color 256")
	z.InputForTest(s, 2, "screenreader")
	z.DroppedForTest(s, "Duelist")
	if !z.LinkDead("Duelist") {
		t.Fatal("the dropped player is not link-dead")
	}
	for range 12 {
		z.TickForTest()
		z.DrainForTest()
	}
	if n := z.Faults(); n != 0 {
		t.Fatalf("%d faults running a dropped connection's lagged lines", n)
	}
}

// What a player says or emotes reaches the room as typed: "$n" in it is
// not the game's name placeholder.
func TestComm_PlayerTextIsNotSubstituted(t *testing.T) {
	z, s := gameZone(t, 1)
	o := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Onlooker", Level: 1}, o, "emberfall:room:cellar", "")
	z.DrainForTest()
	z.InputForTest(s, 1, "say I am $n, hear $s")
	z.InputForTest(s, 2, "emote points at $n")
	out := o.text()
	for _, want := range []string{"Duelist says, '{W}I am $n, hear $s{x}'", "Duelist points at $n."} {
		if !strings.Contains(out, want) {
			t.Fatalf("the room did not see %q as typed:\n%s", want, out)
		}
	}
}

// An item that may not leave its owner's hands (nodrop) cannot leave them
// by way of a container on the floor either.
func TestItems_NoDropCannotBePutAway(t *testing.T) {
	z, s := gameZone(t, 1)
	z.ItemProtoForTest("emberfall:item:bread").Flags |= content.ItemNoDrop
	z.DropForTest("emberfall:item:bread", "emberfall:room:cellar", 1)
	z.DropForTest("ashridge:item:pay_chest", "emberfall:room:cellar", 1)
	z.InputForTest(s, 1, "get bread")
	z.InputForTest(s, 2, "open chest")
	z.InputForTest(s, 3, "put bread in chest")
	if out := s.text(); !strings.Contains(out, "You cannot let go of") {
		t.Fatalf("a nodrop item went into a container on the floor:\n%s", out)
	}
	z.InputForTest(s, 4, "drop bread")
	if n := z.RoomItems("emberfall:room:cellar", "emberfall:item:bread"); n != 0 {
		t.Fatalf("a nodrop item was dropped (%d on the floor)", n)
	}
}
