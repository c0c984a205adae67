package zone

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zonemud/content"
	"zonemud/internal/markup"
	"zonemud/script"
)

// A content reload. The world loads and validates a whole new version of
// the content off every zone goroutine, swaps it in as the current
// Snapshot, and offers each zone a notice (postOrDrop). Each zone then
// reconciles on its own goroutine: its rooms take the new prototypes at
// once (names, descriptions, extra descriptions, exits, doors), new rooms
// appear, removed rooms send their people somewhere safe, resets and new
// spawns use the new mob and item prototypes, and scripts that changed are
// attached afresh (a script its breaker switched off runs again). Mobs and
// items already in the world keep the prototype they were made from.
//
// A notice is only a hint: a zone compares its version with the shard's at
// every batch and every pulse, and before it takes in an arrival, so a
// dropped notice costs at most a pulse, and a character that walks in from
// a zone that reconciled first finds the new rooms here too. An instance
// never reconciles: a copy keeps the version it was minted from.

// Snapshot is one version of the content: the validated set and its
// compiled scripts. Immutable once the world publishes it.
type Snapshot struct {
	// Version counts the snapshots the world has run; it only grows.
	Version uint64
	Set     *content.Set
	Scripts Scripts
}

// Reload offers the zone a notice that a new snapshot is current. It never
// blocks: a zone whose inbox is full drops it and catches up at its next
// pulse. It reports whether the notice was taken.
func (z *Zone) Reload() bool { return z.postOrDrop(reloadMsg{}) }

// Told is the report as every builder online is told it: at most
// maxToldProblems problems.
func (r ReloadReport) Told() string { return r.text(maxToldProblems) }

// TellBuilders shows text to every builder online in the zone (players
// with the builder or admin role, or named in the zone file) for whom only,
// if not nil, reports true. only runs on the zone goroutine.
func (z *Zone) TellBuilders(text string, only func(name string) bool) {
	z.send(buildersMsg{text: text, only: only})
}

// TellBuilder shows text to the named player if this zone holds it, with a
// prompt after it; a zone the player has left passes it on.
func (z *Zone) TellBuilder(name, text string) {
	z.send(buildersMsg{text: text, to: name})
}

func (z *Zone) handleBuilders(m buildersMsg) {
	if m.to != "" {
		c := z.players[m.to]
		if c == nil {
			z.forward(m, m.to)
			return
		}
		z.sendLine(c, m.text)
		z.prompt(c)
		return
	}
	for _, c := range z.sortedPlayers() {
		if (c.role() >= roleBuilder || z.isBuilder(c.name)) && (m.only == nil || m.only(c.name)) {
			z.sendLine(c, m.text)
			z.prompt(c)
		}
	}
}

// postOrDrop offers m to the inbox without blocking. Only for notices a
// zone recovers by itself when one is dropped.
func (z *Zone) postOrDrop(m msg) bool {
	select {
	case z.inbox <- m:
		return true
	default:
		return false
	}
}

// Version is the content version the zone runs, as of its last reconcile.
func (z *Zone) Version() uint64 { return z.version.Load() }

// catchUp reconciles the zone with the shard's current snapshot if it runs
// an older one. An instance keeps the version it was minted from.
func (z *Zone) catchUp() {
	if z.isInstance() {
		return
	}
	s := z.shard.Snapshot()
	if s == nil || s.Version <= z.version.Load() {
		return
	}
	start := time.Now()
	z.reconcile(s)
	z.shard.Reconciled(z, s.Version, time.Since(start))
}

// reconcile brings the zone to snapshot s.
func (z *Zone) reconcile(s *Snapshot) {
	z.owner.check()
	z.version.Store(s.Version)
	zp := s.Set.Zones[z.template]
	if zp == nil || zp.Instanceable {
		// The zone is gone from the content (or is now entered only
		// through copies): everyone leaves for the world's start room,
		// and the world unhosts the zone once it is empty.
		z.retired = true
		z.set, z.scripts = s.Set, s.Scripts
		z.evacuate()
		return
	}
	oldRooms := z.proto.Rooms
	z.retired = false // a zone whose file came back before it was unhosted
	z.proto, z.set, z.scripts = zp, s.Set, s.Scripts
	z.name.Store(&zp.Name)
	z.corpses = nil // made afresh from the new mob prototypes
	for _, rp := range zp.Rooms {
		if r := z.rooms[rp.Ref]; r != nil {
			r.reproto(rp)
		} else {
			z.rooms[rp.Ref] = newRoom(rp)
		}
	}
	for _, rp := range oldRooms {
		if s.Set.Rooms[rp.Ref] == nil {
			if r := z.rooms[rp.Ref]; r != nil {
				delete(z.rooms, rp.Ref)
				z.removeRoom(r)
			}
		}
	}
	z.relinkResets()
	if zp.ResetSecs != z.resetEvery {
		z.scheduleResets()
	}
	z.rescript()
	z.rosterOld = true
}

// reproto gives a room its new prototype. A door that stays keeps its
// state (open, closed, locked); a new door starts as written; a door that
// went is gone.
func (r *Room) reproto(p *content.Room) {
	old := r.proto
	r.proto = p
	for d := range p.Exits {
		nd := p.Exits[d]
		var od *content.Door
		if old.Exits[d] != nil {
			od = old.Exits[d].Door
		}
		switch {
		case nd == nil || nd.Door == nil:
			r.doors[d] = doorNone
			r.doorAt[d] = doorStamp{}
		case od == nil:
			r.doors[d] = initialDoor(nd.Door)
		}
	}
}

// removeRoom empties a room the content no longer has: players go to the
// zone's start room with a line, mobs are gone, and the items lying there
// are dropped from memory (the store keeps whatever it held for the room,
// so a room that comes back finds its persistent items again).
func (z *Zone) removeRoom(r *Room) {
	safe := z.startRoom()
	for _, c := range slices.Clone(r.people) {
		if c.pl == nil {
			z.stopFighting(c)
			z.extractChar(c)
			continue
		}
		z.stopFighting(c)
		r.removeChar(c)
		if safe == nil {
			continue // not reached: a zone has at least one room
		}
		z.presence(safe, nil, c, noticeArrives)
		safe.addChar(c)
		z.sendLine(c, "{Y}The place where you stood has been unmade by the world's builders. You find yourself somewhere safe.{x}")
		z.showRoom(c)
		z.prompt(c)
		z.dirty(c)
		z.arrived(c, safe)
	}
	for _, it := range slices.Clone(r.items) {
		r.items = removeItem(r.items, it)
		it.room = nil
		z.forgetItem(it)
	}
}

// evacuate sends every player in a retired zone to the world's start room,
// as if they had walked there. Mobs and items stay until the world unhosts
// the zone.
func (z *Zone) evacuate() {
	start := z.set.Game.StartRoom
	dest := z.shard.Zone(content.RefZone(start))
	for _, c := range z.sortedPlayers() {
		z.stopFighting(c)
		if dest == nil || dest == z {
			continue // the world's start room is always hosted, and never here
		}
		z.sendLine(c, "{Y}This part of the world has been unmade by its builders. You find yourself back where you began.{x}")
		z.presence(c.room, c, c, noticeFades)
		z.transferOut(c, dest, start, "")
	}
}

// evacuateIfRetired sends on anyone who arrived in a retired zone.
func (z *Zone) evacuateIfRetired() {
	if z.retired && len(z.players) > 0 {
		z.evacuate()
	}
}

// relinkResets points each mob at the reset of the new content that
// stands for the one that made it (the same place in the list, or failing
// that the same mob and room), so resets count it and do not spawn a
// second. A mob whose reset is gone stays until it dies.
func (z *Zone) relinkResets() {
	for _, c := range z.chars {
		if c.reset == nil {
			continue
		}
		old := c.reset
		c.reset = nil
		for _, rs := range z.proto.Resets {
			if rs.Kind == old.Kind && rs.Proto == old.Proto && rs.Room == old.Room {
				if rs.Key == old.Key || c.reset == nil {
					c.reset = rs
				}
			}
		}
	}
}

// rescript attaches each script that changed: a room's to its room, a mob
// or item prototype's to every live mob and item made from it that had a
// script. A script whose source did not change keeps running as it was
// (its state and timers too); a changed one starts afresh with a new
// breaker, so one its breaker switched off runs again. A script added to a
// prototype reaches the mobs and items spawned from now on.
func (z *Zone) rescript() {
	if z.vm == nil {
		z.startScripts()
		return
	}
	for _, rp := range z.proto.Rooms {
		z.reattach(roomID(z.rooms[rp.Ref]), rp.Script)
	}
	for _, c := range z.chars {
		if c.mob != nil && c.mob.Script != nil && z.holds(c) {
			var src *content.Script
			if p := z.set.Mobs[c.mob.Ref]; p != nil {
				src = p.Script
			}
			z.reattach(charID(c), src)
		}
	}
	for _, it := range z.items {
		if it.proto.Script != nil {
			var src *content.Script
			if p := z.set.Items[it.proto.Ref]; p != nil {
				src = p.Script
			}
			z.reattach(itemID(it), src)
		}
	}
	live := make(map[*script.Compiled]bool, len(z.scripts.Compiled))
	for _, c := range z.scripts.Compiled {
		live[c] = true
	}
	z.vm.Retire(func(c *script.Compiled) bool { return live[c] })
}

// reattach gives id the compiled form of src unless it runs it already.
func (z *Zone) reattach(id script.ID, src *content.Script) {
	want := z.scripts.Compiled[src]
	if z.vm.Script(id) == want {
		return
	}
	z.ticking = slices.DeleteFunc(z.ticking, func(t script.ID) bool { return t == id })
	if want == nil {
		z.vm.Detach(id)
		return
	}
	z.attachTo(id, src)
}

// ReloadReport is what a reload did, for the builder who asked, every
// builder online, the log and tests.
type ReloadReport struct {
	// Seq counts reloads the world has tried since it started, refused
	// ones included.
	Seq uint64
	// Version is the content version running after it.
	Version uint64
	// Trigger says what asked for it: "start", "files changed",
	// "reload by Aria".
	Trigger string
	// At is when it finished.
	At time.Time
	// Problems, if any, are why it was refused: the running version was
	// kept, untouched.
	Problems content.Problems
	// Changes are what changed, a line each.
	Changes []string
	// Copies are the live instance copies, which keep the version they
	// were minted from.
	Copies []string
	// Unchanged: the files were read and nothing in them had changed.
	Unchanged bool
	// Restored: unchanged, after a refused reload: the files are back to
	// the running version, so the refusal's problems are gone.
	Restored bool
	// Warnings are what zonemud check warns of in the content read (help
	// that shows a command the game lacks); they refuse nothing.
	Warnings []string
	// Loaded is how long reading, validating and compiling took, on the
	// reload worker (no zone waits on it).
	Loaded time.Duration
	// Applied is how long from the swap until every zone had reconciled.
	Applied time.Duration
	// LongestPause is the longest one zone's goroutine spent
	// reconciling, and PauseZone that zone.
	LongestPause time.Duration
	PauseZone    string
	// Reconciled counts the zones that reconciled, and SlowPauses those
	// whose reconcile took more than 5 ms of wall-clock time (on a busy
	// machine, mostly time the goroutine waited for a CPU).
	Reconciled, SlowPauses int
	// Late are zones that had not reconciled when the report was
	// written; each catches up by its next pulse.
	Late []string
}

// Refused reports whether the reload was refused.
func (r ReloadReport) Refused() bool { return len(r.Problems) > 0 }

// Text is the report as a builder reads it.
func (r ReloadReport) Text() string { return r.text(0) }

// maxToldProblems caps the problems told to every builder online at once;
// reload and areas show them all.
const maxToldProblems = 20

// text is the report with at most limit problems (0: all).
func (r ReloadReport) text(limit int) string {
	var b strings.Builder
	switch {
	case r.Refused():
		fmt.Fprintf(&b, "{R}Reload refused{x} (%s): %d problem(s); the world runs version %d as before.\n", r.Trigger, len(r.Problems), r.Version)
		for i, p := range r.Problems {
			if limit > 0 && i == limit {
				fmt.Fprintf(&b, "  ... and %d more: type reload, or run zonemud check, to see them all.\n", len(r.Problems)-limit)
				break
			}
			b.WriteString("  " + markup.Escape(p.String()) + "\n")
		}
	case r.Restored:
		fmt.Fprintf(&b, "{G}Reload{x} (%s): nothing changed: the files are back to the running version %d, and the problems of the refused reload are gone.\n", r.Trigger, r.Version)
	case r.Unchanged:
		fmt.Fprintf(&b, "Reload (%s): nothing in the files has changed; the world runs version %d.\n", r.Trigger, r.Version)
	default:
		fmt.Fprintf(&b, "{G}Reload applied{x} (%s): the world runs version %d.\n", r.Trigger, r.Version)
		for _, c := range r.Changes {
			b.WriteString("  " + markup.Escape(c) + "\n")
		}
		fmt.Fprintf(&b, "  Read and checked in %s; applied in %s", roundDur(r.Loaded), roundDur(r.Applied))
		if r.PauseZone != "" {
			fmt.Fprintf(&b, "; the longest a zone paused was %s (%s)", roundDur(r.LongestPause), r.PauseZone)
		}
		b.WriteString(".\n")
		if len(r.Late) > 0 {
			fmt.Fprintf(&b, "  Still catching up: %s.\n", strings.Join(r.Late, ", "))
		}
	}
	for _, c := range r.Copies {
		b.WriteString("  " + markup.Escape(c) + "\n")
	}
	if !r.Refused() {
		for i, w := range r.Warnings {
			if limit > 0 && i == limit {
				fmt.Fprintf(&b, "  ... and %d more warnings: run zonemud check to see them all.\n", len(r.Warnings)-limit)
				break
			}
			b.WriteString("  {Y}warning:{x} " + markup.Escape(w) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
