package zone

import "time"

// The roles a zone's host plays for it. Shard (shard.go) is all of them
// together, and the world implements it; each role is small enough that a
// zone test stands in for it with an in-package fake (fakes_test.go), so
// a zone rule can be tested without starting a world. A new need of the
// zone goes in the role it belongs to, or becomes a role of its own.

// Directory finds zones: the hosted ones by id, and the one that holds a
// character. Every method is safe from any goroutine and never blocks.
type Directory interface {
	// Zone returns the hosted zone with this id, or nil.
	Zone(id string) *Zone
	// Zones returns every hosted zone. The slice is shared and must not be
	// modified.
	Zones() []*Zone
	// Where returns the zone that holds the named character, or nil.
	Where(name string) *Zone
}

// Saving is the way to the durable store: the zone hands over copies and
// never waits for the disk.
type Saving interface {
	// Checkpoint queues a zone's save batch for the saver. It never blocks.
	Checkpoint(b *SaveBatch)
	// ReserveItemIDs returns the first of n fresh durable item ids.
	ReserveItemIDs(n uint64) uint64
	// Backup writes a consistent copy of the database off the zone
	// goroutine and calls done (on another goroutine; it must only post).
	Backup(done func(path string, size int64, err error))
}

// Content is the game's content as the host runs it: the snapshot every
// zone reconciles with, and the builder's reload.
type Content interface {
	// Snapshot is the content the world runs now. A zone that runs an
	// older version reconciles with it (reload.go).
	Snapshot() *Snapshot
	// Reconciled tells the world the zone now runs version, and how long
	// its goroutine spent getting there. It never blocks.
	Reconciled(z *Zone, version uint64, took time.Duration)
	// Reload reads the areas folder again now, applies it if it is valid,
	// and calls done (which must only post) with the report.
	Reload(by string, done func(ReloadReport))
	// LastReload is the report of the world's last reload.
	LastReload() ReloadReport
}

// Routing moves characters between zones and out of the world, keeping
// the host's record of where each one is. Every method is safe from a
// zone goroutine and never blocks on another zone.
type Routing interface {
	// Moving delivers a character to zone to (to.Deliver) and records
	// that it is on its way there, both under the character's residency
	// lock, so a login or a line of input that looks the character up sees
	// either the old zone before the handoff was queued or the new one
	// after. It reports false, having changed nothing and kept nothing, if
	// to is no longer hosted or has stopped.
	Moving(name string, to *Zone, h Handoff) bool
	// TakePending returns a session waiting to take over the named
	// character, if from is the zone that holds it; nil otherwise.
	TakePending(name string, from *Zone) Session
	// HandBack takes a character out of the world: quit, link-dead reap,
	// a fault, or a stopping zone. The record is owned by the shard from
	// now on. If a login is waiting for the character, the shard gives it
	// the record instead of letting the character go.
	HandBack(rec *CharRecord, why string)
}

// Instancing is the host's side of instance copies: hop 1 of an entry
// asks it for a copy, hop 3 gives back what was not used (the world's
// instance.go). No method blocks; a mint's answer comes by message.
type Instancing interface {
	// RequestInstance charges a copy to req.Account (its cap and its
	// rate), reserves it and queues its mint, or returns the line that
	// refuses it. The answer comes to req.Origin.InstanceReady.
	RequestInstance(req MintRequest) (refusal string)
	// PartyInstance returns the live copy of template that party goes
	// into, or nil; opening reports its mint in flight.
	PartyInstance(template, party string) (copy *Zone, opening bool)
	// AbandonInstance marks a copy nobody was moved into: its slot is
	// free at once and the reaper takes it without waiting out its grace.
	AbandonInstance(id string)
	// InstanceSlots is how many more copies account may open now.
	InstanceSlots(account string) int
	// Instances lists the copies, for the admin's view.
	Instances() []InstanceInfo
	// Draining reports that the world is shutting down.
	Draining() bool
}

// Parties keeps the parties, a leader and the members they took in,
// across zones. No method blocks.
type Parties interface {
	// Party returns the leader of name's party ("" if none) and its other
	// members.
	Party(name string) (leader string, members []string)
	// PartyAdd takes member into leader's party (making one if needed),
	// or returns the line that refuses it; a party holds at most max.
	PartyAdd(leader, member string, max int) (refusal string)
	// PartyRemove sends member out of leader's party; false if not in it.
	PartyRemove(leader, member string) bool
	// PartyLeave takes name out of its party; a leader's party ends.
	PartyLeave(name string)
	// PartyVitals publishes m as what its member's party sees of them;
	// if it changed, every member is sent the party's Group.Info
	// (Zone.GroupInfo). Adding, removing and leaving send it too.
	PartyVitals(m PartyMember)
}

// Accounts does the work on players' accounts that an admin or the player
// asks for, off the zone goroutine: keys and roles.
type Accounts interface {
	// SSHKeys lists, adds (arg is an authorized_keys line) or removes (arg
	// is the 1-based number from the list) an account's SSH keys, off the
	// zone goroutine, and calls done with what to tell the player.
	SSHKeys(name, op, arg string, done func(reply string))
	// ChangeRole grants or revokes a role off the zone goroutine, gives a
	// player who is online the new roles (SetRoles), and calls done (which
	// must only post) with what to tell the admin.
	ChangeRole(ch RoleChange, done func(reply string))
	// RolesOf calls done (which must only post) with a line saying what
	// roles the named character holds.
	RolesOf(name string, done func(reply string))
}
