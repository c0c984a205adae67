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
