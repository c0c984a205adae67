package zone

import "time"

// Admin is what the admin commands need beyond the zone and the shard's
// routing: acts and reads that span the server, in four roles, each small
// enough for a zone test to fake (fakes_test.go). The world implements
// it. Every method is safe from a zone goroutine and never blocks on
// another zone or on the store: slow work runs elsewhere and answers
// through done, which must only post.
type Admin interface {
	Countdown
	Bans
	Snoops
	Reports
}

// Countdown stops or restarts the server after a countdown told to every
// player.
type Countdown interface {
	// Shutdown starts a countdown of secs seconds, told to every player,
	// after which the server stops (reboot: and starts again). It returns
	// what to tell the admin: a second countdown is refused.
	Shutdown(by string, secs int, reason string, reboot bool) string
	// CancelShutdown stops the countdown, and says so to every player.
	CancelShutdown(by string) string
}

// Bans keeps the bans of names, addresses and blocks.
type Bans interface {
	// Ban bans a name, an address or a CIDR block (target), until
	// expires (zero: for ever), and closes the connections it catches.
	// Bans lists the bans when target is "".
	Ban(by, target string, expires time.Time, reason string, done func(reply string))
	// Unban lifts a ban.
	Unban(by, target string, done func(reply string))
}

// Snoops keeps who watches whose screen.
type Snoops interface {
	// Snoop records that by watches target's screen, refusing a loop; it
	// returns target's zone to tell, or a refusal.
	Snoop(by, target string) (into *Zone, refusal string)
	// Unsnoop ends by's snoop and returns who was watched and their zone,
	// "" and nil if by watched nobody.
	Unsnoop(by string) (target string, into *Zone)
}

// Reports are the admin's reads and acts over every player and
// connection.
type Reports interface {
	// Stat reports on a player: account, connection, and (if online)
	// where and how the character is.
	Stat(by, name string, done func(reply string))
	// Sessions lists every connection.
	Sessions(by string, done func(reply string))
	// SaveAll saves every character now.
	SaveAll(by string, done func(reply string))
}

// StatInfo is what a zone knows of a player it holds, for an admin's stat.
type StatInfo struct {
	Name, Zone, Template, Room, RoomName string
	Level, HP, MaxHP                     int
	Epoch                                uint64
	Idle                                 time.Duration
	LinkDead, Frozen, Logged             bool
	Snoopers                             []string
	Settings                             Settings
}

// Stat asks the zone for what it knows of a player it holds; reply is
// called on the zone's goroutine (and must only post), with ok false if
// the zone does not hold the player. It reports false, and never calls
// reply, if the zone has stopped.
func (z *Zone) Stat(name string, reply func(StatInfo, bool)) bool {
	return z.send(statMsg{name: name, reply: reply})
}

// Snooped tells the zone that holds target that by watches its screen
// through s (nil: no longer).
func (z *Zone) Snooped(target, by string, s Session) bool {
	return z.send(snoopMsg{target: target, by: by, sess: s})
}
