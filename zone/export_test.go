package zone

import (
	"errors"
	"time"

	"zonemud/content"
	"zonemud/script"
)

// Test-only bridges into the package. Tests in package zone_test (which may
// import the world, never a whole server) reach internals through these
// names; the few whole-server tests in server/ need are in testhooks.go.

// BootForTest runs the zone's boot on the calling goroutine, which becomes
// the zone's owner: for benchmarks and tests that drive a zone by hand
// instead of running it.
func (z *Zone) BootForTest() {
	z.owner.claim()
	z.boot()
}

// TickForTest runs one pulse.
func (z *Zone) TickForTest() { z.tick() }

// ScriptWorkForTest is the work the zone's scripts have done in this pulse
// so far (after TickForTest: in the pulse it ran), and the VM's counters.
func (z *Zone) ScriptWorkForTest() (int64, script.Stats) {
	if z.vm == nil {
		return 0, script.Stats{}
	}
	return z.vm.PulseWork(), z.vm.Stats()
}

// InputForTest handles one input line and flushes output, as one turn
// of Run would, but for the gap (flushNowForTest).
func (z *Zone) InputForTest(s Session, seq uint64, line string) {
	z.drainMail()
	name := ""
	if c := z.bySess[s.ID()]; c != nil {
		name = c.name
	}
	z.handle(inputMsg{sess: s, name: name, seq: seq, line: line})
	z.flushNowForTest()
}

// DrainForTest handles whatever is on the mailbox.
func (z *Zone) DrainForTest() {
	z.drainMail()
	z.flushNowForTest()
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
func (z *Zone) CheckpointForTest() { z.checkpoint(nil, false) }

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

// ApplyAffectForTest puts a game-data affect on a held player.
func (z *Zone) ApplyAffectForTest(name, affect string) bool {
	return z.applyAffect(z.players[name], z.set.Game.Affects[affect], nil)
}

// AffectState reports a player's stacks and pulses left of an affect.
func (z *Zone) AffectState(name, affect string) (stacks, left int, ok bool) {
	for _, a := range z.players[name].affects {
		if a.a.Name == affect {
			return a.stacks, a.left, true
		}
	}
	return 0, 0, false
}

// Stats reports a player's hitroll, armour and hit points.
func (z *Zone) StatsForTest(name string) (hitroll, armor, hp, maxHP int) {
	c := z.players[name]
	return c.st.hitroll, c.st.armor, c.hp, c.maxHP
}

// CountMobs counts live mobs of a prototype.
func (z *Zone) CountMobs(proto string) int {
	n := 0
	for _, c := range z.chars {
		if c.mob != nil && c.mob.Ref == proto {
			n++
		}
	}
	return n
}

// PurgeMobs removes every mob of a prototype, as if they died.
func (z *Zone) PurgeMobs(proto string) {
	for _, c := range z.chars {
		if c.mob != nil && c.mob.Ref == proto {
			z.extractChar(c)
		}
	}
}

// ResetForTest runs the zone's resets now.
func (z *Zone) ResetForTest() { z.resetZone(false) }

// RoomItems counts items of a prototype lying in a room.
func (z *Zone) RoomItems(room, proto string) int {
	n := 0
	for _, it := range z.rooms[room].items {
		if proto == "" || it.proto.Ref == proto {
			n++
		}
	}
	return n
}

// DoorState is a room's door in a direction: "", "open", "closed" or
// "locked".
func (z *Zone) DoorState(room, dir string) string {
	d, _ := content.ParseDir(dir)
	return [...]string{"", "open", "closed", "locked"}[z.rooms[room].doors[d]]
}

// SetDoorForTest sets a door.
func (z *Zone) SetDoorForTest(room, dir, state string) {
	d, _ := content.ParseDir(dir)
	z.setDoor(z.rooms[room], d, state)
}

// FightPairsForTest spawns 2n copies of a mob in a room, makes them nearly
// unkillable, and pairs them off fighting each other.
func (z *Zone) FightPairsForTest(mob, room string, n int) {
	p, r := z.set.Mobs[mob], z.rooms[room]
	for i := 0; i < n; i++ {
		a, b := z.spawnMob(p, r), z.spawnMob(p, r)
		a.hp, a.maxHP, b.hp, b.maxHP = 1<<40, 1<<40, 1<<40, 1<<40
		z.startFight(a, b)
	}
}

// AffectMobsForTest spawns n mobs carrying a long affect that ticks.
func (z *Zone) AffectMobsForTest(mob, room string, n int) {
	p, r := z.set.Mobs[mob], z.rooms[room]
	long := &content.Affect{Name: "bench", Pulses: 1 << 30, TickEvery: 4, TickHeal: content.Dice{B: 1}, Stacking: content.StackRefresh, MaxStacks: 1, Show: "bench"}
	for i := 0; i < n; i++ {
		m := z.spawnMob(p, r)
		m.hp = m.maxHP - 1
		z.applyAffect(m, long, nil)
	}
}

// PoisonMobForTest puts an affect from a player on the first mob of a
// prototype in the player's room, and brings the mob down to hp.
func (z *Zone) PoisonMobForTest(player, mob, affect string, hp int) bool {
	p := z.players[player]
	for _, c := range p.room.people {
		if c.mob != nil && c.mob.Ref == mob {
			c.hp = hp
			return z.applyAffect(c, z.set.Game.Affects[affect], p)
		}
	}
	return false
}

// ExpForTest is a player's experience.
func (z *Zone) ExpForTest(name string) int { return z.players[name].exp }

// GameForTest is the zone's game data, for a test to change a rule.
func (z *Zone) GameForTest() *content.Game { return z.set.Game }

// KillForTest deals a player more damage than they have hit points.
func (z *Zone) KillForTest(name string) {
	c := z.players[name]
	z.hurt(c, c.hp+1000, nil, "")
}

// SetCooldownForTest makes a player's ability ready only after pulses more.
func (z *Zone) SetCooldownForTest(name, ability string, pulses uint64) {
	c := z.players[name]
	if c.cooldown == nil {
		c.cooldown = map[string]uint64{}
	}
	c.cooldown[ability] = z.pulses.now + pulses
}

// CooldownLeft is how many pulses remain before a player's ability is ready.
func (z *Zone) CooldownLeft(name, ability string) uint64 {
	at := z.players[name].cooldown[ability]
	if at <= z.pulses.now {
		return 0
	}
	return at - z.pulses.now
}

// arrivalFaults are the faults tests asked of arrivals, by zone.

// HasItemID reports whether an item with this durable id is anywhere in
// the zone.
func (z *Zone) HasItemID(id uint64) bool {
	z.owner.check()
	for _, it := range z.items {
		if it.id == id {
			return true
		}
	}
	return false
}

// LinkDead reports whether the zone holds a player link-dead.
func (z *Zone) LinkDead(name string) bool {
	c := z.players[name]
	return c != nil && c.pl.linkDead
}

// DroppedForTest handles the drop of session s, playing the named
// character, as the zone's Run would.
func (z *Zone) DroppedForTest(s Session, name string) {
	z.drainMail()
	z.handle(dropMsg{sess: s, name: name})
	z.flushNowForTest()
}

// StopForTest runs the zone's last act, as Run does when cancelled.
func (z *Zone) StopForTest() { z.stop() }

// LagForTest makes a player unable to act for pulses more.
func (z *Zone) LagForTest(name string, pulses uint64) {
	z.players[name].lagUntil = z.pulses.now + pulses
}

// ItemProtoForTest is a prototype of the zone's content, for a test to
// change (each test loads its own content).
func (z *Zone) ItemProtoForTest(ref string) *content.Item { return z.set.Items[ref] }

// RoomNameForTest is the name a room of this zone shows now.
func (z *Zone) RoomNameForTest(room string) string {
	if r := z.rooms[room]; r != nil {
		return r.proto.Name
	}
	return ""
}

// PlayerRoomForTest is the ref of the room a player stands in, "" if the
// zone does not hold them.
func (z *Zone) PlayerRoomForTest(name string) string {
	if c := z.players[name]; c != nil && c.room != nil {
		return c.room.ref()
	}
	return ""
}

// CheckpointsForTest is how many batches the zone has queued.
func (z *Zone) CheckpointsForTest() uint64 { return z.checkpoints.Load() }

// HandleInboxForTest handles everything waiting in the inbox.
func (z *Zone) HandleInboxForTest() {
	for {
		select {
		case m := <-z.inbox:
			z.handle(m)
		default:
			z.flushNowForTest()
			return
		}
	}
}

// InboxLenForTest is how many messages wait in the inbox.
func (z *Zone) InboxLenForTest() int { return len(z.inbox) }

// ReconcileForTest brings the zone to snapshot s on the calling goroutine.
func (z *Zone) ReconcileForTest(s *Snapshot) { z.reconcile(s) }

// CommandRoleForTest is the role a command needs, by its full name.
func CommandRoleForTest(name string) (string, bool) {
	for _, c := range commands {
		if c.name == name {
			return c.role.String(), true
		}
	}
	return "", false
}

// ClearStartRoomForTest makes the zone run its template as if it declared
// no start room (on the zone's goroutine: call it through Heartbeat).
func (z *Zone) ClearStartRoomForTest() {
	p := *z.proto
	p.StartRoom = ""
	z.proto = &p
}

// SendToInstanceForTest calls the script host's SendToInstance for a
// player held here, as mud.send_to_instance does once the script package
// has checked the caller is that player (on the zone's goroutine: call it
// through Heartbeat).
func (z *Zone) SendToInstanceForTest(name, template string) error {
	c := z.players[name]
	if c == nil {
		return errors.New("not here")
	}
	return scriptHost{z}.SendToInstance(charID(c), template)
}

// SetRosterForTest publishes r as the zone's roster, as a zone that has
// not yet caught up with a departure would still show it.
func (z *Zone) SetRosterForTest(r []RosterEntry) { z.roster.Store(&r) }

// RNGForTest draws n numbers from the zone's RNG, the one stream its
// combat, loot, resets and scripts all roll from.
func (z *Zone) RNGForTest(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = z.rng.Uint64()
	}
	return out
}

// ToughenMobsForTest makes every live mob of a prototype nearly
// unkillable, so a test can watch a long fight.
func (z *Zone) ToughenMobsForTest(proto string) {
	for _, c := range z.chars {
		if c.mob != nil && c.mob.Ref == proto {
			c.hp, c.maxHP = 1<<40, 1<<40
		}
	}
}

// MobFightForTest reports where the first live mob of a prototype stands
// and the name of whoever it fights ("" for nobody).
func (z *Zone) MobFightForTest(proto string) (room, foe string) {
	for _, c := range z.chars {
		if c.mob != nil && c.mob.Ref == proto {
			if c.room != nil {
				room = c.room.ref()
			}
			if c.fighting != nil {
				foe = c.fighting.name
			}
			return room, foe
		}
	}
	return "", ""
}
