package zone_test

import (
	"strings"
	"testing"
	"time"

	"zonemud/zone"
)

// shopZone is emberfall with Buyer (gold as given) in Tobbe's chandlery,
// at a game hour of noon unless hour says otherwise.
func shopZone(t *testing.T, gold, hour int) (z *zone.Zone, do func(s *logSession, line string) string, buyer *logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z = zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	at := time.Unix(int64(hour)*60, 0) // an hour of game time is a real minute from the epoch
	z.SetShopClockForTest(func() time.Time { return at })
	z.BootForTest()
	buyer = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Buyer", Level: 1, Gold: gold}, buyer, "emberfall:room:chandlery", "")
	z.DrainForTest()
	seq := uint64(0)
	do = func(s *logSession, line string) string {
		seq++
		before := len(s.text())
		z.InputForTest(s, seq, line)
		return s.text()[before:]
	}
	return z, do, buyer
}

func count(refs []string, ref string) int {
	n := 0
	for _, r := range refs {
		if r == ref {
			n++
		}
	}
	return n
}

func TestShop_BuySellValue(t *testing.T) {
	z, do, b := shopZone(t, 100, 12)
	out := do(b, "list")
	for _, want := range []string{"Tobbe the chandler sells:", "a canvas pack", "10 gold (2 left)", "a mug of dark ale", "3 gold (plenty)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("list lacks %q:\n%s", want, out)
		}
	}
	if out := do(b, "buy pack"); !strings.Contains(out, "You buy a canvas pack for 10 gold.") {
		t.Fatalf("buy pack: %q", out)
	}
	if out := do(b, "buy 3 ale"); !strings.Contains(out, "You buy 3 × a mug of dark ale for 9 gold.") {
		t.Fatalf("buy 3 ale: %q", out)
	}
	if g := z.GoldForTest("Buyer"); g != 81 {
		t.Fatalf("gold after buying: %d, want 81", g)
	}
	inv := z.CarriedForTest("Buyer")
	if count(inv, "emberfall:item:pack") != 1 || count(inv, "emberfall:item:ale") != 3 {
		t.Fatalf("carried after buying: %v", inv)
	}
	if out := do(b, "value pack"); !strings.Contains(out, "Tobbe the chandler would give you 4 gold for a canvas pack.") {
		t.Fatalf("value: %q", out)
	}
	if out := do(b, "sell pack"); !strings.Contains(out, "You sell a canvas pack for 4 gold.") {
		t.Fatalf("sell: %q", out)
	}
	if out := do(b, "sell all.ale"); !strings.Contains(out, "You sell 3 things for 3 gold in all.") {
		t.Fatalf("sell all.ale: %q", out)
	}
	if g := z.GoldForTest("Buyer"); g != 88 {
		t.Fatalf("gold after selling: %d, want 88", g)
	}
	if inv := z.CarriedForTest("Buyer"); len(inv) != 0 {
		t.Fatalf("still carries %v", inv)
	}
	// The pack sold back is for sale again, beside the one left in stock.
	if out := do(b, "list"); !strings.Contains(out, "10 gold (2 left)") {
		t.Fatalf("list after selling the pack back:\n%s", out)
	}
}

func TestShop_LastItemOnce(t *testing.T) {
	z, do, b := shopZone(t, 1000, 12)
	other := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Other", Level: 1, Gold: 1000}, other, "emberfall:room:chandlery", "")
	z.DrainForTest()
	if out := do(b, "buy 2 pack"); !strings.Contains(out, "You buy 2 × a canvas pack") {
		t.Fatalf("buy 2 pack: %q", out)
	}
	if out := do(other, "buy pack"); !strings.Contains(out, "Tobbe the chandler has sold the last of a canvas pack; come back after the next restock.") {
		t.Fatalf("a sold-out pack: %q", out)
	}
	if g := z.GoldForTest("Other"); g != 1000 {
		t.Fatalf("a refused buyer paid: %d", g)
	}
}

func TestShop_BadInput(t *testing.T) {
	z, do, b := shopZone(t, 3, 12)
	cases := []struct{ line, want string }{
		{"buy -1 ale", "A count to buy is a whole number from 1 to 50."},
		{"buy 99999999999 ale", "A count to buy is a whole number from 1 to 50."},
		{"buy 0 ale", "A count to buy is a whole number from 1 to 50."},
		{"buy 2 ale", "2 × a mug of dark ale cost 6 gold; you have 3."},
		{"buy lantern", "A brass lantern costs 18 gold; you have 3."},
		{"buy unicorn", "Tobbe the chandler sells nothing called 'unicorn'."},
		{"buy", "Buy what?"},
		{"sell sword", "You do not have that."},
		{"value", "Value what?"},
		{"buy ale", "You buy a mug of dark ale for 3 gold."}, // exactly the price
		{"buy ale", "A mug of dark ale costs 3 gold; you have 0."},
		{"sell 1000.ale", "You do not have that."},
	}
	for _, tc := range cases {
		if out := do(b, tc.line); !strings.Contains(out, tc.want) {
			t.Errorf("%s: %q, want %q", tc.line, out, tc.want)
		}
	}
	if g := z.GoldForTest("Buyer"); g != 0 {
		t.Fatalf("gold: %d", g)
	}
}

func TestShop_WornAndWrongType(t *testing.T) {
	_, do, b := shopZone(t, 100, 12)
	do(b, "buy pack")
	do(b, "put ale in pack")
	if out := do(b, "buy ale"); !strings.Contains(out, "You buy") {
		t.Fatalf("buy ale: %q", out)
	}
	do(b, "put ale in pack")
	if out := do(b, "sell pack"); !strings.Contains(out, "Empty a canvas pack first.") {
		t.Fatalf("sell a full pack: %q", out)
	}
	do(b, "buy lantern")
	if out := do(b, "wear lantern"); !strings.Contains(strings.ToLower(out), "lantern") {
		t.Fatalf("wear lantern: %q", out)
	}
	if out := do(b, "sell lantern"); !strings.Contains(out, "You are wearing a brass lantern; remove it first.") {
		t.Fatalf("sell a worn lantern: %q", out)
	}
}

func TestShop_Hours(t *testing.T) {
	_, do, b := shopZone(t, 100, 3)
	want := "Tobbe the chandler says, 'We are closed. Come back between"
	for _, line := range []string{"list", "buy ale"} {
		if out := do(b, line); !strings.Contains(out, want) {
			t.Fatalf("%s at 3 in the morning: %q", line, out)
		}
	}
}

func TestShop_NoShop(t *testing.T) {
	_, do, b := shopZone(t, 100, 12)
	if out := do(b, "north"); strings.Contains(out, "Tobbe") {
		t.Fatalf("still in the chandlery: %q", out)
	}
	if out := do(b, "list"); !strings.Contains(out, "There is no shop here.") {
		t.Fatalf("list outside a shop: %q", out)
	}
}
