package zone

import (
	"zonemud/content"
)

// resetZone runs the zone's reset list: at boot, then every reset_secs.
// Mobs come back up to their reset's max, missing items reappear, doors
// return to their state.
func (z *Zone) resetZone(boot bool) {
	for _, rs := range z.proto.Resets {
		room := z.localRoom(rs.Room)
		if room == nil {
			continue
		}
		switch rs.Kind {
		case content.ResetMob:
			z.resetMob(rs, room)
		case content.ResetItem:
			z.resetItem(rs, room)
		case content.ResetDoor:
			z.setDoor(room, rs.Door, rs.State)
		}
	}
}

func (z *Zone) resetMob(rs *content.Reset, room *Room) {
	p := z.set.Mobs[rs.Proto]
	if p == nil {
		return
	}
	live := 0
	for _, c := range z.chars {
		if c.reset == rs {
			live++
		}
	}
	for ; live < rs.Max; live++ {
		m := z.spawnMob(p, room)
		m.reset = rs
		for _, ref := range rs.Equip {
			if ip := z.set.Items[ref]; ip != nil {
				it := z.newItem(ip)
				z.itemToChar(it, m)
				z.wearItem(m, it)
				z.recalc(m)
			}
		}
		for _, ref := range rs.Give {
			if ip := z.set.Items[ref]; ip != nil {
				z.itemToChar(z.newItem(ip), m)
			}
		}
	}
}

func (z *Zone) resetItem(rs *content.Reset, room *Room) {
	p := z.set.Items[rs.Proto]
	if p == nil {
		return
	}
	n := 0
	for _, it := range room.items {
		if it.proto.Ref == p.Ref { // an item made before a reload counts
			n++
		}
	}
	for ; n < rs.Max; n++ {
		it := z.newItem(p)
		for _, ref := range rs.Contents {
			if ip := z.set.Items[ref]; ip != nil {
				sub := z.newItem(ip)
				sub.in = it
				it.contents = append(it.contents, sub)
			}
		}
		z.itemToRoom(it, room)
		// A persistent item is written where it lies, so the next boot
		// loads this one instead of making another.
		z.roomChanged(room, it)
	}
}

// spawnMob makes a mob from its prototype in room.
func (z *Zone) spawnMob(p *content.Mob, room *Room) *Char {
	hp := p.HP.Roll(z.rng.IntN)
	if hp < 1 {
		hp = 1
	}
	m := &Char{
		rid: z.newRID(), name: p.Short, mob: p,
		level: p.Level, hp: hp, maxHP: hp, gold: max(0, p.Gold.Roll(z.rng.IntN)),
		eq: make([]*Item, len(z.set.Game.Slots)),
	}
	z.chars[m.rid] = m
	m.home = z
	z.recalc(m)
	room.addChar(m)
	z.attachScript(m)
	if p.Flags.Has(content.MobWander) {
		every := uint64(p.WanderEvery)
		m.wander = z.pulses.every(every, func() { z.wander(m) })
	}
	return m
}

// wearItem puts it on in the slot its prototype names, if free.
func (z *Zone) wearItem(c *Char, it *Item) bool {
	slot := it.proto.Wear
	if slot == "" {
		switch it.proto.Type {
		case content.ItemWeapon:
			slot = "wield"
		case content.ItemLight:
			slot = "light"
		}
	}
	i := z.slotIndex(slot)
	if i < 0 || c.eq[i] != nil || it.carrier != c || it.slot >= 0 {
		return false
	}
	c.inv = removeItem(c.inv, it)
	c.eq[i] = it
	it.slot = i
	c.recValid = false
	return true
}

// wander moves a wandering mob through a random open exit that stays in
// its zone and does not lead into a nomob room. A mob in a fight, or not
// on its feet, stays: leaving a fight is fleeing, with its own line.
func (z *Zone) wander(m *Char) {
	if m.room == nil || !z.holds(m) {
		m.wander.cancel()
		return
	}
	if m.fighting != nil || m.pos != posStanding {
		return
	}
	if z.rng.IntN(3) != 0 {
		return // not every chance is taken, so wanderers do not march in step
	}
	var options [content.NumDirs]content.Dir
	n := 0
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if !m.room.exitOpen(d) {
			continue
		}
		dest := z.localRoom(m.room.proto.Exits[d].To)
		if dest == nil || dest.proto.Flags.Has(content.RoomNoMob) {
			continue
		}
		options[n] = d
		n++
	}
	if n == 0 {
		return
	}
	z.move(m, options[z.rng.IntN(n)])
}
