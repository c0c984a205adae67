// Package world is the shard: it hosts every zone actor, routes players
// between them, and owns everything that spans zones.
//
// It keeps the residency index (which zone holds which character, and a
// login waiting to take a character over), places characters at login from
// their placement record or anchor, hands out owner epochs and durable item
// ids, runs the saver goroutine that alone writes game state to the store,
// and drains the world at shutdown.
//
// Goroutines: one per zone (zone.Run), the saver, and whatever the gate
// calls in from (session goroutines call Enter and the account methods;
// those may block on the store, never on a zone). Zone goroutines call the
// zone.Shard methods, which never block on disk or on another zone.
//
// world imports zone, content and store; it must not import the network
// packages, which import it.
package world
