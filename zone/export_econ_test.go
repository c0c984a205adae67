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

// SlayForTest has a held player deal the first mob of proto in its room a
// killing blow, as a last swing in a fight would. It reports whether there
// was one.
func (z *Zone) SlayForTest(player, proto string) bool {
	c := z.players[player]
	if c == nil || c.room == nil {
		return false
	}
	for _, o := range c.room.people {
		if o.mob != nil && o.mob.Ref == proto {
			z.hurt(o, o.hp+1000, c, c.name)
			return true
		}
	}
	return false
}

// InPartyForTest reports whether the zone believes a held player is in a
// party (what makes it publish their vitals).
func (z *Zone) InPartyForTest(name string) bool {
	c := z.players[name]
	return c != nil && c.pl.party
}
