package zone

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
