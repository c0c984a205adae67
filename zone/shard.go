package zone

import "zonemud/internal/markup"

// Shard is what a zone needs of the world that hosts it: the roles of
// host.go, with the admin roles (admin.go) and talk across zones
// (comm_shard.go) behind their own doors. The world implements it; zone
// tests use the fakes of fakes_test.go.
// Every method is safe to call from a zone goroutine and none of them
// blocks on another zone.
type Shard interface {
	Directory
	Saving
	Content
	Routing
	Instancing
	Parties
	Accounts
	// Admin is what admin commands need of the server.
	Admin() Admin
	// Comm is the world's side of channels and tells (comm_shard.go).
	Comm() Comm
}

// Session is a player's connection as a zone sees it: an output sink. The
// gate implements it for telnet and SSH alike. Where the player's input
// goes is the shard's business, not the session's: a zone never asks a
// session where it is. Every method is safe for concurrent use and none
// blocks: output goes to a bounded queue, and a session whose queue is
// full closes itself rather than stall the zone.
type Session interface {
	// ID is unique among sessions in this process.
	ID() uint64
	// Write queues output: lines of text with colour markup, each ending
	// in a newline, and with prompt set, the prompt after the last
	// newline. The session marks the prompt for the client (telnet EOR or
	// GA), puts a blank line before it and starts a fresh line after it
	// as the client needs, and may merge output not yet written into one
	// burst with one prompt. It reports false if the session is closed.
	Write(p []byte, prompt bool) bool
	// Close queues msg as the last output and closes the connection.
	Close(msg string)
	// Width is the client's line width for wrapping (at least 20).
	Width() int
	// GMCP sends an out-of-band message if the client asked for the
	// package; otherwise it does nothing.
	GMCP(pkg string, data any)
	// Closed reports whether the connection has gone.
	Closed() bool
	// Client is what the connection knows of its client.
	Client() ClientInfo
	// SetColor overrides the colour level the client reported.
	SetColor(level markup.Level)
	// ResetColor goes back to the level the client reported.
	ResetColor()
}

// ClientInfo is what a session knows of its client.
type ClientInfo struct {
	Name         string       // "mudlet", "tintin++", "ssh", "telnet"
	Transport    string       // "telnet" or "ssh"
	Color        markup.Level // the colour level output is rendered at
	Reported     markup.Level // the level the client itself reported
	ScreenReader bool         // the client said a screen reader is in use (MTTS 64)
	UTF8         bool
	// Addr is the address the per-address limits count the connection
	// under (an IPv4 address or an IPv6 block); "" when they exempt it
	// (loopback, unless limit_loopback).
	Addr string
	// Reattached says the session comes back from a copyover (a reboot
	// or a crash restart of the game) already in its character: the
	// player never left, so nobody is told they entered the world.
	Reattached bool
}

// SaveBatch is one zone's checkpoint: every dirty character of the zone at
// one moment, to be committed in one transaction.
type SaveBatch struct {
	Zone string // zone id
	// Gen is the generation of the zone's lease it was written under (0
	// for a zone without one); the store refuses it once that lease was
	// released or superseded.
	Gen   uint64
	Chars []*CharRecord
	// Rooms are the persistent objects of rooms whose lying items changed.
	Rooms []RoomRecord
	// Leaving names the records in Chars whose characters have left the
	// world (quit, link-dead reap, fault, stop): no zone holds them any
	// more, so if the batch does not commit, the saver keeps those records
	// and retries them rather than lose what the player did since their
	// last save.
	Leaving []string
	// Done, if set, is called by the saver (on its own goroutine) when the
	// batch has committed or failed. It must only post.
	Done func(err error)
}

// RoomRecord is every persistent item lying in one room.
type RoomRecord struct {
	Room  string
	Items []ItemRecord
}
