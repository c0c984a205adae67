package zone

import "time"

// Test-only bridges into the package. Tests in package zone_test (which may
// import the world and the gate) reach internals through these names.

func init() {
	debugOwner = true
	// A command that panics, so end-to-end tests can check that a fault in
	// one handler costs only that session.
	commands = append(commands, command{
		name:   "crashme",
		fn:     func(z *Zone, c *Char, args string) { panic("crashme: injected by a test") },
		usage:  "crashme\n  Panics (tests only).",
		exact:  true,
		hidden: true,
	})
}

// BootForTest runs the zone's boot on the calling goroutine, which becomes
// the zone's owner: for benchmarks and tests that drive a zone by hand
// instead of running it.
func (z *Zone) BootForTest() {
	z.owner.claim()
	z.boot()
}

// TickForTest runs one pulse.
func (z *Zone) TickForTest() { z.tick() }

// HandleForTest handles one inbox message and flushes output, as one turn
// of Run would.
func (z *Zone) InputForTest(s Session, seq uint64, line string) {
	z.drainMail()
	z.handle(inputMsg{sess: s, seq: seq, line: line})
	z.flush()
}

// DrainForTest handles whatever is on the mailbox.
func (z *Zone) DrainForTest() {
	z.drainMail()
	z.flush()
}

// SpawnForTest puts n copies of a mob in a room.
func (z *Zone) SpawnForTest(mob, room string, n int) {
	p, r := z.set.Mobs[mob], z.rooms[room]
	for i := 0; i < n; i++ {
		z.spawnMob(p, r)
	}
}

// DropForTest puts n copies of an item in a room.
func (z *Zone) DropForTest(item, room string, n int) {
	p, r := z.set.Items[item], z.rooms[room]
	for i := 0; i < n; i++ {
		z.itemToRoom(z.newItem(p), r)
	}
}

// PendingTasks is the number of live pulse callbacks.
func (z *Zone) PendingTasks() int { return z.pulses.len() }

// DroppedInputs is how many inputs were dropped as already applied.
func (z *Zone) DroppedInputs() uint64 { return z.dropped.Load() }

// SetOwnerCheck turns the goroutine owner check on or off; benchmarks turn
// it off to measure what production runs.
func SetOwnerCheck(on bool) { debugOwner = on }

// CharState reports a held character's change counters and arrival.
func (z *Zone) CharState(name string) (ver, savedVer, arrival uint64, ok bool) {
	c := z.players[name]
	if c == nil {
		return 0, 0, 0, false
	}
	return c.pl.ver, c.pl.savedVer, c.pl.arrival, true
}

// SavedForTest delivers a saver's answer for one character, as the saver
// would after committing a batch that carried it.
func (z *Zone) SavedForTest(name string, arrival, ver uint64, err error) {
	z.handle(savedMsg{entries: []savedEntry{{name: name, arrival: arrival, ver: ver}}, err: err})
}

// CheckpointForTest runs a checkpoint now.
func (z *Zone) CheckpointForTest() { z.checkpoint(nil) }

// CheckpointInterval is the checkpoint interval in pulses.
func (z *Zone) CheckpointInterval() uint64 {
	return uint64(time.Duration(z.cfg.CheckpointSecs) * time.Second / PulseInterval)
}

// DirtyAllForTest marks every player changed.
func (z *Zone) DirtyAllForTest() {
	for _, c := range z.players {
		z.dirty(c)
	}
}
