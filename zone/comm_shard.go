package zone

import (
	"encoding/json"
	"time"

	"zonemud/internal/mail"
)

// Comm is what a zone needs of the world for talk that spans zones:
// the channel fan-out and what waits in the store (channel history, tells
// kept for players who were away). The world implements it
// (world/comm.go). No method blocks; a done callback runs on a worker
// goroutine and must only post.
type Comm interface {
	// Channel hands the world a line said on a channel in zone from,
	// which has already shown it to its own players: the world keeps it
	// in the channel's history and sends it, once, to every other zone
	// that holds players (DeliverChannel). The line is shared and never
	// changed.
	Channel(l *ChannelLine, from *Zone)
	// History calls done with the channel's last n lines, oldest first.
	History(channel string, n int, done func(lines []HistoryLine, err error))
	// KeepTell keeps a tell for a player who is not in the world and
	// calls done with the line for its sender (no such player, kept, or
	// the oldest of theirs dropped).
	KeepTell(from, to, text string, done func(reply string))
	// Arrived says a player logged in: the world sends what waited for
	// them (DeliverHeldTells) to the zone that holds them, and tells them
	// when letters wait unread (Notice).
	Arrived(name string)

	// MailTo calls done with nil if a letter may be written to the named
	// player now, mail.ErrNoSuchPlayer if there is no such player, or
	// mail.ErrFull if their mailbox is full.
	MailTo(to string, done func(error))
	// SendLetter puts a letter in its recipient's mailbox and calls done
	// with the line for its sender (sent, no such player, a full box);
	// a recipient in the world is told by a Notice to their zone.
	SendLetter(l mail.Letter, done func(reply string))
	// Letters calls done with the named player's letters, oldest first.
	Letters(name string, done func([]mail.Letter, error))
	// ReadLetter calls done with the named player's letter n (from 1),
	// marked read, or mail.ErrNoLetter; DeleteLetter takes it out of
	// their mailbox.
	ReadLetter(name string, n int, done func(mail.Letter, error))
	DeleteLetter(name string, n int, done func(mail.Letter, error))
}

// ChannelLine is one line said on a channel, built once by the talker's
// zone and shared by every zone that shows it. Immutable once built.
type ChannelLine struct {
	Channel string // channel name
	Role    role   // the least role that hears it
	From    string // the talker
	Text    string // what they said, escaped
	Line    string // the line as shown, in markup
	GMCP    json.RawMessage
	At      time.Time
	// Keep is how many lines the channel's history keeps.
	Keep int
}

// HistoryLine is one line of a channel's history.
type HistoryLine struct {
	At   time.Time
	From string
	Text string // escaped
}

// HeldTell is a tell that waited in the store for its recipient.
type HeldTell struct {
	At   time.Time
	From string
	Text string // escaped
}

// DeliverChannel queues a channel line for the players here. It never
// blocks.
func (z *Zone) DeliverChannel(l *ChannelLine) bool { return z.send(channelMsg{line: l}) }

// DeliverHeldTells queues the tells kept for the named player while they
// were away, and how many older ones were dropped, for that player here
// (or wherever the player has gone since). It never blocks.
func (z *Zone) DeliverHeldTells(name string, tells []HeldTell, dropped int) bool {
	return z.send(heldTellsMsg{to: name, tells: tells, dropped: dropped})
}
