package zone

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
