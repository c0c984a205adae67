// Package zone is the actor at the heart of zonemud: one Zone is one
// goroutine (Run) that alone owns every room, character, mob and item in it,
// and its Lua VM. Game logic therefore needs no locks.
//
// Everything outside reaches a zone only by posting a message (post for
// sessions, which may block while the zone is alive; send for zone-to-zone
// and world traffic, which never blocks). Messages are the types in msg.go. A zone reaches its host only
// through the Shard interface and its players only through the Session
// interface, so this package never imports world, store or the network.
//
// Goroutines: Run is the only goroutine this package starts (the host starts
// it). Timers off the zone goroutine (time.AfterFunc) only post.
//
// Locality questions (does this ref stay inside me?) go through ownsZoneRef
// and localRoom in identity.go and nowhere else; a test walks the syntax
// trees of this package to keep it so.
package zone
