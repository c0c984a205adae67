package zone

import (
	"time"

	"zonemud/world/content"
)

// rid is a runtime id: unique within one zone, reassigned when an entity
// moves to another zone. Two instances of one template allocate rids in the
// same order, so a rid means nothing outside the zone that issued it.
type rid uint64

// Char is a character: a player (pl != nil) or a mob (mob != nil).
// Zone goroutine only.
type Char struct {
	rid  rid
	name string // a player's name; a mob's short description
	pl   *Player
	mob  *content.Mob
	room *Room
	inv  []*Item
	eq   []*Item // by slot index of the game data; nil where empty

	level, exp int
	hp, maxHP  int
	mana, maxM int
	mv, maxMv  int
	gold       int

	reset   *content.Reset // the reset that spawned this mob
	wander  pulseHandle
	created int64

	// recItems is the saved form of everything c carries, built by record
	// and reused while nothing c carries changes, so a checkpoint of an
	// unchanged inventory copies a slice header, not twenty items. It is
	// never modified once built (the saver may be reading it); any change
	// to what c carries drops it (itemsChanged).
	recItems []ItemRecord
	recValid bool
}

// Player is what only a player's character has.
type Player struct {
	sess       Session
	appliedSeq uint64
	out        []byte
	queued     bool // in the zone's flush list
	atPrompt   bool // the client's cursor sits after a prompt
	linkDead   bool
	reap       pulseHandle
	lastInput  time.Time
	arrived    time.Time
	title      string
	admin      bool
	settings   Settings
	replyTo    string
	commands   uint64
	played     int64
	anchorZone string
	anchorRoom string
	epoch      uint64
	arrival    uint64
	// ver counts changes to the character; savedVer is the ver of its last
	// committed save on this arrival.
	ver, savedVer uint64
	// lastVitals is what Char.Vitals last told the client.
	lastVitals gmcpVitals
}

// stateWord names what the character is doing, for GMCP Char.Status.
func (c *Char) stateWord() string { return "standing" }

// isPlayer reports whether c is a player's character.
func (c *Char) isPlayer() bool { return c.pl != nil }

// keywords are what other players type to target c.
func (c *Char) keywords() []string {
	if c.mob != nil {
		return c.mob.Keywords
	}
	return nil
}

// short is how c appears in a sentence: "Aria", "a giant rat".
func (c *Char) short() string { return c.name }

// long is c's line in a room listing.
func (c *Char) long() string {
	if c.mob != nil {
		return c.mob.Long
	}
	s := c.name
	if c.pl.title != "" {
		s += " " + c.pl.title
	}
	s += " is here."
	if c.pl.linkDead {
		s += " (link-dead)"
	}
	return s
}

// newPlayerChar builds a player's character from its record. Items are
// built and given rids by the caller through adoptItems.
func (z *Zone) newPlayerChar(rec *CharRecord) *Char {
	c := &Char{
		name: rec.Name, level: max(rec.Level, 1), exp: rec.Exp,
		hp: rec.HP, mana: rec.Mana, mv: rec.Moves, gold: rec.Gold,
		created: rec.Created,
		pl: &Player{
			title: rec.Title, admin: rec.Admin, settings: rec.Settings,
			commands: rec.Commands, played: rec.Played,
			anchorZone: rec.AnchorZone, anchorRoom: rec.AnchorRoom,
			epoch: rec.Epoch, arrival: rec.Arrival,
			lastInput: time.Now(), arrived: time.Now(),
		},
	}
	z.setMaxima(c)
	if c.hp <= 0 || c.hp > c.maxHP {
		c.hp = c.maxHP
	}
	if c.mana <= 0 || c.mana > c.maxM {
		c.mana = c.maxM
	}
	if c.mv <= 0 || c.mv > c.maxMv {
		c.mv = c.maxMv
	}
	c.eq = make([]*Item, len(z.set.Game.Slots))
	for _, ir := range rec.Items {
		it := z.itemFromRecord(ir)
		if it == nil {
			continue
		}
		if ir.Slot != "" {
			if i := z.slotIndex(ir.Slot); i >= 0 && c.eq[i] == nil {
				it.carrier, it.slot = c, i
				c.eq[i] = it
				continue
			}
		}
		it.carrier = c
		c.inv = append(c.inv, it)
	}
	return c
}

// setMaxima derives a character's maximum vitals from its level.
func (z *Zone) setMaxima(c *Char) {
	if c.mob != nil {
		return
	}
	c.maxHP = 20 + 10*c.level
	c.maxM = 10 + 5*c.level
	c.maxMv = 100 + 5*c.level
}

// record writes c's durable state into a record.
func (z *Zone) record(c *Char) *CharRecord {
	p := c.pl
	rec := &CharRecord{
		Name: c.name, Created: c.created, Played: p.played + int64(time.Since(p.arrived)/time.Second),
		Commands: p.commands, Title: p.title, Admin: p.admin,
		Level: c.level, Exp: c.exp, HP: c.hp, Mana: c.mana, Moves: c.mv, Gold: c.gold,
		Settings: p.settings, Epoch: p.epoch, Arrival: p.arrival,
		AnchorZone: p.anchorZone, AnchorRoom: p.anchorRoom,
	}
	if c.room != nil {
		rec.Room = c.room.proto.Ref
		rec.Zone = z.id
	}
	if !c.recValid {
		var items []ItemRecord
		for i, it := range c.eq {
			if it != nil {
				ir := itemRecord(it)
				ir.Slot = z.set.Game.Slots[i].Name
				items = append(items, ir)
			}
		}
		for _, it := range c.inv {
			items = append(items, itemRecord(it))
		}
		c.recItems, c.recValid = items, true
	}
	rec.Items = c.recItems
	return rec
}

func (z *Zone) slotIndex(name string) int {
	for i, s := range z.set.Game.Slots {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// carried lists everything c holds, worn and carried, top level only.
func (c *Char) carried() []*Item {
	out := make([]*Item, 0, len(c.inv)+2)
	for _, it := range c.eq {
		if it != nil {
			out = append(out, it)
		}
	}
	return append(out, c.inv...)
}
