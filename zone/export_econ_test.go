package zone

import "time"

// Test-only bridges for money, shops, quests and groups.

// GoldForTest is a held character's gold, or -1 if it is not held.
func (z *Zone) GoldForTest(name string) int {
	c := z.players[name]
	if c == nil {
		return -1
	}
	return c.gold
}

// RoomCoinsForTest sums the coin piles and money items lying in a room.
func (z *Zone) RoomCoinsForTest(room string) int {
	r := z.rooms[room]
	if r == nil {
		return -1
	}
	n := 0
	for _, it := range r.items {
		if it.proto.Type == "money" {
			n += it.worth()
		}
	}
	return n
}

// SetShopClockForTest makes the shops read game hours from now. Call it
// before the zone runs.
func (z *Zone) SetShopClockForTest(now func() time.Time) { z.shopClock = now }

// CarriedForTest is the prototype refs of what a held character carries
// and wears, or nil.
func (z *Zone) CarriedForTest(name string) []string {
	c := z.players[name]
	if c == nil {
		return nil
	}
	var out []string
	for _, it := range c.carried() {
		out = append(out, it.proto.Ref)
	}
	return out
}
