// Package zone is the actor at the heart of zonemud: one Zone is one
// goroutine (Run) that alone owns every room, character, mob and item in it,
// and its Lua VM. Game logic therefore needs no locks.
//
// Everything outside reaches a zone only by posting a message (post for
// sessions, which may block while the zone is alive; send for zone-to-zone
// and world traffic, which never blocks; postOrDrop for the one notice a
// zone recovers by itself if it is dropped, a content reload). Messages
// are the types in msg.go. A zone reaches its host only
// through the Shard interface and its players only through the Session
// interface, so this package never imports world, store or the network.
//
// The content a zone runs is the world's current Snapshot, taken up on the
// zone's own goroutine (reload.go): rooms take new prototypes in place and
// keep their live state; mobs and items keep the prototype they were made
// from. An instance keeps the snapshot it was minted from.
//
// Goroutines: Run is the only goroutine this package starts (the host starts
// it). Timers off the zone goroutine (time.AfterFunc) only post.
//
// Locality questions (does this ref stay inside me?) go through ownsZoneRef
// and localRoom in identity.go and nowhere else; a test walks the syntax
// trees of this package to keep it so.
//
// An instance copy (instance.go) is a Zone whose id is <template>#<hex>.
// A player goes into one only by walking through a room's declared
// entrance, read by (*Room).entrance alone (a lint pins it), or by
// mud.send_to_instance from their own script: hop 1 (enterInstance) asks
// the shard for a copy and the zone goes on; hop 3 (handleInstanceReady)
// checks everything again when the world answers, writes the anchor and
// transfers the player and the party members standing with them. A copy
// never repops, rolls from a seed drawn afresh at each mint, persists no
// room objects, and wakes a player who dies in it at its start room.
package zone
