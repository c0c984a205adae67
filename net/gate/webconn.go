package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"zonemud/internal/markup"
)

// The web front (net/web) upgrades an HTTP request to a WebSocket and
// hands the connection here, on one of the two subprotocols of
// mudstandards.org:
//
//   - gmcp.mudstandards.org (webConn, below): game text as UTF-8 with
//     ANSI colour in BINARY messages both ways, GMCP as TEXT messages
//     "Package.Name json" both ways. No telnet at all: a byte typed in
//     the page is text, whatever its value;
//   - telnet.mudstandards.org (ServeWebTelnet): the telnet byte stream in
//     BINARY messages, options and all, exactly as on the telnet port.
//
// Either way the connection is a session like any other, counted under
// the front "web".

// WebSocket is one WebSocket connection as the web front hands it over:
// whole messages, each binary or text.
type WebSocket interface {
	// Read waits for the next message from the client.
	Read(ctx context.Context) (binary bool, p []byte, err error)
	// Write sends one message; ctx bounds it, and a write cut short
	// leaves the connection closed.
	Write(ctx context.Context, binary bool, p []byte) error
	// Close ends the connection: with a normal close (1000) when clean,
	// at once otherwise.
	Close(clean bool) error
}

// WebLogin is one WebSocket connection on gmcp.mudstandards.org.
type WebLogin struct {
	Socket WebSocket
	Remote net.Addr
}

// Admit decides whether a new connection from addr may open, and counts it
// if so: the same caps in total and per address, and the same bans and
// shut-outs, as every front. It returns the line to show a refused one. An
// admitted connection goes to ServeWeb or ServeWebTelnet, or back with
// Release if it never gets there.
func (g *Gate) Admit(addr net.Addr) string { return g.admit(addr) }

// AddressKey is the key the gate's per-address limits count addr under
// (an IPv4 address, or its IPv6 block of ipv6_prefix bits), or "" for an
// address they exempt (loopback, unless limit_loopback): a front's own
// per-address limits count the same key.
func (g *Gate) AddressKey(addr net.Addr) string { return g.ipKey(addr) }

// Release gives back a connection Admit counted that never became a
// session.
func (g *Gate) Release(addr net.Addr) {
	g.conns.Add(-1)
	g.byIP.Done(g.ipKey(addr))
}

// ServeWeb runs one admitted gmcp.mudstandards.org connection: the login on
// the calling goroutine, then play on a fresh one (as telnet does), so it
// returns once the login is over.
func (g *Gate) ServeWeb(l WebLogin) {
	g.gr.Run(func() {
		g.run(l.Remote, frontWeb, func(s *Session) conn { return newWebConn(l, g.cfg.MaxLine, s) }, nil, true)
	}, "session", "reader")
}

// ServeWebTelnet runs one admitted telnet.mudstandards.org connection: c
// carries the telnet stream, each write one binary message. It returns
// once the login is over.
func (g *Gate) ServeWebTelnet(c net.Conn) {
	tc := g.cfg.telnetConfig()
	g.gr.Run(func() {
		g.run(c.RemoteAddr(), frontWeb, func(s *Session) conn { return newTelnetConn(c, tc, s.raw) }, nil, true)
	}, "session", "reader")
}

// The messages of gmcp.mudstandards.org the transport itself writes,
// beside the game's GMCP; it reads Client.Resume, Client.Size and
// Core.Hello (control). They are the contract with the built-in page
// (net/web/doc.go says it in full).
const (
	// Client.Resume {"token":"..."}: from the server after a login, the
	// token that resumes the session; from the client before anything
	// typed (after its Core.Hello and Core.Supports.Set), to resume without
	// the password.
	gmcpResume = "Client.Resume"
	// Client.Echo {"on":false} before a password question, {"on":true}
	// after: the page masks its input and keeps it out of history.
	gmcpEcho = "Client.Echo"
)

var (
	webEchoOff = []byte(gmcpEcho + ` {"on":false}`)
	webEchoOn  = []byte(gmcpEcho + ` {"on":true}`)
)

// webConn is a conn over a WebSocket speaking gmcp.mudstandards.org.
type webConn struct {
	ws      WebSocket // immutable
	remoteA net.Addr  // immutable
	maxLine int       // immutable
	s       *Session  // immutable: the session, told when the login deadline passes

	frames int      // reader goroutine only: messages read
	typed  bool     // reader goroutine only: a binary message (typed text) was read
	asked  bool     // reader goroutine only: a Client.Resume was read
	lines  []string // reader goroutine only: lines of the last binary message not yet returned

	width, height atomic.Int32
	reader        atomic.Bool // the client says a screen reader is in use (Core.Hello)

	dlMu    sync.Mutex
	dlTimer *time.Timer // guarded by dlMu: ends the login at its deadline; nil until first armed

	writeBy time.Time // writer goroutine only: the write deadline; zero when off
	pending []byte    // writer goroutine only: the burst's text
	wire    uint64    // writer goroutine only: bytes written

	busy   atomic.Bool // a write is under way
	failed atomic.Bool // a write failed or was cut short
	closed atomic.Bool
}

func newWebConn(l WebLogin, maxLine int, s *Session) *webConn {
	return &webConn{ws: l.Socket, remoteA: l.Remote, maxLine: maxLine, s: s}
}

func (c *webConn) next() (event, error) {
	for {
		if len(c.lines) > 0 {
			line := c.lines[0]
			c.lines = c.lines[1:]
			if len(c.lines) == 0 {
				c.lines = nil
			}
			if c.maxLine > 0 && len(line) > c.maxLine {
				return event{kind: evTooLong, n: c.maxLine}, nil
			}
			return event{kind: evLine, text: cleanWebLine(line)}, nil
		}
		binary, p, err := c.ws.Read(context.Background())
		if err != nil {
			return event{}, err
		}
		c.frames++
		if binary {
			c.typed = true
			c.lines = splitTyped(p)
			continue
		}
		if ev, ok := c.control(p); ok {
			return ev, nil
		}
	}
}

// splitTyped splits a binary message from the client into lines: one
// command a line, the last newline optional, CR LF or LF.
func splitTyped(p []byte) []string {
	s := strings.ReplaceAll(string(p), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// cleanWebLine makes a typed line safe text: invalid UTF-8 becomes U+FFFD
// and control characters go (an escape typed into a say would colour
// everyone's screen). A byte 255 is not telnet's IAC here: it is not even
// UTF-8, so it arrives as U+FFFD.
func cleanWebLine(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return cleanSSHLine(s)
}

// control reads a text message: GMCP, or one of the transport's own
// messages. It reports false for a message with nothing to tell the
// session.
func (c *webConn) control(p []byte) (event, bool) {
	if !utf8.Valid(p) {
		return event{kind: evProtocol, text: "a text message that is not UTF-8"}, true
	}
	pkg, data, _ := strings.Cut(string(p), " ")
	data = strings.TrimSpace(data)
	if pkg == "" || len(pkg) > 64 {
		return event{kind: evProtocol, text: "a text message that names no GMCP package"}, true
	}
	switch strings.ToLower(pkg) {
	case "client.resume":
		// Before anything typed, and once: the page sends Core.Hello and
		// Core.Supports.Set first, so the resumed character's first room
		// and vitals reach the panels that asked for them.
		if c.typed || c.asked {
			return event{kind: evProtocol, text: "Client.Resume after typed text or a resume; ignored"}, true
		}
		c.asked = true
		var r struct {
			Token string `json:"token"`
			Name  string `json:"name"`
		}
		_ = json.Unmarshal([]byte(data), &r) // a bad one has no token: refused as such
		return event{kind: evResume, text: r.Token, pkg: r.Name}, true
	case "client.size":
		var sz struct{ Width, Height int }
		if json.Unmarshal([]byte(data), &sz) != nil {
			return event{kind: evProtocol, text: "a Client.Size that does not read"}, true
		}
		c.width.Store(int32(min(max(sz.Width, 0), 1000)))
		c.height.Store(int32(min(max(sz.Height, 0), 1000)))
		return event{kind: evResize}, true
	case "core.hello":
		var h struct {
			ScreenReader bool `json:"screenreader"`
		}
		if json.Unmarshal([]byte(data), &h) == nil {
			c.reader.Store(h.ScreenReader)
		}
	}
	return event{kind: evGMCP, pkg: pkg, data: []byte(data)}, true
}

// setReadDeadline arms the login timeout. A WebSocket read cut short by
// its context closes the connection, so a timer does it instead, and it
// closes the session with the line that says why first.
func (c *webConn) setReadDeadline(d time.Time) error {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	switch {
	case d.IsZero():
		if c.dlTimer != nil {
			c.dlTimer.Stop()
		}
	case c.dlTimer == nil:
		c.dlTimer = time.AfterFunc(time.Until(d), c.timedOut)
	default:
		c.dlTimer.Reset(time.Until(d))
	}
	return nil
}

func (c *webConn) timedOut() {
	c.s.Close("\nYou took too long to answer; goodbye.")
}

func (c *webConn) setWriteDeadline(d time.Time) error {
	c.writeBy = d
	return nil
}

// appendCRLF appends p with every LF as CR LF, as the telnet front sends
// it: terminal-like clients (xterm.js) need the CR.
func appendCRLF(b, p []byte) []byte {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return append(b, p...)
		}
		if i > 0 && p[i-1] == '\r' {
			b = append(b, p[:i+1]...)
		} else {
			b = append(b, p[:i]...)
			b = append(b, '\r', '\n')
		}
		p = p[i+1:]
	}
}

func (c *webConn) writeText(p []byte) error {
	c.pending = appendCRLF(c.pending, p)
	return nil
}

func (c *webConn) writePrompt(p []byte) error {
	c.pending = appendCRLF(c.pending, p)
	return nil
}

// writeRaw sends a text message (GMCP, or the echo hints), after the text
// before it.
func (c *webConn) writeRaw(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if err := c.flush(); err != nil {
		return err
	}
	return c.send(false, p)
}

// flush sends the burst's text as one binary message.
func (c *webConn) flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	err := c.send(true, c.pending)
	if cap(c.pending) > 4096 {
		c.pending = nil // a burst's big buffer goes
	} else {
		c.pending = c.pending[:0]
	}
	return err
}

func (c *webConn) send(binary bool, p []byte) error {
	ctx := context.Background()
	if !c.writeBy.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.writeBy)
		defer cancel()
	}
	c.busy.Store(true)
	err := c.ws.Write(ctx, binary, p)
	c.busy.Store(false)
	if err != nil {
		c.failed.Store(true)
		return err
	}
	c.wire += uint64(len(p))
	return nil
}

// close ends the connection: a normal close after the last output, at
// once if a write failed or is stuck (a client that stopped reading).
func (c *webConn) close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.dlMu.Lock()
	if c.dlTimer != nil {
		c.dlTimer.Stop()
	}
	c.dlMu.Unlock()
	return c.ws.Close(!c.failed.Load() && !c.busy.Load())
}

func (c *webConn) startCompress() error             { return nil } // no MCCP over WebSocket
func (c *webConn) stopCompress() error              { return nil }
func (c *webConn) remote() string                   { return c.remoteA.String() }
func (c *webConn) kind() string                     { return "web" }
func (c *webConn) echoOff() []byte                  { return webEchoOff }
func (c *webConn) echoOn() []byte                   { return webEchoOn }
func (c *webConn) opening() []byte                  { return nil }
func (c *webConn) counts() (uint64, uint64, uint64) { return c.wire, 0, 0 }

// gmcpFrame is the text message for a GMCP message: every client of this
// subprotocol speaks GMCP.
func (c *webConn) gmcpFrame(pkg string, j []byte) []byte {
	b := make([]byte, 0, len(pkg)+1+len(j))
	b = append(b, pkg...)
	if len(j) > 0 {
		b = append(b, ' ')
		b = append(b, j...)
	}
	return b
}

// colorDepth: a browser renders truecolour; a screen reader is whatever
// the page said in Core.Hello.
func (c *webConn) colorDepth() (markup.Level, bool) { return markup.TrueColor, c.reader.Load() }

func (c *webConn) columns() int { return int(c.width.Load()) }

func (c *webConn) info() clientInfo {
	return clientInfo{
		width: int(c.width.Load()), height: int(c.height.Load()),
		color: markup.TrueColor, screenReader: c.reader.Load(), utf8: true, name: "web",
	}
}
