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
//
// A DB is safe for concurrent use. Writes of game state go through Commit,
// one bbolt transaction per call, which the world's saver goroutine calls;
// nothing in this package runs a goroutine of its own, and it must never
// be called from a zone goroutine.
//
// This package imports nothing of the game: world converts between its
// records and the zone's.
package store
