package zone

import (
	"zonemud/content"
	"zonemud/internal/logev"
)

// Item is an item's runtime state. Exactly one of room, carrier and in says
// where it is (none while it is being moved). Zone goroutine only.
type Item struct {
	rid      rid
	id       uint64 // durable id: the same across zones and restarts
	proto    *content.Item
	room     *Room
	carrier  *Char
	slot     int // equipment slot index while worn, -1 otherwise
	in       *Item
	contents []*Item
	closed   bool
	locked   bool
	// owner may loot this corpse until the pulse ownerUntil; others wait.
	owner      string
	ownerUntil uint64
	// coins is a coin pile's amount (money.go); 0 for every other item.
	coins int
	// kept: the owner marked it with keep, so drop all, give all, sell
	// all and junk all leave it alone. Saved with the item.
	kept bool
}

func (it *Item) short() string {
	if it.proto == coinProto {
		return coinShort(it.coins)
	}
	return it.proto.Short
}
func (it *Item) keywords() []string { return it.proto.Keywords }

// isContainer reports whether things can be put in or taken out of it.
func (it *Item) isContainer() bool {
	return it.proto.Type == content.ItemContainer || it.proto.Type == content.ItemCorpse
}

// newItem makes an item from a prototype with a fresh durable id. It is not
// placed anywhere yet.
func (z *Zone) newItem(p *content.Item) *Item {
	it := &Item{rid: z.newRID(), id: z.newItemID(), proto: p, slot: -1, closed: p.Closed, locked: p.Locked}
	z.items[it.rid] = it
	z.attachItemScript(it)
	return it
}

// itemFromRecord rebuilds a saved item and its contents. An item whose
// prototype no longer exists is dropped with a log line: content changed
// under a saved character.
func (z *Zone) itemFromRecord(ir ItemRecord) *Item {
	p := z.set.Items[ir.Proto]
	if ir.Proto == coinRef {
		p = coinProto
	}
	if p == nil {
		z.log.Warn("zone: a saved item has no prototype any more; dropped", logev.ID(7104), "item", ir.ID, "proto", ir.Proto)
		return nil
	}
	it := &Item{rid: z.newRID(), id: ir.ID, proto: p, slot: -1, closed: ir.Closed, locked: ir.Locked, coins: ir.Coins, kept: ir.Kept}
	z.items[it.rid] = it
	z.attachItemScript(it)
	for _, cr := range ir.Contents {
		if sub := z.itemFromRecord(cr); sub != nil {
			sub.in = it
			it.contents = append(it.contents, sub)
		}
	}
	return it
}

func itemRecord(it *Item) ItemRecord {
	ir := ItemRecord{ID: it.id, Proto: it.proto.Ref, Closed: it.closed, Locked: it.locked, Coins: it.coins, Kept: it.kept}
	for _, sub := range it.contents {
		ir.Contents = append(ir.Contents, itemRecord(sub))
	}
	return ir
}

// Every change to where an item is or to its state must go through the
// functions below or call itemsChanged, on the item where it was before the
// change and where it is after. That keeps saving whole: the character that
// carried it and the one that carries it now are both saved in the next
// checkpoint, with the room it left or reached if that room's items persist.
// A move saved on one side only would claim an item the store still
// records somewhere else, and the store would refuse the zone's batch.

// itemsChanged marks whatever holds it, however deep in containers, as
// changed: the carrying character (its cached saved form is dropped too)
// or the room it lies in.
func (z *Zone) itemsChanged(it *Item) {
	top := it
	for top.in != nil {
		top = top.in
	}
	if c := top.carrier; c != nil {
		c.recValid = false
		z.dirty(c)
	}
	if top.room != nil {
		z.roomChanged(top.room, top)
	}
}

// detachItem takes it out of wherever it is.
func (z *Zone) detachItem(it *Item) {
	z.itemsChanged(it)
	switch {
	case it.room != nil:
		it.room.items = removeItem(it.room.items, it)
		it.room = nil
	case it.carrier != nil:
		c := it.carrier
		if it.slot >= 0 {
			c.eq[it.slot] = nil
			it.slot = -1
		} else {
			c.inv = removeItem(c.inv, it)
		}
		it.carrier = nil
	case it.in != nil:
		it.in.contents = removeItem(it.in.contents, it)
		it.in = nil
	}
}

// itemToRoom lays it in r. An item let go is no longer kept: keep is its
// holder's mark, not the item's.
func (z *Zone) itemToRoom(it *Item, r *Room) {
	z.detachItem(it)
	it.kept = false
	it.room = r
	r.items = append(r.items, it)
	z.itemsChanged(it)
}

// itemToChar puts it in c's hands; it is kept only if c already held it
// there.
func (z *Zone) itemToChar(it *Item, c *Char) {
	if it.carrier != c {
		it.kept = false
	}
	z.detachItem(it)
	it.carrier = c
	c.inv = append(c.inv, it)
	z.itemsChanged(it)
}

func (z *Zone) itemToContainer(it *Item, cont *Item) {
	z.detachItem(it)
	it.in = cont
	cont.contents = append(cont.contents, it)
	z.itemsChanged(it)
}

// extractItem destroys it and everything in it.
func (z *Zone) extractItem(it *Item) {
	z.detachItem(it)
	z.forgetItem(it)
}

// forgetItem drops it and its contents from the zone's index without
// touching containment: for items that leave the zone with their holder.
func (z *Zone) forgetItem(it *Item) {
	delete(z.items, it.rid)
	z.forgetItemScript(it)
	for _, sub := range it.contents {
		z.forgetItem(sub)
	}
}

// adoptItem gives it and its contents fresh rids in this zone.
func (z *Zone) adoptItem(it *Item) {
	it.rid = z.newRID()
	z.items[it.rid] = it
	z.attachItemScript(it)
	for _, sub := range it.contents {
		z.adoptItem(sub)
	}
}

// contains reports whether it holds other, however deep.
func (it *Item) contains(other *Item) bool {
	for _, sub := range it.contents {
		if sub == other || sub.contains(other) {
			return true
		}
	}
	return false
}

func removeItem(list []*Item, it *Item) []*Item {
	for i, o := range list {
		if o == it {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}
