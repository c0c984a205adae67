package zone

import (
	"time"

	"zonemud/content"
)

// Every message a zone's inbox or mailbox carries is one of the types in this
// file. A message that carries a pointer hands ownership of what it points to
// over to the receiving zone; its doc says so.

// msg is the sealed interface of inbox messages.
type msg interface{ isMsg() }

// fromSession is implemented by messages that came from a session, so that a
// fault while handling one disconnects that session (seed 002, Faults).
type fromSession interface {
	msg
	session() Session
}

// inputMsg is one line a player typed. seq is the session's own count of
// lines; the zone applies each seq once and drops any at or below the
// player's high-water mark.
type inputMsg struct {
	sess Session
	name string // the character the session plays
	seq  uint64
	line string
	at   time.Time // when the session's reader posted it
}

// dropMsg says a session's connection has gone without a quit: the
// character goes link-dead.
type dropMsg struct {
	sess Session
	name string
}

// arriveMsg puts a character into the world. The record is owned by the
// zone from now on. room is a ref; "" or a room this zone lacks means the
// start room. note, if set, is told to the player after the room.
type arriveMsg struct {
	rec  *CharRecord
	sess Session
	room string
	note string
	// fresh is set for a login (a new arrival in the world), false for a
	// resume of a record that was in flight.
	fresh bool
}

// wakeMsg tells the zone that a login is waiting for the named character;
// if this zone holds it, the zone takes the waiting session from the shard
// and attaches it.
type wakeMsg struct{ name string }

// transferMsg carries a character from one zone to another. The *Char and
// everything it carries are owned by the receiving zone from now on; the
// sending zone keeps no pointer to them.
type transferMsg struct {
	ch   *Char
	room string // destination room ref
	from string // direction word the character came from, "" if none
	// sentAt is the sending zone's pulse when it let go. The character's
	// timers (lag, cooldowns, protection) are pulses of that zone's clock;
	// each zone's clock runs its own count, so the receiver rebases them.
	sentAt uint64
	// note, if set, is told to the player after the room it arrives in.
	note string
	// saved: the sending zone's checkpoint carried the character's record
	// as it arrives here (in room, out of any copy), so arriving is no
	// change worth another save.
	saved bool
}

// instanceReadyMsg is the world's answer to a MintRequest this zone made
// (hop 3 of entering a copy): the copy built, or the line that refuses it.
// The copy pointer is a zone like any other: it hands nothing over.
type instanceReadyMsg struct {
	req     MintRequest
	copy    *Zone
	refusal string
}

// ejectMsg asks a copy to send everyone in it to their anchors; done runs
// on the zone's goroutine once they are sent and must not block.
type ejectMsg struct{ done func() }

// tellMsg delivers a tell to a player this zone holds.
type tellMsg struct {
	from, to, text string
	// replyTo is the zone of the sender, to report a failed delivery.
	replyTo *Zone
}

// noticeMsg is a line for one player (a tell that failed, a system message).
type noticeMsg struct {
	to   string
	text string
}

// channelMsg is a channel line for the players here who listen to it
// (comm_shard.go). The line is shared by every zone and read only.
type channelMsg struct{ line *ChannelLine }

// heldTellsMsg is the tells kept for a player while away, delivered at
// login; a zone that no longer holds the player passes it on.
type heldTellsMsg struct {
	to      string
	tells   []HeldTell
	dropped int
}

// historyMsg is a channel's history, read from the store for the named
// player; a zone that no longer holds the player passes it on.
type historyMsg struct {
	to, channel string
	lines       []HistoryLine
	err         error
}

// broadcastMsg is a line for every player in the zone (shutdown warnings,
// admin announcements).
type broadcastMsg struct{ text string }

// doorMsg tells the zone across a border what a shared door is now: the
// door of room (a ref here) in direction dir, whose exit leads to from (a
// ref in the sending zone). verb, if set, is what a player did to it.
type doorMsg struct {
	room, from string
	dir        content.Dir
	state      doorState
	at         doorStamp
	verb       string
}

// saveNowMsg asks for a checkpoint now, outside the zone's cadence; done is
// called once the batch (if anything changed) is queued with the saver.
type saveNowMsg struct{ done func() }

// savedMsg is the saver's answer to a batch.
type savedMsg struct {
	entries []savedEntry
	rooms   []*Room
	err     error
}

type savedEntry struct {
	name    string
	arrival uint64
	ver     uint64
}

// heartbeatMsg is the host checking that the zone's goroutine runs: the
// zone adopts gen (if not 0) as its lease generation and calls ack.
type heartbeatMsg struct {
	gen uint64
	ack func()
}

// rolesMsg gives a player held here the roles an admin just changed; a
// zone that no longer holds the player passes it on.
type rolesMsg struct {
	name  string
	roles Roles
}

// buildersMsg is text for builders online here: every player with the
// builder or admin role, or named in the zone file, for whom only (if set)
// reports true. to, if set, names the one player it is for.
type buildersMsg struct {
	text string
	to   string
	only func(name string) bool
}

// buildMsg is a builder's query answered by the zone that holds what it
// asks about (buildStat: a ref of this zone; buildWhere: a player by
// name or mobs by keyword; buildErrors: recent script errors). reply runs
// on this zone's goroutine and must only post.
type buildMsg struct {
	op    buildOp
	kind  content.Kind
	arg   string
	reply func(text string)
}

type buildOp uint8

const (
	buildStat buildOp = iota + 1
	buildWhere
	buildErrors
)

// reloadMsg tells the zone that the world runs a new content snapshot:
// the zone reconciles with it (reload.go). It is offered with postOrDrop;
// a zone that misses it catches up at its next pulse.
type reloadMsg struct{}

// statMsg asks for what the zone knows of a player it holds, for an
// admin's stat; reply runs on the zone goroutine and must only post.
type statMsg struct {
	name  string
	reply func(StatInfo, bool)
}

// snoopMsg starts (sess set) or ends (sess nil) by's watch of target's
// screen; a zone that no longer holds target passes it on.
type snoopMsg struct {
	target, by string
	sess       Session
}

// adminMsg is an admin's act on a player held here (or passed on to the
// zone that holds them now): freeze, log, teleport.
type adminMsg struct {
	op     adminOp
	target string // whom it acts on
	by     string // the admin
	room   string // adminTeleport: the room ref to go to
	dest   *Zone  // adminTeleport: the zone that holds room; nil: the zone room names
	note   string // what the admin typed, for the log
	item   string // adminPurge: a prototype ref, or a target among what the player carries
	// reply, if set, is told what came of it (adminLocate: the room and
	// zone of the target, "" if not here); it runs on this zone's
	// goroutine and must only post.
	reply func(result string, zone *Zone)
}

type adminOp uint8

const (
	adminFreeze   adminOp = iota + 1 // toggle: frozen players can only quit
	adminLog                         // toggle: log every line the player types
	adminTeleport                    // move the player to room
	adminLocate                      // say where the player is
	adminPurge                       // take items from what the player carries and wears
)

func (inputMsg) isMsg()         {}
func (reloadMsg) isMsg()        {}
func (buildersMsg) isMsg()      {}
func (statMsg) isMsg()          {}
func (snoopMsg) isMsg()         {}
func (adminMsg) isMsg()         {}
func (buildMsg) isMsg()         {}
func (rolesMsg) isMsg()         {}
func (dropMsg) isMsg()          {}
func (arriveMsg) isMsg()        {}
func (wakeMsg) isMsg()          {}
func (transferMsg) isMsg()      {}
func (tellMsg) isMsg()          {}
func (noticeMsg) isMsg()        {}
func (broadcastMsg) isMsg()     {}
func (channelMsg) isMsg()       {}
func (historyMsg) isMsg()       {}
func (heldTellsMsg) isMsg()     {}
func (doorMsg) isMsg()          {}
func (saveNowMsg) isMsg()       {}
func (savedMsg) isMsg()         {}
func (heartbeatMsg) isMsg()     {}
func (instanceReadyMsg) isMsg() {}
func (ejectMsg) isMsg()         {}

func (m inputMsg) session() Session  { return m.sess }
func (m dropMsg) session() Session   { return m.sess }
func (m arriveMsg) session() Session { return m.sess }
