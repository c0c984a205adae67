package zone

import (
	"zonemud/world/content"
)

// cmdMove walks c one step in direction d.
func (z *Zone) cmdMove(c *Char, d content.Dir) {
	r := c.room
	ex := r.proto.Exits[d]
	if ex == nil {
		if r.proto.Entrances[d] != "" {
			z.sendLine(c, "The way "+d.String()+" does not open for you yet.")
			return
		}
		z.sendLine(c, "You cannot go that way.")
		return
	}
	if !r.exitOpen(d) {
		z.sendLine(c, capFirst(ex.Door.Short)+" is closed.")
		return
	}
	z.move(c, d)
}

// move takes c through the exit in direction d, which must be open. A
// destination in this zone is a local move; one in another zone is a
// transfer. It reports whether c moved.
func (z *Zone) move(c *Char, d content.Dir) bool {
	from := c.room
	to := from.proto.Exits[d].To
	if dest := z.localRoom(to); dest != nil {
		z.act(from, c, c, "$n leaves "+d.String()+".")
		from.removeChar(c)
		z.act(dest, nil, c, "$n arrives from "+arrivalFrom(d)+".")
		dest.addChar(c)
		z.showRoom(c)
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
	z.act(from, c, c, "$n leaves "+d.String()+".")
	z.transferOut(c, target, to, arrivalFrom(d))
	return true
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
	z.flushOne(c, false)
	z.unqueue(c)
	if c.room != nil {
		c.room.removeChar(c)
	}
	s := c.pl.sess
	rec := z.record(c)
	rec.Room = room // saved where it is going, so a crash now restores it there
	rec.Zone = dest.id
	z.forget(c)
	c.pl.sess = s // forget drops the link; the session travels with the character
	z.checkpoint([]*CharRecord{rec})
	m := transferMsg{ch: c, room: room, from: from, via: "walk"}
	z.shard.Moving(c.name, dest, func() {
		dest.send(m)
		if s != nil {
			s.SetZone(dest)
		}
	})
}

// handleTransfer receives a character from another zone: new rids here, a
// place in the room, and the session bound to this zone.
func (z *Zone) handleTransfer(m transferMsg) {
	c := m.ch
	if c == nil {
		return
	}
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
	room := z.localRoom(m.room)
	if room == nil {
		room = z.startRoom()
	}
	if c.pl != nil {
		z.players[c.name] = c
		z.rosterOld = true
		c.pl.arrival++
		z.dirty(c)
		if !z.isInstance() {
			c.pl.anchorZone, c.pl.anchorRoom = "", ""
		}
	}
	if m.from != "" {
		z.act(room, nil, c, "$n arrives from "+m.from+".")
	} else {
		z.act(room, nil, c, "$n arrives.")
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
		z.showRoom(c)
		z.prompt(c)
		z.afterArrival(c)
	}
}

// adopt re-homes a character from another zone: fresh rids for it and all
// it carries, from this zone's counter.
func (z *Zone) adopt(c *Char) {
	c.rid = z.newRID()
	z.chars[c.rid] = c
	for _, it := range c.carried() {
		z.adoptItem(it)
	}
}
