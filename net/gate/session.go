package gate

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"zonemud/world/content"
	"zonemud/zone"
)

// Session is one player connection, telnet or SSH: the same login, the same
// link-dead and takeover rules, the same exactly-once input. It implements
// zone.Session.
//
// Goroutines: the reader (the goroutine that runs serve: login, then input
// lines into the zone) and the writer (the only goroutine that writes the
// socket). Zones call Write, GMCP and Close from theirs.
type Session struct {
	id     uint64   // immutable
	g      *Gate    // immutable
	c      conn     // immutable
	remote net.Addr // immutable
	out    outQueue
	name   atomic.Pointer[string] // atomic: set once logged in

	zone atomic.Pointer[zone.Zone] // atomic: where input goes

	zoneSet  chan struct{} // closed when the session is first given a zone
	zoneOnce sync.Once
	closed   atomic.Bool   // no more output is accepted
	gone     atomic.Bool   // the connection is closed
	done     chan struct{} // closed when the writer has finished
	colorSet atomic.Int32  // atomic: -1 from the client, else a content.ColorLevel

	mu       sync.Mutex
	gmcpPkgs map[string]bool // guarded by mu: packages the client asked for, lower case

	seq uint64 // reader goroutine only: lines posted
	lim *rate.Limiter
}

func newSession(g *Gate, id uint64) *Session {
	s := &Session{
		id: id, g: g,
		out:     newOutQueue(g.cfg.OutputLimitKiB << 10),
		done:    make(chan struct{}),
		zoneSet: make(chan struct{}),
		lim:     rate.NewLimiter(rate.Limit(g.cfg.LinesPerSec), g.cfg.LinesBurst),
	}
	s.colorSet.Store(-1)
	return s
}

func (s *Session) remoteAddr() net.Addr { return s.remote }

// ID is unique among this process's sessions.
func (s *Session) ID() uint64 { return s.id }

// Write queues output. It never blocks; a queue past its limit closes the
// connection.
func (s *Session) Write(p []byte, prompt bool) bool {
	kind := frameText
	if prompt {
		kind = framePrompt
	}
	ok, overflow := s.out.put(kind, p)
	if overflow {
		s.g.overflows.Add(1)
		s.Close("Your connection is not keeping up with the game's output; disconnecting.")
	}
	return ok
}

// raw queues protocol bytes.
func (s *Session) raw(p []byte) {
	if len(p) == 0 {
		return
	}
	if _, overflow := s.out.put(frameRaw, p); overflow {
		s.g.overflows.Add(1)
		s.Close("")
	}
}

// Close queues msg as the last output and closes the connection after it.
// It is safe to call more than once and from any goroutine.
func (s *Session) Close(msg string) {
	if !s.closed.CompareAndSwap(false, true) {
		return
	}
	if msg != "" && !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	s.out.put(frameClose, []byte(msg))
}

// Closed reports whether the session has been closed or its connection lost.
func (s *Session) Closed() bool { return s.closed.Load() || s.gone.Load() }

// SetZone points the session's input at z.
func (s *Session) SetZone(z *zone.Zone) {
	s.zone.Store(z)
	s.zoneOnce.Do(func() { close(s.zoneSet) })
}

// Zone is where the session's input goes.
func (s *Session) Zone() *zone.Zone { return s.zone.Load() }

// Width is the client's width for wrapping: what NAWS or the PTY said,
// clamped to [20, 250], or 80 if unknown.
func (s *Session) Width() int {
	w := s.c.info().width
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
// the package (or its parent: "Room" covers "Room.Info").
func (s *Session) GMCP(pkg string, data any) {
	if !s.wantsGMCP(pkg) {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		s.g.log.Warn("gate: GMCP payload does not encode", "pkg", pkg, "err", err)
		return
	}
	if f := s.c.gmcpFrame(pkg, b); f != nil {
		s.raw(f)
	}
}

func (s *Session) wantsGMCP(pkg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.gmcpPkgs) == 0 {
		return false
	}
	p := strings.ToLower(pkg)
	for {
		if s.gmcpPkgs[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// Client describes the client for the zone.
func (s *Session) Client() zone.ClientInfo {
	inf := s.c.info()
	return zone.ClientInfo{
		Name: inf.name, Transport: s.c.kind(), Color: int(s.colorLevel()), Reported: int(inf.color),
		ScreenReader: inf.screenReader, UTF8: inf.utf8,
	}
}

// SetColor overrides the client's colour level; -1 restores it.
func (s *Session) SetColor(level int) {
	if level < -1 || level > int(content.ColorTrue) {
		return
	}
	s.colorSet.Store(int32(level))
}

// colorLevel is the colour level output is rendered at.
func (s *Session) colorLevel() content.ColorLevel {
	if v := s.colorSet.Load(); v >= 0 {
		return content.ColorLevel(v)
	}
	inf := s.c.info()
	if inf.screenReader {
		return content.ColorNone // a screen reader reads escape codes aloud
	}
	return inf.color
}

// writer is the session's writer goroutine: the only code that writes the
// socket. It renders markup for this client, frames text for its protocol,
// and flushes after each burst. A burst that cannot be written within the
// write timeout (a client that stopped reading) ends the connection.
func (s *Session) writer() {
	defer close(s.done)
	defer s.gone.Store(true)
	var rendered []byte
	timeout := time.Duration(s.g.cfg.WriteTimeoutSecs) * time.Second
	for {
		<-s.out.Signal()
		frames := s.out.Pop()
		// The deadline is set before the burst's first write, not at its
		// flush: the encoder passes a burst bigger than its buffer to the
		// socket as it goes, and the last burst's deadline has long passed
		// after a quiet spell.
		_ = s.c.setWriteDeadline(time.Now().Add(timeout))
		closing := false
		var err error
		level := s.colorLevel()
		for b := frames; len(b) > 0 && err == nil; {
			kind, data, rest, ok := nextFrame(b)
			if !ok {
				break
			}
			b = rest
			switch kind {
			case frameText, framePrompt, frameClose:
				rendered = content.RenderMarkup(rendered[:0], data, level)
				if kind == framePrompt {
					err = s.c.writePrompt(rendered)
				} else {
					err = s.c.writeText(rendered)
				}
				closing = closing || kind == frameClose
			case frameRaw:
				err = s.c.writeRaw(data)
			case frameCompress:
				if err = s.c.flush(); err == nil {
					err = s.c.startCompress()
				}
			case frameDecompress:
				err = s.c.stopCompress()
			}
			if closing {
				break
			}
		}
		if err == nil {
			if closing {
				err = s.c.stopCompress()
			}
			if ferr := s.c.flush(); err == nil {
				err = ferr
			}
		}
		s.out.Recycle(frames)
		if cap(rendered) > 2048 {
			rendered = nil // idle sessions keep no burst-sized buffer
		}
		if closing || err != nil {
			if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
				s.g.log.Debug("gate: write failed; closing", "session", s.id, "err", err)
			}
			s.closed.Store(true)
			_ = s.c.close()
			return
		}
	}
}
