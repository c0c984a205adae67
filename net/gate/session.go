package gate

import (
	"encoding/json"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/time/rate"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/internal/run"
	"zonemud/world"
)

// Session is one player connection, telnet or SSH: the same login, the same
// link-dead and takeover rules, the same exactly-once input. It implements
// world.Session: to the zones it is an output sink. Its input goes through
// the route the world handed it at login, which looks the character's zone
// up for every line; the session keeps no zone of its own.
//
// Goroutines: the reader (the goroutine that runs serve: login, then input
// lines into the zone) and, while output is queued, a writer (writer.go:
// the only goroutine that writes the socket, started when the queue fills
// and gone when it is empty). Zones call Write, GMCP and Close from theirs.
type Session struct {
	id     uint64      // immutable
	g      *Gate       // immutable
	c      conn        // immutable
	remote net.Addr    // immutable
	addr   string      // immutable: remote as the per-address limits count it (ipKey)
	front  string      // immutable: frontTelnet, frontTLS, frontSSH or frontWeb
	meters frontMeters // immutable
	out    outQueue
	name   atomic.Pointer[string] // atomic: set once logged in
	// lastRead is when the client last sent a line (unix ns), for the
	// admin's idle times.
	lastRead atomic.Int64

	route atomic.Pointer[world.Route] // atomic: set by the reader once the character is in the world

	closed atomic.Bool // no more output is accepted
	gone   atomic.Bool // the connection is closed
	cut    atomic.Bool // the output queue overflowed and the connection was cut
	// onPurpose is set when the session was closed while its connection
	// was up and not cut: a quit, a takeover, idling out, a kick. Its
	// resume token then dies with it (resume.go).
	onPurpose atomic.Bool
	done      chan struct{}                // closed when the connection is closed, its last output written
	colorSet  atomic.Pointer[markup.Level] // atomic: the override of `color`, nil for the client's own

	// writing is true while a writer goroutine runs, and for ever once the
	// connection is closed; whoever sets it from false starts the writer.
	writing atomic.Bool
	// typed is set by the reader for every line the player sends, and
	// cleared by the writer when it writes a prompt: the player's own
	// Enter has put the cursor on a fresh line.
	typed atomic.Bool
	w     writerState // the running writer's only; handed on through writing

	mu        sync.Mutex
	gmcpPkgs  map[string]bool // guarded by mu: packages the client asked for, lower case
	gmcpWants map[string]bool // guarded by mu: wantsGMCP's answers by package as sent, until gmcpPkgs changes
	gmcpAny   atomic.Bool     // the client has asked for a package (set under mu)

	seq uint64 // reader goroutine only: lines posted
	lim *rate.Limiter

	// resumeTok and resumeName are what a Client.Resume asked (reader
	// goroutine only, and never logged); resumed says the login was one.
	resumeTok, resumeName string
	resumed               bool
	// reattached says a copyover holder attached the session already in
	// its character: the world does not announce its arrival.
	reattached atomic.Bool
}

func newSession(g *Gate, id uint64) *Session {
	s := &Session{
		id: id, g: g,
		out:  newOutQueue(g.cfg.OutputLimitKiB << 10),
		done: make(chan struct{}),
		lim:  rate.NewLimiter(rate.Limit(g.cfg.LinesPerSec), g.cfg.LinesBurst),
	}
	return s
}

func (s *Session) remoteAddr() net.Addr { return s.remote }

// ID is unique among this process's sessions.
func (s *Session) ID() uint64 { return s.id }

// Write queues output: lines of text with colour markup, each ending in a
// newline, and with prompt set, a prompt after the last newline. It never
// blocks, and a lone Write is on its way to the client at once. Output
// queued faster than the client takes it is merged: the writer sends
// everything queued in one write, with one prompt at the end. A queue past
// its limit closes the connection.
func (s *Session) Write(p []byte, prompt bool) bool {
	kind := frameText
	if prompt {
		kind = framePrompt
	}
	return s.put(kind, p)
}

// question queues a login question: a prompt with no blank line before it.
func (s *Session) question(p []byte) bool {
	return s.put(frameQuestion, p)
}

// raw queues protocol bytes.
func (s *Session) raw(p []byte) {
	if len(p) == 0 {
		return
	}
	s.put(frameRaw, p)
}

// put queues a frame and makes sure a writer runs. A queue past its limit
// cuts the connection: the client has stopped reading, so the writer waits
// on it, and a farewell line queued behind would wait out the write
// timeout and then not be read either. The connection is closed at once,
// with no line (its end is a drop, as any lost connection), off the
// caller's goroutine, which may be a zone's: closing an SSH channel sends
// a message and may wait too.
func (s *Session) put(kind byte, p []byte) bool {
	ok := s.hold(kind, p)
	if ok {
		s.kick()
	}
	return ok
}

// hold queues a frame for the next burst and starts no writer: the put
// that follows takes it along.
func (s *Session) hold(kind byte, p []byte) bool {
	ok, over := s.out.put(kind, p)
	if over && s.cut.CompareAndSwap(false, true) {
		s.g.overflows.Add(1)
		s.Close("")
		s.g.gr.GoWith(cutLabels, func() { _ = s.c.close() })
	}
	return ok
}

// cutLabels mark the goroutine that cuts an overflowing connection.
var cutLabels = run.NewLabels("session", "cut")

// kick starts a writer unless one runs (or the connection is over).
func (s *Session) kick() {
	if s.writing.CompareAndSwap(false, true) {
		if in, ok := s.c.(inliner); ok && in.beginInline() {
			s.drainInline(in)
			return
		}
		s.g.startWriter(s)
	}
}

// Close queues msg as the last output and closes the connection after it.
// It is safe to call more than once and from any goroutine.
func (s *Session) Close(msg string) {
	if !s.closed.CompareAndSwap(false, true) {
		return
	}
	if !s.gone.Load() && !s.cut.Load() {
		s.onPurpose.Store(true)
		// A session closed on purpose (a quit, a kick) has no token to come
		// back with: it dies now, before the farewell goes out, so a page
		// that sees the close cannot resume it in the moment before the
		// session's end is counted.
		s.g.resume.ended(s, false)
	}
	if msg != "" && !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	if ok, _ := s.out.put(frameClose, []byte(msg)); ok {
		s.kick()
	}
}

// Closed reports whether the session has been closed or its connection lost.
func (s *Session) Closed() bool { return s.closed.Load() || s.gone.Load() }

// Width is the client's width for wrapping: what NAWS or the PTY said,
// clamped to [20, 250], or 80 if unknown.
func (s *Session) Width() int {
	w := s.c.columns()
	switch {
	case w == 0:
		return 80
	case w < 20:
		return 20
	case w > 250:
		return 250
	}
	return w - 1 // leave the last column free: some terminals wrap on it
}

// GMCP sends an out-of-band message if the client enabled GMCP and asked for
// the package (or its parent: "Room" covers "Room.Info"). data is encoded
// as JSON, unless it is a json.RawMessage: a sender telling many clients
// the same thing encodes it once.
func (s *Session) GMCP(pkg string, data any) {
	if f := s.gmcpFrame(pkg, data); f != nil {
		s.raw(f)
	}
}

// GMCPBefore queues an out-of-band message, as GMCP does, to go out in one
// burst with the Write that must follow it: the zone's flush sends a
// player's vitals and the channel lines held with the text this way, so
// that a client that asked for GMCP gets them in the same system call as
// the text, not in one of their own just before it.
func (s *Session) GMCPBefore(pkg string, data any) {
	if f := s.gmcpFrame(pkg, data); f != nil {
		s.hold(frameRaw, f)
	}
}

// GMCPAny reports whether the client asked for any GMCP package: a
// caller holding messages back for the next burst holds none for a client
// that would drop them.
func (s *Session) GMCPAny() bool { return s.gmcpAny.Load() }

// gmcpFrame is the client's frame for a GMCP message, or nil if the client
// did not ask for the package (or the payload does not encode).
func (s *Session) gmcpFrame(pkg string, data any) []byte {
	if !s.wantsGMCP(pkg) {
		return nil
	}
	b, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(data); err != nil {
			s.g.log.Warn("gate: a GMCP payload does not encode", logev.ID(2004), logev.Session(s.id), "pkg", pkg, "err", err)
			return nil
		}
	}
	f := s.c.gmcpFrame(pkg, b)
	if len(f) == 0 {
		return nil
	}
	return f
}

func (s *Session) wantsGMCP(pkg string) bool {
	if !s.gmcpAny.Load() {
		return false // most clients never ask: no lock for them
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.gmcpPkgs) == 0 {
		return false
	}
	// The game sends a handful of packages, thousands of times: each
	// answer is kept until the client's list changes.
	if want, ok := s.gmcpWants[pkg]; ok {
		return want
	}
	want := false
	for p := strings.ToLower(pkg); ; {
		if s.gmcpPkgs[p] {
			want = true
			break
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	if s.gmcpWants == nil {
		s.gmcpWants = map[string]bool{}
	}
	if len(s.gmcpWants) < maxGMCPPackages {
		s.gmcpWants[pkg] = want
	}
	return want
}

// Client describes the client for the zone.
func (s *Session) Client() world.ClientInfo {
	inf := s.c.info()
	return world.ClientInfo{
		Name: inf.name, Transport: s.c.kind(), Color: s.colorLevel(), Reported: inf.color,
		ScreenReader: inf.screenReader, UTF8: inf.utf8, Addr: s.addr, Reattached: s.reattached.Load(),
	}
}

// SetColor overrides the client's colour level.
func (s *Session) SetColor(level markup.Level) {
	if !level.Valid() {
		return
	}
	s.colorSet.Store(&level)
}

// ResetColor goes back to the client's own colour level.
func (s *Session) ResetColor() { s.colorSet.Store(nil) }

// colorLevel is the colour level output is rendered at.
func (s *Session) colorLevel() markup.Level {
	if l := s.colorSet.Load(); l != nil {
		return *l
	}
	color, screenReader := s.c.colorDepth()
	if screenReader {
		return markup.None // a screen reader reads escape codes aloud
	}
	return color
}
