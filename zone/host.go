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
