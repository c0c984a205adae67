package world

import (
	"zonemud/store"
	"zonemud/zone"
)

// The zone's records are the game's view of a character; the store's are
// the file's. They are converted here so each can change on its own terms
// (the store's are versioned on disk).

func toStore(r *zone.CharRecord) *store.Character {
	c := &store.Character{
		Name: r.Name, Epoch: r.Epoch, Arrival: r.Arrival, Created: r.Created,
		Played: r.Played, Commands: r.Commands, Title: r.Title, Admin: r.Admin, Frozen: r.Frozen,
		Level: r.Level, Exp: r.Exp, HP: r.HP, Mana: r.Mana, Moves: r.Moves, Gold: r.Gold,
		Items:    toStoreItems(r.Items),
		Settings: store.Settings(r.Settings),
		Place:    placement(r),
		Attrs:    r.Attrs,
		Comm:     toStoreComm(r.Comm),
		Quests:   toStoreQuests(r.Quests),
	}
	for _, a := range r.Affects {
		c.Affects = append(c.Affects, store.Affect(a))
	}
	return c
}

// placement is where a record says the character is. Inside an instance
// the zone is left empty (the store keeps the last real one) and the
// anchor names the door it came in by.
func placement(r *zone.CharRecord) store.Placement {
	if zone.IsInstanceID(r.Zone) {
		return store.Placement{AnchorZone: r.AnchorZone, AnchorRoom: r.AnchorRoom}
	}
	return store.Placement{Zone: r.Zone, Room: r.Room}
}

func toStoreItems(items []zone.ItemRecord) []store.Item {
	if len(items) == 0 {
		return nil
	}
	out := make([]store.Item, len(items))
	for i, it := range items {
		out[i] = store.Item{ID: it.ID, Proto: it.Proto, Slot: it.Slot, Closed: it.Closed, Locked: it.Locked, Coins: it.Coins, Kept: it.Kept, Contents: toStoreItems(it.Contents)}
	}
	return out
}

func fromStore(c *store.Character) *zone.CharRecord {
	r := &zone.CharRecord{
		Name: c.Name, Epoch: c.Epoch, Arrival: c.Arrival, Created: c.Created,
		Played: c.Played, Commands: c.Commands, Title: c.Title, Admin: c.Admin, Frozen: c.Frozen,
		Level: c.Level, Exp: c.Exp, HP: c.HP, Mana: c.Mana, Moves: c.Moves, Gold: c.Gold,
		Items:    fromStoreItems(c.Items),
		Settings: zone.Settings(c.Settings),
		Attrs:    c.Attrs,
		Comm:     fromStoreComm(c.Comm),
		Quests:   fromStoreQuests(c.Quests),
		Zone:     c.Place.Zone, Room: c.Place.Room,
		AnchorZone: c.Place.AnchorZone, AnchorRoom: c.Place.AnchorRoom,
	}
	for _, a := range c.Affects {
		r.Affects = append(r.Affects, zone.AffectRecord(a))
	}
	return r
}

func fromStoreItems(items []store.Item) []zone.ItemRecord {
	if len(items) == 0 {
		return nil
	}
	out := make([]zone.ItemRecord, len(items))
	for i, it := range items {
		out[i] = zone.ItemRecord{ID: it.ID, Proto: it.Proto, Slot: it.Slot, Closed: it.Closed, Locked: it.Locked, Coins: it.Coins, Kept: it.Kept, Contents: fromStoreItems(it.Contents)}
	}
	return out
}
