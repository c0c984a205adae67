package zone

import (
	"slices"

	"zonemud/content"
	"zonemud/internal/logev"
)

// cmdMove walks c one step in direction d, and those who follow c after.
func (z *Zone) cmdMove(c *Char, d content.Dir) { z.walk(c, d, 0) }

// walk is cmdMove for a follower depth steps removed from the player who
// typed it.
func (z *Zone) walk(c *Char, d content.Dir, depth int) {
	r := c.room
	ex := r.proto.Exits[d]
	if ex == nil {
		if t := r.entrance(d); t != "" {
			if a := c.prevented("move"); a != nil {
				z.sendLine(c, "You cannot move: "+a.a.Show+"!")
				return
			}
			if c.pos != posStanding && c.pos != posSleeping && c.fighting == nil {
				c.pos = posStanding
				z.sendLine(c, "You stand up.")
			}
			z.enterInstance(c, t, d.String())
			return
		}
		z.sendLine(c, "You cannot go that way.")
		return
	}
	if !r.exitOpen(d) {
		z.sendLine(c, capFirst(ex.Door.Short)+" is closed.")
		return
	}
	if a := c.prevented("move"); a != nil {
		z.sendLine(c, "You cannot move: "+a.a.Show+"!")
		return
	}
	switch {
	case c.fighting != nil:
		z.sendLine(c, "You cannot leave while fighting! Flee first.")
		return
	case c.pos == posSleeping:
		z.sendLine(c, "You are asleep; wake first.")
		return
	}
	if c.pos != posStanding {
		c.pos = posStanding
		z.sendLine(c, "You stand up.")
	}
	name := c.name // c is an empty shell once it has left the zone
	if z.move(c, d) && c.mob == nil {
		z.followers(name, r, d, depth)
	}
}

// move takes c through the exit in direction d, which must be open. A
// destination in this zone is a local move; one in another zone is a
// transfer. It reports whether c moved.
func (z *Zone) move(c *Char, d content.Dir) bool {
	from := c.room
	to := z.exitTo(c, d)
	if c.pl != nil && c.pl.opening != 0 {
		// The way was opening for c standing here; its answer will find
		// c gone and leave the copy to the reaper.
		c.pl.opening, c.pl.openingRoom = 0, nil
		z.sendLine(c, enterMoved)
	}
	if dest := z.localRoom(to); dest != nil {
		z.presence(from, c, c, noticeLeaves(d.String()))
		from.removeChar(c)
		z.fireLeave(from, c, d.String())
		z.presence(dest, nil, c, noticeArrivesFrom(arrivalFrom(d)))
		dest.addChar(c)
		z.showRoom(c)
		z.arrived(c, dest)
		z.stalk(from, c, d)
		return true
	}
	target := z.shard.Zone(parseRef(to).zone)
	if target == nil {
		z.sendLine(c, "That way is blocked for now.")
		return false
	}
	if c.pl == nil {
		return false // mobs stay in their zone
	}
	z.presence(from, c, c, noticeLeaves(d.String()))
	z.fireLeave(from, c, d.String())
	z.transferOut(c, target, to, arrivalFrom(d))
	return true
}

// exitTo is the room the exit in direction d out of c's room takes c to.
// Out of a copy, an exit to a door of the copy's template (the barrow's
// stair up) takes a player back to the door they came in by, the anchor,
// whichever of the template's doors that was.
func (z *Zone) exitTo(c *Char, d content.Dir) string {
	to := c.room.proto.Exits[d].To
	if !z.isInstance() || c.pl == nil || c.pl.anchorRoom == "" || z.localRoom(to) != nil || !z.isDoorOfTemplate(to) {
		return to
	}
	if dest := z.shard.Zone(c.pl.anchorZone); dest == nil || dest == z {
		return to
	}
	return c.pl.anchorRoom
}

// isDoorOfTemplate reports whether the room ref declares a way into a
// copy of this zone's template.
func (z *Zone) isDoorOfTemplate(ref string) bool {
	zp := z.set.Zones[z.template]
	return zp != nil && slices.Contains(zp.Doors, ref)
}

// canGo reports whether move(c, d) through an open exit would succeed:
// the room beyond is in this zone, or in a zone that is up and c is a
// player (mobs stay in their zone).
func (z *Zone) canGo(c *Char, d content.Dir) bool {
	to := z.exitTo(c, d)
	if z.localRoom(to) != nil {
		return true
	}
	return c.pl != nil && z.shard.Zone(parseRef(to).zone) != nil
}

// arrived runs what happens when c has come into room: aggressive mobs
// notice a player, an aggressive mob notices the players there, and the
// room's and mobs' scripts hear of it.
func (z *Zone) arrived(c *Char, room *Room) {
	if c.pl != nil {
		z.questVisit(c, room)
		z.aggro(room, c)
	} else if c.mob.Flags.Has(content.MobAggressive) {
		for _, o := range room.people {
			if o.pl != nil {
				z.aggro(room, o)
			}
		}
	}
	z.fireArrival(room, c)
}

// stalk sends stalker mobs after prey that left their room: a stalker that
// was fighting the one who left, or hunting them after a flee, follows a
// moment later, within its zone.
func (z *Zone) stalk(from *Room, prey *Char, d content.Dir) {
	if prey.pl == nil {
		return
	}
	for _, m := range from.mobs {
		if m.mob == nil || !m.mob.Flags.Has(content.MobStalker) || (m.hunting != prey && m.fighting != prey) {
			continue
		}
		m := m
		m.hunting = prey
		z.pulses.after(2, func() {
			if !z.holds(m) || m.room != from || m.fighting != nil || !from.exitOpen(d) {
				return
			}
			dest := z.localRoom(from.proto.Exits[d].To)
			if dest == nil || !z.holds(prey) || prey.room != dest {
				return
			}
			z.move(m, d)
			if ok, _ := z.canHarm(m, prey); ok && m.room == prey.room {
				z.sendLine(prey, "{R}"+capFirst(m.short())+" follows you and attacks!{x}")
				z.startFight(m, prey)
				z.prompt(prey)
			}
		})
	}
}

// arrivalFrom names where someone who walked d arrives from: walking north
// you arrive from the south.
func arrivalFrom(d content.Dir) string {
	switch r := d.Reverse(); r {
	case content.Up:
		return "below"
	case content.Down:
		return "above"
	default:
		return "the " + r.String()
	}
}

// transferOut hands c to another zone. c must not be touched here again:
// the message hands it over, with everything it carries.
func (z *Zone) transferOut(c *Char, dest *Zone, room, from string) {
	z.transferOutNote(c, dest, room, from, "")
}

// transferOutNote is transferOut with a line for c to read after the room
// it arrives in.
func (z *Zone) transferOutNote(c *Char, dest *Zone, room, from, note string) {
	z.flushOne(c, flushOther)
	z.unqueue(c)
	var back string
	if c.room != nil {
		back = c.room.ref()
		c.room.removeChar(c)
	}
	s := c.pl.sess
	c.hunting = nil
	// A copy this zone asked for on c's behalf is for c standing here: its
	// answer finds c gone and abandons it.
	c.pl.opening, c.pl.openingRoom = 0, nil
	rec := z.record(c)
	rec.Room = room // saved where it is going, so a crash now restores it there
	rec.Zone = dest.id
	z.forget(c) // its timers belong to this zone; the next starts its own
	z.crossingCheckpoint(rec)
	// The character travels as a new value; the old one stays behind,
	// emptied, for whatever in this zone still points at it (a timer, a
	// fight): those see a character that has gone, and never touch what
	// the other zone now owns.
	nc := c.handOver()
	nc.pl.sess = s // forget dropped the link; the session travels with the character
	h := Handoff{transferMsg{ch: nc, room: room, from: from, sentAt: z.pulses.now, note: note, saved: rec.AnchorZone == "" && rec.AnchorRoom == ""}}
	if !z.shard.Moving(c.name, dest, h) {
		// The other zone stopped, or was unhosted, after the move was
		// decided: the character comes back to the room it left, from
		// this zone's own hands, and is never lost between the two.
		z.sendLine(nc, "That way is blocked for now.")
		z.handleTransfer(transferMsg{ch: nc, room: back, sentAt: z.pulses.now})
	}
}

// rebaseTimers moves c's timers from the clock of the zone that sent it,
// which stood at sentAt, to this zone's clock: what was left is left.
func (z *Zone) rebaseTimers(c *Char, sentAt uint64) {
	rebase := func(at uint64) uint64 {
		if at <= sentAt {
			return 0
		}
		return z.pulses.now + (at - sentAt)
	}
	c.lagUntil = rebase(c.lagUntil)
	c.protected = rebase(c.protected)
	for ab, at := range c.cooldown {
		if at = rebase(at); at == 0 {
			delete(c.cooldown, ab)
		} else {
			c.cooldown[ab] = at
		}
	}
}

// handleTransfer receives a character from another zone: new rids here, a
// place in the room, and the session bound to this zone.
func (z *Zone) handleTransfer(m transferMsg) {
	c := m.ch
	if c == nil {
		return
	}
	// The sender may run a newer content version than this zone has
	// caught up with: a room it led c to may be new here.
	z.catchUp()
	defer z.evacuateIfRetired()
	if z.stopping {
		// Nobody will be here to play; hand it straight back.
		z.adopt(c)
		room := z.localRoom(m.room)
		if room == nil {
			room = z.startRoom()
		}
		room.addChar(c)
		s := c.pl.sess
		z.handBack(c, "stop")
		if s != nil {
			s.Close("The world is shutting down. Your character has been saved. See you soon!")
		}
		return
	}
	z.adopt(c)
	z.rebaseTimers(c, m.sentAt)
	room := z.localRoom(m.room)
	saved := m.saved && room != nil && !z.isInstance()
	if room == nil {
		room = z.startRoom()
	}
	if c.pl != nil {
		z.players[c.name] = c
		z.rosterOld = true
		c.pl.arrival++
		if !saved {
			// Where it stands now is not what the sender saved (a copy
			// entered or left, a room that is gone, a hand-off that was
			// not a walk): worth saving. A walk across a border is not:
			// the zone left saved the walker in this room, and a second
			// record of it would double the saver's work for every
			// crossing.
			z.dirty(c)
		}
		if !z.isInstance() {
			c.pl.anchorZone, c.pl.anchorRoom = "", ""
		}
	}
	if m.from != "" {
		z.presence(room, nil, c, noticeArrivesFrom(m.from))
	} else {
		z.presence(room, nil, c, noticeArrives)
	}
	room.addChar(c)
	if c.pl != nil {
		if s := c.pl.sess; s != nil && !s.Closed() {
			c.pl.sess = nil
			z.bind(c, s)
		} else {
			c.pl.sess = nil
			z.goLinkDead(c)
		}
		z.recalc(c)
		if len(c.affects) > 0 || c.hp < c.maxHP || c.mana < c.maxM || c.mv < c.maxMv || c.pl.backlog() {
			c.ticker = pulseHandle{}
			z.wake(c)
		}
		z.showRoom(c)
		if m.note != "" {
			z.sendLine(c, m.note)
		}
		z.prompt(c)
		z.afterArrival(c)
		z.arrived(c, room)
		z.log.Debug("zone: a character entered", logev.ID(7005), logev.Player(c.name), "how", "transfer", "room", room.ref())
	}
}

// adopt re-homes a character from another zone: fresh rids for it and all
// it carries, from this zone's counter.
func (z *Zone) adopt(c *Char) {
	c.rid = z.newRID()
	z.chars[c.rid] = c
	c.home = z
	for _, it := range c.carried() {
		z.adoptItem(it)
	}
}
