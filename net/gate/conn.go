package gate

import (
	"time"

	"zonemud/internal/markup"
)

// evKind says what a client sent.
type evKind uint8

const (
	evLine       evKind = iota + 1 // a line of input
	evTooLong                      // a line over the cap, discarded
	evResize                       // a new window size
	evClient                       // the client said more about itself
	evGMCP                         // an out-of-band GMCP message
	evMSSP                         // a listing crawler asked for MSSP
	evCompress                     // the client agreed to MCCP2
	evDecompress                   // the client turned MCCP2 off
	evProtocol                     // a protocol error the decoder recovered from
	evResume                       // the client asked to resume a session: text the token, pkg the name it gave (web only)
)

type event struct {
	kind evKind
	text string // line, or protocol error reason
	pkg  string // GMCP package
	data []byte // GMCP payload
	n    int    // evTooLong: the limit
	seq  uint64 // evLine over a copyover link: the holder's number for it
}

// clientInfo is what a connection knows of its client, for rendering.
type clientInfo struct {
	width, height int
	color         markup.Level
	screenReader  bool
	utf8          bool
	name          string // client name: "MUDLET", "TINTIN++", "ssh"
	terminal      string
	mccp          bool // output is compressed (MCCP2)
}

// conn is one client connection's protocol: telnet (telnetconn.go), SSH
// (sshconn.go) or WebSocket (webconn.go).
// The reader goroutine calls next and setReadDeadline; the writer goroutine
// calls the write methods, flush and close; info, remote and kind are safe
// from any goroutine.
type conn interface {
	next() (event, error)
	setReadDeadline(t time.Time) error

	writeText(p []byte) error
	writePrompt(p []byte) error
	writeRaw(p []byte) error
	startCompress() error
	stopCompress() error
	flush() error
	setWriteDeadline(t time.Time) error
	close() error

	info() clientInfo
	// colorDepth is the colour depth output is rendered at by default, and
	// whether a screen reader is in use: info's fields, cheaply, for every
	// burst.
	colorDepth() (markup.Level, bool)
	// columns is the terminal's width in columns as the client reported it
	// (0 for none): info's width, cheaply, for every room a zone
	// describes.
	columns() int
	remote() string
	kind() string
	// echoOff and echoOn are the bytes to queue around a password prompt
	// (nil where the transport hides input itself).
	echoOff() []byte
	echoOn() []byte
	// gmcpFrame frames a GMCP message, or returns nil if the client did not
	// agree to GMCP.
	gmcpFrame(pkg string, json []byte) []byte
	// opening is what to send before the banner (telnet negotiation).
	opening() []byte
	// counts are the bytes written to the connection so far, and of the
	// output while compressing, the bytes that went into the compressor
	// and came out of it. Writer goroutine only.
	counts() (wire, mccpIn, mccpOut uint64)
}
