package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// partyZone is emberfall's cellar, with its rats, and players of the
// given levels standing there.
func partyZone(t *testing.T, levels map[string]int) (*zone.Zone, map[string]*logSession, func(s *logSession, line string) string) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	ss := map[string]*logSession{}
	for name, lvl := range levels {
		ss[name] = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
		z.Arrive(&zone.CharRecord{Name: name, Level: lvl}, ss[name], "emberfall:room:cellar", "")
	}
	z.DrainForTest()
	seq := uint64(0)
	do := func(s *logSession, line string) string {
		seq++
		before := len(s.text())
		z.InputForTest(s, seq, line)
		z.DrainForTest()
		return s.text()[before:]
	}
	return z, ss, do
}

// A kill's experience is shared among the party members in the room by
// game.toml's [party] rule: the whole raised by bonus_percent per member
// past the first, each part weighed by share_weight ("level + 5"). A
// member elsewhere gets none, and a killer in no party takes it all.
func TestParty_KillExperienceShared(t *testing.T) {
	z, ss, do := partyZone(t, map[string]int{"Lead": 5, "Low": 1, "Away": 3, "Solo": 1})
	g := z.GameForTest()
	if g.Party.BonusPercent != 10 || g.Party.ShareWeight.String() != "level + 5" {
		t.Fatalf("the test's numbers assume game.toml's [party] of share_weight = \"level + 5\", bonus_percent = 10; it has %q, %d", g.Party.ShareWeight, g.Party.BonusPercent)
	}
	do(ss["Low"], "follow lead")
	do(ss["Away"], "follow lead")
	do(ss["Lead"], "group low")
	do(ss["Lead"], "group away")
	do(ss["Away"], "unfollow")
	do(ss["Away"], "up")
	if !z.InPartyForTest("Low") || !z.InPartyForTest("Lead") {
		t.Fatal("the zone does not know Lead and Low are in a party")
	}
	// A giant rat (level 1) is worth kill_exp = 1*1*12 + 20 = 32 to a
	// killer alone.
	solo := z.ExpForTest("Solo")
	if !z.SlayForTest("Solo", "emberfall:mob:rat") {
		t.Fatal("no rat in the cellar")
	}
	if got := z.ExpForTest("Solo") - solo; got != 32 {
		t.Fatalf("a killer in no party gained %d, want 32", got)
	}
	// Lead (weight 10) and Low (weight 6) share 32 * 110 / 100 = 35:
	// 35*10/16 = 21 and 35*6/16 = 13. Away, upstairs, gets nothing.
	before := map[string]int{}
	for n := range ss {
		before[n] = z.ExpForTest(n)
	}
	mark := len(ss["Low"].text())
	if !z.SlayForTest("Lead", "emberfall:mob:rat") {
		t.Fatal("no second rat in the cellar")
	}
	for name, want := range map[string]int{"Lead": 21, "Low": 13, "Away": 0, "Solo": 0} {
		if got := z.ExpForTest(name) - before[name]; got != want {
			t.Errorf("%s gained %d, want %d", name, got, want)
		}
	}
	do(ss["Low"], "look") // flushes what Low was told
	if got := ss["Low"].text()[mark:]; !strings.Contains(got, "You take your share of the kill.") || !strings.Contains(got, "You gain 13 experience.") {
		t.Errorf("Low was told %q", got)
	}
}
