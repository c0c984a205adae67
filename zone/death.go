package zone

import (
	"strings"
	"time"

	"zonemud/content"
	"zonemud/internal/act"
)

// die handles a character reaching zero hit points. A mob leaves a corpse
// with what it carried and its killer gets the experience; a player wakes
// again, whole, at the zone's start room or the world's recall room.
func (z *Zone) die(v, by *Char) {
	z.stopFighting(v)
	if v.mob != nil {
		z.mobDies(v, by)
		return
	}
	z.playerDies(v, by)
}

func (z *Zone) pulsesOf(secs int) uint64 {
	return uint64(time.Duration(secs) * time.Second / PulseInterval)
}

func (z *Zone) mobDies(m, by *Char) {
	room := m.room
	z.sendLine(by, act.Format("{R}$n is DEAD!{x}", m.short(), ""))
	z.act(room, by, m, "{R}$n is DEAD!{x}")
	z.fire(m, "on_death", by)
	if !m.mob.Flags.Has(content.MobNoCorpse) && room != nil {
		corpse := z.newCorpse(m, by)
		for _, it := range m.carried() {
			z.itemToContainer(it, corpse)
		}
		z.itemToRoom(corpse, room)
	}
	if by != nil && by.pl != nil {
		if m.gold > 0 {
			by.gold += m.gold
			z.dirty(by)
			z.sendLine(by, "You take "+itoa(m.gold)+" gold coins from the body.")
		}
		exp := m.mob.Exp
		if exp == 0 {
			exp = z.evalOr(z.set.Game.Combat.KillExp, z.combatVars(by, m), 20)
		}
		z.shareExp(by, max(exp, 0))
		z.questKill(m, by)
	}
	z.extractChar(m)
}

// extractChar removes a mob from the world for good (its items are gone
// with it unless moved out first).
func (z *Zone) extractChar(c *Char) {
	if c.room != nil {
		c.room.removeChar(c)
	}
	for _, it := range c.carried() {
		z.extractItem(it)
	}
	z.forget(c)
}

// newCorpse makes a corpse item for a slain mob, lootable by its killer
// first, rotting later.
func (z *Zone) newCorpse(m, by *Char) *Item {
	p := z.corpseProto(m.mob)
	it := &Item{rid: z.newRID(), id: z.newItemID(), proto: p, slot: -1}
	z.items[it.rid] = it
	g := z.set.Game.Combat
	if by != nil && by.pl != nil && g.CorpseLootSecs > 0 {
		it.owner = by.name
		it.ownerUntil = z.pulses.now + z.pulsesOf(g.CorpseLootSecs)
	}
	z.tasks.ScheduleReplacing(taskKey{id: it.id, kind: "decay"}, z.pulses.now, z.pulsesOf(g.CorpseDecaySecs), func() {
		if z.items[it.rid] != it {
			return
		}
		if it.room != nil {
			room := it.room
			for _, o := range room.people {
				z.sendLine(o, capFirst(it.short())+" rots away.")
			}
		}
		z.extractItem(it)
	})
	return it
}

// decayPlayerCorpse schedules a player's corpse to crumble after the decay
// time, leaving what it held on the floor: a player's gear is never
// destroyed by the rot. (A corpse is not saved; a restart spills it too.)
func (z *Zone) decayPlayerCorpse(corpse *Item) {
	g := z.set.Game.Combat
	z.tasks.ScheduleReplacing(taskKey{id: corpse.id, kind: "decay"}, z.pulses.now, z.pulsesOf(g.CorpseDecaySecs), func() {
		if z.items[corpse.rid] != corpse || corpse.room == nil {
			return
		}
		room := corpse.room
		for _, it := range append([]*Item(nil), corpse.contents...) {
			z.itemToRoom(it, room)
		}
		for _, o := range room.people {
			z.sendLine(o, capFirst(corpse.short())+" crumbles to dust, leaving its belongings behind.")
		}
		z.extractItem(corpse)
	})
}

// corpseProto is the prototype of a mob's corpse, made once per mob
// prototype. Corpses are never saved: they are not takeable and rot.
func (z *Zone) corpseProto(m *content.Mob) *content.Item {
	if p := z.corpses[m]; p != nil {
		return p
	}
	kw := append([]string{"corpse"}, m.Keywords...)
	p := &content.Item{
		Ref: m.Zone + ":item:corpse_of_" + m.Local, Zone: m.Zone, Local: "corpse_of_" + m.Local,
		Keywords: kw, Short: "the corpse of " + m.Short, Long: "The corpse of " + m.Short + " lies here.",
		Description: "The remains of " + m.Short + ". Whatever it carried is still with it.",
		Type:        content.ItemCorpse, Flags: content.ItemNoTake, Capacity: 1000,
	}
	if z.corpses == nil {
		z.corpses = map[*content.Mob]*content.Item{}
	}
	z.corpses[m] = p
	return p
}

func (z *Zone) playerDies(v, by *Char) {
	g := z.set.Game.Combat
	killer := v.lastHit
	if by != nil {
		killer = by.short()
	}
	z.sendLine(v, "{R}You have been slain"+func() string {
		if killer != "" {
			return " by " + killer
		}
		return ""
	}()+"!{x}")
	z.act(v.room, v, v, "{R}$n has been slain!{x}")
	if g.DeathExpLossPct > 0 {
		lost := z.expToLevel(v) * g.DeathExpLossPct / 100
		v.exp = max(0, v.exp-lost)
		z.sendLine(v, "You lose "+itoa(lost)+" experience.")
	}
	if g.DeathDropsItems && v.room != nil {
		p := &content.Item{
			Ref: z.template + ":item:corpse_of_player", Zone: z.template, Local: "corpse_of_player",
			Keywords: []string{"corpse", strings.ToLower(v.name)}, Short: "the corpse of " + v.name,
			Long: "The corpse of " + v.name + " lies here.", Type: content.ItemCorpse, Flags: content.ItemNoTake, Capacity: 1000,
		}
		corpse := &Item{rid: z.newRID(), id: z.newItemID(), proto: p, slot: -1, owner: v.name, ownerUntil: ^uint64(0)}
		z.items[corpse.rid] = corpse
		for _, it := range v.carried() {
			z.itemToContainer(it, corpse)
		}
		z.itemToRoom(corpse, v.room)
		z.decayPlayerCorpse(corpse)
	}
	// Harmful affects end; the rest stay. The body is whole again.
	for i := 0; i < len(v.affects); i++ {
		if v.affects[i].a.Harmful {
			v.affects = append(v.affects[:i], v.affects[i+1:]...)
			i--
		}
	}
	z.recalc(v)
	v.hp, v.mana, v.mv = v.maxHP, v.maxM, v.maxMv
	v.pos = posStanding
	v.protected = z.pulses.now + z.pulsesOf(g.ProtectionSecs)
	v.lagUntil = 0
	if v.pl != nil {
		v.pl.pending, v.pl.chain = nil, nil
	}
	z.dirty(v)
	if v.pl != nil {
		v.pl.deaths++
	}
	// Wake at the zone's start room if it has one (in a copy: the copy's
	// own); a copy without one sends the player out to its anchor, the
	// door it was entered by; any other zone, to the recall room.
	if r := z.localRoom(z.proto.StartRoom); z.proto.StartRoom != "" && r != nil {
		z.sendLine(v, "You awaken in "+r.proto.Name+", whole again.")
		z.wakeIn(v, r)
		return
	}
	if z.isInstance() && v.pl != nil && z.toAnchor(v, "You awaken where you came in, whole again.") {
		return
	}
	dest := z.set.Game.RecallRoom
	name := "a familiar place"
	if rp := z.set.Rooms[dest]; rp != nil {
		name = rp.Name
	}
	z.sendLine(v, "You awaken in "+name+", whole again.")
	if r := z.localRoom(dest); r != nil {
		z.wakeIn(v, r)
		return
	}
	if target := z.shard.Zone(parseRef(dest).zone); target != nil {
		z.transferOut(v, target, dest, "")
		return
	}
	// The recall room's zone is not hosted: stay, whole, where we are.
	z.showRoom(v)
}

// wakeIn puts a player who died back on their feet in r, a room here.
func (z *Zone) wakeIn(v *Char, r *Room) {
	if v.room != r {
		v.room.removeChar(v)
		r.addChar(v)
	}
	z.act(r, v, v, "$n appears, pale but whole.")
	z.showRoom(v)
}
