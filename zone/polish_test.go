package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// squareZone is Emberfall with one player, Walker, in the square.
func squareZone(t *testing.T) (*zone.Zone, *logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Walker", Level: 1}, s, "emberfall:room:square", "")
	z.DrainForTest()
	return z, s
}

// Brief mode leaves a room's description out when you walk in, and look
// shows it, as brief does on a Diku MUD and as brief's line says.
func TestBrief_LookShowsTheDescription(t *testing.T) {
	z, s := squareZone(t)
	const desc = "Temple Street climbs north"
	z.InputForTest(s, 1, "brief")
	if got := s.text(); !strings.Contains(got, "look shows its description too") {
		t.Fatalf("brief said:\n%s", got)
	}
	mark := len(s.text())
	z.InputForTest(s, 2, "north")
	if got := s.text()[mark:]; !strings.Contains(got, "Temple Street") || strings.Contains(got, desc) {
		t.Fatalf("walking north in brief mode showed:\n%s\nwant the name without the description", got)
	}
	mark = len(s.text())
	z.InputForTest(s, 3, "look")
	if got := s.text()[mark:]; !strings.Contains(got, desc) {
		t.Fatalf("look in brief mode showed:\n%s\nwant the description", got)
	}
}

// help death and a death agree: you wake whole again, at full health.
func TestDeath_HelpSaysWhatHappens(t *testing.T) {
	z, s := squareZone(t)
	z.InputForTest(s, 1, "help death")
	help := s.text()
	if !strings.Contains(help, "you wake whole again") || strings.Contains(help, "hurt") {
		t.Fatalf("help death says:\n%s", help)
	}
	z.KillForTest("Walker")
	z.DrainForTest()
	if _, _, hp, maxHP := z.StatsForTest("Walker"); hp != maxHP {
		t.Fatalf("after a death Walker has %d of %d hit points; help death says whole again", hp, maxHP)
	}
	if got := s.text()[len(help):]; !strings.Contains(got, "whole again") {
		t.Fatalf("the death said:\n%s", got)
	}
}
