// Package store is the durable truth of the world: one bbolt file holding
// accounts, characters, placement records, persistent room objects, the item
// ledger and the schema version. Live zone state is a cache rebuilt from it.
//
// Buckets:
//
//	meta        schema version, boot count, item id high-water
//	accounts    lower-case name -> Account
//	characters  lower-case name -> Character (owner epoch inside)
//	placements  lower-case name -> Placement (zone and room that hold it)
//	objects     room ref -> the persistent items lying there
//	ledger      item id -> its holder ("c:<name>" or "r:<room ref>")
//	holdings    holder -> the ids it holds (so a save can release them)
//	leases      zone id -> the highest lease generation seen, and whether
//	            it was released (the fencing token check, lease.go)
//	comm        a nested bucket per channel's history, per player's kept
//	            tells and per player's mailbox (comm.go, mail.go)
//
// Every record carries a CRC-32C (record.go), since bbolt checks its pages
// but not the bytes of a value.
//
// Open never serves a file it has not checked, and never writes to one
// before: it opens an existing file read-only, checks it (verify.go: the
// meta pages and freelist read with ReadAt, a walk of every page that no
// damaged pointer can send outside the file or round in a loop (pages.go),
// bbolt's own check, every record, the census of the ledger (census.go)),
// and only then opens it for writing. Reads through bbolt's memory map run
// with debug.SetPanicOnFault, so a page past the end of the file is a
// refusal, not a SIGBUS. A new file is made only where none exists, built
// beside the path and linked into place whole.
//
// A DB is safe for concurrent use. Writes of game state go through Commit,
// one bbolt transaction per call, which the world's saver goroutine calls;
// nothing in this package runs a goroutine of its own, and it must never
// be called from a zone goroutine.
//
// This package imports nothing of the game: world converts between its
// records and the zone's.
package store
