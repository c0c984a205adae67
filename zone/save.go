package zone

import (
	"errors"
	"slices"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
)

// Saving (seed 002). The zone never writes to disk: it copies what changed
// into a SaveBatch on its own goroutine and hands it to the saver.
//
//   - A character is saved only while it has changed since its last
//     committed save (ver > savedVer).
//   - Every dirty character of the zone at one checkpoint goes in one batch,
//     which the store commits all or nothing, so a give between two players,
//     or a drop and a pick-up, is never half saved. A character unchanged
//     since the batch it last went to the saver in is not copied again:
//     the saver commits batches in order, so that batch carries it before
//     or with this one (a batch that fails makes its characters count as
//     unsaved again). Without this, N players leaving at once would queue
//     N batches of up to N records each.
//   - Checkpoints fall every checkpoint interval, at a phase drawn at random
//     when the zone starts, so a character's first save lands at a random
//     point within one interval of its arrival and zones do not all save at
//     once. A checkpoint does not wake a dormant zone: an empty zone has no
//     character to save, and it queues its changed rooms as it falls
//     asleep.
//   - Each record carries the arrival it belongs to; the answer only marks
//     a character clean if it is still on that same arrival, so a save from
//     an earlier stay never marks this one clean.
//   - Every hand-back (quit, link-dead reap, fault, stop) and every move to
//     another zone checkpoints the zone with the leaver in it before the
//     return is posted, so a load that follows reads it. A move to another
//     zone carries, of the dirty characters staying, only those whose
//     holdings changed since their last queued save (crossingCheckpoint):
//     both sides of any give, drop or trade, so the batch is still whole
//     for the ledger; the rest wait for the periodic checkpoint.
//   - A walk into another zone is saved by the zone left, with the room
//     walked into: arriving that way is no change to the arrival zone,
//     which saves the walker only once it changes there. Any other arrival
//     (into or out of a copy, a room that is gone, a way that was blocked,
//     a login) counts as a change.

// startCheckpoints schedules the zone's periodic checkpoint.
func (z *Zone) startCheckpoints() {
	interval := uint64(time.Duration(z.cfg.CheckpointSecs) * time.Second / PulseInterval)
	if interval < 1 {
		interval = 1
	}
	phase := 1 + uint64(z.rng.Int64N(int64(interval)))
	h := z.pulses.every(interval, func() { z.checkpoint(nil, false) }).whileEmpty()
	h.t.due = z.pulses.now + phase
}

// saveNow checkpoints out of cadence for whoever asked; the asker hears
// back even if the checkpoint faults, so nothing waits on a lost answer.
func (z *Zone) saveNow(m saveNowMsg) {
	defer m.done()
	z.checkpoint(nil, false)
}

// dirty marks a character as changed since its last save.
func (z *Zone) dirty(c *Char) {
	if c != nil && c.pl != nil {
		c.pl.ver++
		z.dirtyChars[c] = struct{}{}
		z.freshChars[c] = struct{}{}
	}
}

// roomChanged marks a room whose lying items changed, if the change can
// persist: anything in a storage room, an item that is or holds a
// persistent item anywhere. An instance never persists anything.
func (z *Zone) roomChanged(r *Room, it *Item) {
	if z.isInstance() || r == nil {
		return
	}
	if r.proto.Flags.Has(content.RoomStorage) || it.persists() {
		r.objVer++
		z.dirtyRooms[r] = struct{}{}
	}
}

// persists reports whether it, or anything in it, is flagged persistent.
func (it *Item) persists() bool {
	if it.proto.Flags.Has(content.ItemPersistent) {
		return true
	}
	return slices.ContainsFunc(it.contents, (*Item).persists)
}

// checkpoint queues one batch with every dirty character, every leaver in
// leaving (already out of the zone; out of the world too if outOfWorld),
// and every changed persistent room. It does nothing when nothing changed.
func (z *Zone) checkpoint(leaving []*CharRecord, outOfWorld bool) {
	z.checkpointOf(leaving, outOfWorld, false)
}

// crossingCheckpoint is the checkpoint of a walk into another zone: the
// walker (rec), every changed persistent room, and of the dirty
// characters staying, those whose holdings (items, coins, gold) changed
// since their last queued record. A give, a drop or a trade changes the
// holdings of both sides, so both go in this batch with whatever rooms
// it touched, and the store's ledger still sees it whole; a stayer that
// only walked, talked or fought waits for the zone's periodic checkpoint,
// as it would had nobody left. Before, every crossing saved every dirty
// stayer, and in a world where players walk across zones every few
// seconds that was most of the saver's work: each player saved after
// nearly every command (docs/PERFORMANCE.md, issue 25).
func (z *Zone) crossingCheckpoint(rec *CharRecord) {
	z.checkpointOf([]*CharRecord{rec}, false, true)
}

func (z *Zone) checkpointOf(leaving []*CharRecord, outOfWorld, holdingsOnly bool) {
	b := &SaveBatch{Zone: z.id, Gen: z.gen}
	if outOfWorld {
		for _, rec := range leaving {
			b.Leaving = append(b.Leaving, rec.Name)
		}
	}
	var entries []savedEntry
	// A crossing looks only at the characters changed since the last
	// checkpoint looked (freshChars): one that did not change since then
	// cannot have new holdings. Looking at every dirty character instead
	// made each crossing cost the zone's whole dirty roster, thousands in
	// a start zone that everyone walks out of.
	from := z.dirtyChars
	if holdingsOnly {
		from = z.freshChars
	}
	for c := range from {
		delete(z.freshChars, c)
		if _, ok := z.dirtyChars[c]; !ok {
			continue // saved since it changed
		}
		if c.pl == nil || z.players[c.name] != c {
			delete(z.dirtyChars, c)
			continue // gone: its own leaving saved it
		}
		if c.pl.ver == c.pl.savedVer || c.pl.ver == c.pl.queuedVer {
			delete(z.dirtyChars, c)
			continue // clean, or queued: a failed batch marks it again
		}
		held := holdingsPrint(c)
		if holdingsOnly && c.pl.heldKnown && held == c.pl.heldPrint {
			continue // still dirty, for the periodic checkpoint
		}
		delete(z.dirtyChars, c)
		c.pl.queuedVer = c.pl.ver
		c.pl.heldPrint, c.pl.heldKnown = held, true
		rec := z.record(c)
		b.Chars = append(b.Chars, rec)
		entries = append(entries, savedEntry{name: c.name, arrival: c.pl.arrival, ver: c.pl.ver})
	}
	b.Chars = append(b.Chars, leaving...)
	var rooms []*Room
	if !z.isInstance() {
		for r := range z.dirtyRooms {
			delete(z.dirtyRooms, r)
			if r.objVer == r.objSaved {
				continue
			}
			b.Rooms = append(b.Rooms, RoomRecord{Room: r.ref(), Items: z.persistentItems(r)})
			r.objSaved = r.objVer
			rooms = append(rooms, r)
		}
	}
	if len(b.Chars) == 0 && len(b.Rooms) == 0 {
		return
	}
	z.checkpoints.Add(1)
	b.Done = func(err error) { z.send(savedMsg{entries: entries, rooms: rooms, err: err}) }
	z.shard.Checkpoint(b)
}

// persistentItems lists the items of r that survive a restart: everything
// in a storage room, items flagged persistent anywhere. A persistent item
// in a container that is not kept (or in a corpse, which is never saved:
// it rots, and its prototype is made at death) is saved as if it lay on the
// floor, so a restart spills it rather than loses it.
func (z *Zone) persistentItems(r *Room) []ItemRecord {
	storage := r.proto.Flags.Has(content.RoomStorage)
	var out []ItemRecord
	var walk func(items []*Item)
	walk = func(items []*Item) {
		for _, it := range items {
			if it.proto.Type != content.ItemCorpse && (storage || it.proto.Flags.Has(content.ItemPersistent)) {
				out = append(out, itemRecord(it))
			} else {
				walk(it.contents)
			}
		}
	}
	walk(r.items)
	return out
}

// handleSaved marks characters clean after their save committed, if they
// are still here on the same arrival and have not changed past what was
// saved. A refused or failed batch leaves them dirty for the next
// checkpoint; rooms it carried are marked changed again.
func (z *Zone) handleSaved(m savedMsg) {
	if m.err != nil {
		z.saveFailures.Add(1)
		z.log.Warn("zone: a checkpoint did not commit; it is retried", logev.ID(7101), "err", m.err)
		// A character whose save was refused for an older owner epoch is
		// a body a newer login has superseded: it must never save again.
		var stale interface{ StaleNames() []string }
		if errors.As(m.err, &stale) {
			for _, name := range stale.StaleNames() {
				if c := z.players[name]; c != nil {
					z.evict(c)
				}
			}
		}
		for _, r := range m.rooms {
			r.objVer++
			z.dirtyRooms[r] = struct{}{}
		}
		// The batch's characters count as unsaved again: the next
		// checkpoint copies them whether or not they changed.
		for _, e := range m.entries {
			if c := z.players[e.name]; c != nil && c.pl.arrival == e.arrival && c.pl.queuedVer == e.ver {
				c.pl.queuedVer = 0
				c.pl.heldKnown = false
				z.dirtyChars[c] = struct{}{}
				z.freshChars[c] = struct{}{}
			}
		}
		return
	}
	for _, e := range m.entries {
		c := z.players[e.name]
		if c == nil || c.pl.arrival != e.arrival {
			continue
		}
		if e.ver > c.pl.savedVer {
			c.pl.savedVer = e.ver
		}
		c.pl.savedAt = time.Now()
	}
}

// evict takes a character out of the zone without saving it: its save was
// refused because a newer login owns it.
func (z *Zone) evict(c *Char) {
	z.log.Error("zone: evicting a character whose owner epoch is stale; not saved", logev.ID(7102), logev.Player(c.name))
	s := c.pl.sess
	z.presence(c.room, c, c, noticeFades)
	if c.room != nil {
		c.room.removeChar(c)
	}
	z.forget(c)
	if s != nil {
		s.Close("This character is now played from a newer login; this connection is closed.")
	}
}

// loadObjects places the persistent objects the world read from the store
// for this zone at boot. An instance loads none: every copy of a template
// has the same room refs, so loading would make one stored item lootable
// in every copy.
func (z *Zone) loadObjects(objs map[string][]ItemRecord) {
	if z.isInstance() {
		return
	}
	for ref, items := range objs {
		r := z.localRoom(ref)
		if r == nil {
			z.log.Warn("zone: stored objects for a room that no longer exists; left in the store", logev.ID(7103), "room", ref, "items", len(items))
			continue
		}
		for _, ir := range items {
			if it := z.itemFromRecord(ir); it != nil {
				it.room = r
				r.items = append(r.items, it)
			}
		}
	}
}

// holdingsPrint is a fingerprint of what c holds as the store's ledger
// sees it: each item's id and coins, with its contents, and c's gold. It
// does not depend on order or slot (wearing a sword is no change to the
// ledger). Any move of an item or of money between two holders changes it
// on both.
func holdingsPrint(c *Char) uint64 {
	h := mix64(uint64(c.gold) ^ 0x9e3779b97f4a7c15)
	for _, it := range c.eq {
		if it != nil {
			h += itemPrint(it)
		}
	}
	for _, it := range c.inv {
		h += itemPrint(it)
	}
	return h
}

func itemPrint(it *Item) uint64 {
	var sub uint64
	for _, in := range it.contents {
		sub += itemPrint(in)
	}
	return mix64(it.id ^ mix64(uint64(it.coins)+0x632be59bd9b4e019) ^ mix64(sub+0x8cb92ba72f3d8dd7))
}

// mix64 is a 64-bit finaliser (splitmix64's).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}
