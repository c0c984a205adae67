package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// Dropping, giving, selling or junking something worn says to take it
// off first, and leaves it worn.
func TestDiku_WornItemMustComeOffFirst(t *testing.T) {
	z, do, b := shopZone(t, 100, 12)
	other := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Other", Level: 1}, other, "emberfall:room:chandlery", "")
	z.DrainForTest()
	floor := z.RoomItems("emberfall:room:chandlery", "emberfall:item:lantern")
	do(b, "buy lantern")
	if out := do(b, "hold lantern"); !strings.Contains(out, "lantern") {
		t.Fatalf("hold lantern: %q", out)
	}
	for _, line := range []string{"drop lantern", "give lantern other", "junk lantern", "sell lantern", "value lantern"} {
		if out := do(b, line); !strings.Contains(out, "You are wearing a brass lantern; remove it first.") {
			t.Errorf("%s: %q", line, out)
		}
	}
	if out := do(b, "drop all"); !strings.Contains(out, "You carry nothing like that; what you wear, remove first.") {
		t.Errorf("drop all with only worn things: %q", out)
	}
	if n := count(z.CarriedForTest("Buyer"), "emberfall:item:lantern"); n != 1 {
		t.Fatalf("the worn lantern went: %v", z.CarriedForTest("Buyer"))
	}
	if n := z.RoomItems("emberfall:room:chandlery", "emberfall:item:lantern"); n != floor {
		t.Fatalf("%d lanterns on the floor, want %d", n, floor)
	}
}

// keep marks an item that drop all, sell all, junk all and give all leave
// alone; naming it still lets it go; unkeep takes the mark off.
func TestDiku_KeepLeavesAllAlone(t *testing.T) {
	z, do, b := shopZone(t, 100, 12)
	do(b, "buy 3 ale")
	do(b, "buy pack")
	if out := do(b, "keep ale"); !strings.Contains(out, "You will keep a mug of dark ale.") {
		t.Fatalf("keep ale: %q", out)
	}
	if out := do(b, "keep pack"); !strings.Contains(out, "You will keep a canvas pack.") {
		t.Fatalf("keep pack: %q", out)
	}
	if out := do(b, "keep"); !strings.Contains(out, "You keep:\n  a mug of dark ale\n  a canvas pack") {
		t.Fatalf("keep alone: %q", out)
	}
	if out := do(b, "inventory"); !strings.Contains(out, "a mug of dark ale (kept)") || !strings.Contains(out, "a mug of dark ale (2)") {
		t.Fatalf("inventory: %q", out)
	}
	if out := do(b, "drop all"); !strings.Contains(out, "You drop a mug of dark ale (2).") || strings.Contains(out, "pack") {
		t.Fatalf("drop all: %q", out)
	}
	do(b, "get all.ale")
	if out := do(b, "sell all"); !strings.Contains(out, "You sell 2 things") || strings.Contains(out, "pack") {
		t.Fatalf("sell all: %q", out)
	}
	if out := do(b, "junk all"); !strings.Contains(out, "You keep all of that; unkeep it first.") {
		t.Fatalf("junk all with only kept things: %q", out)
	}
	inv := z.CarriedForTest("Buyer")
	if count(inv, "emberfall:item:ale") != 1 || count(inv, "emberfall:item:pack") != 1 {
		t.Fatalf("the kept things went: %v", inv)
	}
	if out := do(b, "unkeep ale"); !strings.Contains(out, "You no longer keep a mug of dark ale.") {
		t.Fatalf("unkeep: %q", out)
	}
	if out := do(b, "junk all"); !strings.Contains(out, "You junk a mug of dark ale. It is gone.") || strings.Contains(out, "pack") {
		t.Fatalf("junk all: %q", out)
	}
	if out := do(b, "drop pack"); !strings.Contains(out, "You drop a canvas pack.") {
		t.Fatalf("a kept thing named goes: %q", out)
	}
	// Let go, it is no longer kept: keep is the holder's mark.
	do(b, "get pack")
	if out := do(b, "inventory"); strings.Contains(out, "(kept)") {
		t.Fatalf("a pack picked up again is still kept: %q", out)
	}
	for line, want := range map[string]string{
		"keep unicorn": "You do not have that.",
		"unkeep":       "Unkeep what?",
		"junk":         "Junk what?",
		"junk 0.pack":  "Junk what?",
		"unkeep pack":  "You do not keep a canvas pack.",
	} {
		if out := do(b, line); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", line, out, want)
		}
	}
}

// A kept mark comes with the character's record.
func TestDiku_KeptFromTheRecord(t *testing.T) {
	z, do, _ := shopZone(t, 0, 12)
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Keeper", Level: 1, Items: []zone.ItemRecord{
		{ID: 900001, Proto: "emberfall:item:bread", Kept: true},
		{ID: 900002, Proto: "emberfall:item:bread"},
	}}, s, "emberfall:room:chandlery", "")
	z.DrainForTest()
	if out := do(s, "junk all"); !strings.Contains(out, "You junk a loaf of brown bread.") {
		t.Fatalf("junk all: %q", out)
	}
	if inv := z.CarriedForTest("Keeper"); len(inv) != 1 || z.HasItemID(900002) || !z.HasItemID(900001) {
		t.Fatalf("after junk all: %v", inv)
	}
}

// Identical items are listed once with a count after them, in the room
// and in the inventory.
func TestDiku_IdenticalItemsCounted(t *testing.T) {
	_, do, b := shopZone(t, 100, 12)
	do(b, "buy 2 ale")
	do(b, "buy bread")
	if out := do(b, "inventory"); !strings.Contains(out, "  a mug of dark ale (2)\n  a loaf of brown bread") {
		t.Fatalf("inventory: %q", out)
	}
	do(b, "drop all")
	if out := do(b, "look"); !strings.Contains(out, "A mug of dark ale has been left here. (2)") {
		t.Fatalf("look: %q", out)
	}
}
