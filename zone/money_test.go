package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// moneyZone is the emberfall zone with Payer (100 gold) and Payee (none)
// standing in the square.
func moneyZone(t *testing.T) (z *zone.Zone, payer, payee *logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z = zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	payer = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	payee = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Payer", Level: 1, Gold: 100}, payer, "emberfall:room:square", "")
	z.Arrive(&zone.CharRecord{Name: "Payee", Level: 1}, payee, "emberfall:room:square", "")
	z.DrainForTest()
	return z, payer, payee
}

func TestMoney_GiveDropGet(t *testing.T) {
	z, payer, payee := moneyZone(t)
	seq := uint64(0)
	do := func(s *logSession, line string) string {
		seq++
		before := len(s.text())
		z.InputForTest(s, seq, line)
		return s.text()[before:]
	}
	if out := do(payer, "give 30 gold payee"); !strings.Contains(out, "You give a small pile of 30 gold coins to Payee.") {
		t.Fatalf("give: %q", out)
	}
	if !strings.Contains(payee.text(), "Payer gives you a small pile of 30 gold coins.") {
		t.Fatalf("the payee saw %q", payee.text())
	}
	if a, b := z.GoldForTest("Payer"), z.GoldForTest("Payee"); a != 70 || b != 30 {
		t.Fatalf("after the give: %d and %d, want 70 and 30", a, b)
	}
	do(payer, "give 5 coins to payee")
	do(payer, "drop 15 gold")
	do(payer, "drop 5 coins")
	if got := z.RoomCoinsForTest("emberfall:room:square"); got != 20 {
		t.Fatalf("%d coins on the ground, want 20 in one pile", got)
	}
	if out := do(payee, "look"); strings.Count(out, "A pile of gold coins lies here.") != 1 {
		t.Fatalf("two drops should make one pile: %q", out)
	}
	if out := do(payee, "get gold"); !strings.Contains(out, "You get a small pile of 20 gold coins.") {
		t.Fatalf("get gold: %q", out)
	}
	if out := do(payee, "inventory"); strings.Contains(out, "gold") {
		t.Fatalf("coins picked up are gold, not an item: %q", out)
	}
	if a, b, g := z.GoldForTest("Payer"), z.GoldForTest("Payee"), z.RoomCoinsForTest("emberfall:room:square"); a != 45 || b != 55 || g != 0 {
		t.Fatalf("after the pick-up: %d, %d and %d on the ground; want 45, 55, 0", a, b, g)
	}
	if out := do(payer, "give all gold payee"); !strings.Contains(out, "45 gold coins") || z.GoldForTest("Payer") != 0 {
		t.Fatalf("give all gold: %q, left %d", out, z.GoldForTest("Payer"))
	}
}

// A money item from area data (a bag of wages) turns into its value in
// gold when picked up, from the floor or out of a container.
func TestMoney_MoneyItemBecomesGold(t *testing.T) {
	z, payer, _ := moneyZone(t)
	z.DropForTest("ashridge:item:pay_coins", "emberfall:room:square", 1)
	z.InputForTest(payer, 1, "get wages")
	if got := z.GoldForTest("Payer"); got != 250 {
		t.Fatalf("gold %d after picking up a bag of 150, want 250:\n%s", got, payer.text())
	}
	z.InputForTest(payer, 2, "inventory")
	if strings.Contains(payer.text(), "bag of") {
		t.Fatalf("the bag stayed an item: %s", payer.text())
	}
}

// Every bad amount gets a clear line and moves no coin.
func TestMoney_BadAmountsRefused(t *testing.T) {
	z, payer, _ := moneyZone(t)
	cases := map[string]string{
		"give -5 gold payee":                   "whole number above zero",
		"give 0 gold payee":                    "whole number above zero",
		"give +5 gold payee":                   "whole number above zero",
		"give 101 gold payee":                  "You do not have that much gold; you carry 100.",
		"give 99999999999999999999 gold payee": "Nobody has that much gold.",
		"give 5 gold":                          "Give the gold to whom?",
		"give 5 gold nobody":                   "There is nobody here by that name.",
		"give 5 gold payer":                    "There is nobody here by that name.",
		"drop -1 coins":                        "whole number above zero",
		"drop 1000 gold":                       "You do not have that much gold",
		"drop 5 gold\x1b[31m":                  "You do not have that.",
	}
	seq := uint64(0)
	for line, want := range cases {
		seq++
		before := len(payer.text())
		z.InputForTest(payer, seq, line)
		if out := payer.text()[before:]; !strings.Contains(out, want) {
			t.Errorf("%q: got %q, want %q", line, out, want)
		}
	}
	if got := z.GoldForTest("Payer") + z.GoldForTest("Payee"); got != 100 {
		t.Fatalf("the refusals moved coins: %d in all, want 100", got)
	}
}
