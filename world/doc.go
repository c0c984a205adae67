// Package world is the shard: it hosts every zone actor, routes players
// between them, and owns everything that spans zones.
//
// It keeps the residency index (which zone holds which character, and a
// login waiting to take a character over), places characters at login from
// their placement record or anchor, hands out owner epochs and durable item
// ids, runs the saver goroutine that alone writes game state to the store,
// and drains the world at shutdown.
//
// # Hosting and the directory
//
// Zones are hosted and unhosted at runtime (Host, Unhost) through a
// Directory: the record of which zone ids are hosted, by whom, under which
// lease, and which templates have copies running (claims).
// NewLocalDirectory keeps it in memory for one process; dirtest is the
// contract any other implementation (Redis, etcd) must pass. A permanent
// zone holds a lease whose generation only grows; every save batch it
// writes carries that generation, and the store refuses a batch from a
// generation that was released or superseded. The lease keeper renews the
// leases of zones whose goroutine answers a heartbeat: a wedged zone loses
// its lease, is reported, and its saves are refused until it answers again
// under a new lease. Instances (copies of an instanceable template) are
// hosted unleased.
//
// # Routing
//
// The residency index is the one owner of "where is this player". Enter
// returns a Route; the gate posts every line through it, and the route
// looks the character's zone up in the index each time (without
// allocating). A zone knows a session only as an output sink. A line or a
// drop that reaches a zone after its character walked on is passed on by
// that zone through the index (Where), behind the handoff in the next
// zone's mailbox. A walk is one Moving call: the handoff is pushed onto the
// destination's mailbox and the index updated under the same locks.
//
// # Content and hot reload
//
// The content the world runs is one immutable zone.Snapshot (a validated
// content.Set, its compiled scripts, a version), replaced whole. One
// reload worker (reload.go) reads the areas folder again when the watcher
// (watch.go, fsnotify on the folder and its subfolders) sees a file saved,
// or when a builder types reload; it validates the whole new version and
// compiles its scripts there, never on a zone goroutine, through caches
// that skip files and scripts whose bytes did not change. A version with
// any problem is refused whole: the old one keeps running and builders and
// the log are told each problem with file, line and key. A valid one is
// published: new zones hosted first, then the swap (under routeMu, with
// the start zone), then a notice offered to every zone (zone.Reload, which
// never blocks and may be dropped); each zone reconciles on its own
// goroutine, and catches up at its next batch or pulse if the notice was
// dropped, and before it takes in an arrival. Zones the new version lacks
// send their players to the start room and are unhosted once empty.
// Instance copies keep the version they were minted from.
//
// # Locks, in the order they are taken
//
//  1. World.routeMu, the routing lock (a RWMutex). Held shared by every
//     change of the zone a character is routed to (Enter placing it,
//     Moving), exclusively by Host and Unhost, which also guard the hosted
//     zone table with it. Unhost re-checks quiescence under it: a zone's
//     count of residents routed to it only grows under the shared lock.
//  2. residentShard.mu, one per shard of the residency index.
//  3. Leaves, taken last and holding nothing else: a zone's mailbox (a
//     zone's Arrive, Wake and Deliver push onto it), the saver's queue, the
//     goroutine tracker, the directory's own lock, the reloader's
//     (reloader.mu, which zones take in Reconciled), instances.mu (the
//     copies' records, caps and rates: a non-blocking channel send is all
//     it calls) and parties.mu.
//
// host.mu (one zone's lease state) is taken without 1 or 2 held, and only
// leaves inside it. No callback and no method of a session (gate code) runs
// under routeMu or a residency shard lock: Enter and HandBack close
// sessions after letting their locks go.
//
// # Instances
//
// A copy of an instanceable template is entered in three hops (instance.go):
// the entrance zone checks the player and asks RequestInstance, which
// charges the account and queues a mint; a mint worker builds the copy
// from one content snapshot and hosts it unleased; the answer goes back to
// the very zone that asked, which checks everything again and transfers
// the player, or abandons the copy. Every copy has a record from its
// mint's reservation until it is unhosted: the caps count records, a
// party's later member finds its copy by one, the claim keeper claims the
// templates that have one, and the reaper sweeps them. Parties (party.go)
// are kept here because they span zones.
//
// # Goroutines
//
// Every goroutine the world starts goes through its run.Group (internal/run),
// labelled for profiles (a zone's with its id and template) and waited for
// at shutdown: one per hosted zone (zone.Run), the saver, the lease keeper,
// the reload worker and the areas watcher, the backup scheduler, an
// admin's shutdown or reboot countdown, two instance mint workers, the
// instance reaper and its teardowns (at most 8 at once), the
// template-in-use claim keeper, and a worker per admin request that
// touches the store (a backup, an SSH key, a role, a ban, a stat).
// Session goroutines call in through Enter, the Route and the account methods; those may block on the
// store, never on a zone (a route's post may wait for room in a zone's
// inbox, bounded by the zone being alive). Zone goroutines call the
// zone.Shard methods, which never block on disk or on another zone.
//
// world imports zone, content, script and store; it must not import the
// network packages, which import it. The gate reaches the game through this
// package alone: Session, ClientInfo, Account and the colour types are the
// names it uses.
package world
