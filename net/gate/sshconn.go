package gate

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"zonemud/internal/markup"
	"zonemud/internal/run"
)

// sshConn is a conn over an SSH channel with a PTY. SSH has no terminal on
// the server side, so the server edits lines itself (x/term: echo, cursor
// keys, history) and writes CRLF. Colour comes from the PTY's terminal
// type; width from the PTY and window changes.
type sshConn struct {
	l      SSHLogin
	t      *term.Terminal
	width  atomic.Int32
	height atomic.Int32
	color  markup.Level // immutable
	closed atomic.Bool
	// drawn is closed once the first burst that ends in a prompt (the
	// first question, or the game's prompt) is written, or the channel
	// closes. The first read waits for it: x/term draws its prompt as a
	// read begins, and the terminal's own "> " drawn before the banner
	// would be a prompt that answers nothing, which a scripted client
	// takes for the end of the login.
	drawn     chan struct{}
	drawnOnce sync.Once
	reading   bool // reader goroutine only: a read has begun

	dlMu    sync.Mutex
	dlTimer *time.Timer // guarded by dlMu: closes the channel at the login deadline; nil until first armed
	writeBy time.Time   // writer goroutine only: the write deadline; zero when off
	maxLine int         // immutable
	in      *eofWatch
	resized atomic.Pointer[func()] // set by a holder before the first resize can matter

	pending   []byte // writer goroutine only: the burst's text
	wire      uint64 // writer goroutine only: bytes written to the channel
	prompt    string // writer goroutine only: the burst's prompt, if hasPrompt
	hasPrompt bool
}

// eofWatch remembers whether the channel itself failed, so that an io.EOF
// from the line editor for ^C or ^D on an empty line is not taken for the
// connection ending.
//
// Behind a copyover holder it also reads passwords: the game asks one
// with echo off (an op), which the holder's writer turns into secret, and
// what is typed from then to the line's end is kept here, away from the
// line editor (which would echo it, and is already waiting in a read when
// the question comes); the read then fails with errSecret, the editor
// returns it, and next hands the line on.
type eofWatch struct {
	r      io.Reader
	failed atomic.Bool
	secret atomic.Bool // the holder's writer: typed bytes are a password

	sbuf    []byte // reader goroutine only: the password typed so far
	rest    []byte // reader goroutine only: bytes after the password's line end
	afterCR bool   // reader goroutine only: the last byte ended a password line with CR
}

// errSecret is a read cut short by the end of a password line.
var errSecret = errors.New("gate: a password line")

func (e *eofWatch) Read(p []byte) (int, error) {
	for {
		if len(e.rest) > 0 && !e.secret.Load() {
			n := copy(p, e.rest)
			e.rest = e.rest[n:]
			return n, nil
		}
		var buf []byte
		if len(e.rest) > 0 {
			buf, e.rest = e.rest, nil
		} else {
			n, err := e.r.Read(p)
			if err != nil {
				e.failed.Store(true)
				return n, err
			}
			if !e.secret.Load() {
				return n, nil
			}
			buf = append([]byte(nil), p[:n]...)
		}
		for i, b := range buf {
			if e.afterCR {
				e.afterCR = false
				if b == '\n' {
					continue
				}
			}
			switch {
			case b == '\r' || b == '\n':
				e.afterCR = b == '\r'
				e.rest = append([]byte(nil), buf[i+1:]...)
				return 0, errSecret
			case b == 0x7f || b == 0x08:
				for len(e.sbuf) > 0 {
					last := e.sbuf[len(e.sbuf)-1]
					e.sbuf = e.sbuf[:len(e.sbuf)-1]
					if last&0xc0 != 0x80 {
						break
					}
				}
			case b >= 0x20 && len(e.sbuf) < 1024:
				e.sbuf = append(e.sbuf, b)
			}
		}
	}
}

// takeSecret returns the password line read and forgets it.
func (e *eofWatch) takeSecret() string {
	s := string(e.sbuf)
	e.sbuf = nil
	return s
}

func newSSHConn(gr *run.Group, l SSHLogin, maxLine int) *sshConn {
	c := &sshConn{l: l, maxLine: maxLine, drawn: make(chan struct{})}
	c.in = &eofWatch{r: l.Channel}
	// The terminal starts with a prompt so that it is never at the start of
	// an empty line when the first question arrives: x/term redraws its
	// prompt only around output written while something is on the line.
	c.t = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{c.in, l.Channel}, "> ")
	c.setSize(l.Width, l.Height)
	c.color = termColor(l.Term)
	// Window changes: the front drains its source; this keeps the latest
	// size for wrapping and line editing, until the front closes Resize
	// at the session's end.
	gr.GoWith(resizeLabels, func() { c.relay(l.Resize) })
	return c
}

// resizeLabels mark an SSH session's window-change relay in profiles.
var resizeLabels = run.NewLabels("session", "resize")

// relay keeps each window size from sizes until it is closed, and tells
// resized of each (a holder passes it on to the game).
func (c *sshConn) relay(sizes <-chan [2]int) {
	for sz := range sizes {
		c.setSize(sz[0], sz[1])
		if f := c.resized.Load(); f != nil {
			(*f)()
		}
	}
}

func (c *sshConn) setSize(w, h int) {
	w, h = min(max(w, 0), 1000), min(max(h, 0), 1000)
	c.width.Store(int32(w))
	c.height.Store(int32(h))
	if w > 0 && h > 0 {
		_ = c.t.SetSize(w, h)
	}
}

// termColor guesses colour depth from the PTY's TERM: truecolor for the
// terminals that say so, 256 for xterm-likes (nearly every terminal an ssh
// user runs), 16 for a plain vt100 or linux console, none for dumb.
func termColor(t string) markup.Level {
	t = strings.ToLower(t)
	switch {
	case t == "" || t == "dumb":
		return markup.None
	case strings.Contains(t, "truecolor") || strings.Contains(t, "24bit") || strings.Contains(t, "direct"):
		return markup.TrueColor
	case strings.Contains(t, "256") || strings.HasPrefix(t, "xterm") || strings.HasPrefix(t, "screen") ||
		strings.HasPrefix(t, "tmux") || strings.Contains(t, "kitty") || strings.Contains(t, "alacritty"):
		return markup.Color256
	}
	return markup.Color16
}

// firstRead waits, before the first read, for the first prompt to be
// drawn (drawn).
func (c *sshConn) firstRead() {
	if !c.reading {
		c.reading = true
		<-c.drawn
	}
}

func (c *sshConn) next() (event, error) {
	c.firstRead()
	for {
		line, err := c.t.ReadLine()
		if errors.Is(err, errSecret) {
			return event{kind: evLine, text: cleanSSHLine(c.in.takeSecret())}, nil
		}
		if errors.Is(err, io.EOF) && !c.in.failed.Load() && !c.closed.Load() {
			continue // ^C or ^D typed by the player: not a hang-up
		}
		if err != nil {
			return event{}, err
		}
		if c.maxLine > 0 && len(line) > c.maxLine {
			return event{kind: evTooLong, n: c.maxLine}, nil
		}
		return event{kind: evLine, text: cleanSSHLine(line)}, nil
	}
}

// readSecret reads a line without echo (a password).
func (c *sshConn) readSecret(prompt string) (string, error) {
	line, err := c.t.ReadPassword(prompt) // draws its own prompt: nothing to wait for
	if err != nil {
		return "", err
	}
	return cleanSSHLine(line), nil
}

// cleanSSHLine drops control characters the terminal left in a line.
func cleanSSHLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// setReadDeadline arms the login timeout. An SSH channel has no read
// deadline of its own, so a timer closes the channel when the deadline
// passes; a zero time disarms it. Nothing runs while it is disarmed, so
// a player who has logged in costs no wake-ups.
func (c *sshConn) setReadDeadline(d time.Time) error {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	switch {
	case d.IsZero():
		if c.dlTimer != nil {
			c.dlTimer.Stop()
		}
	case c.dlTimer == nil:
		c.dlTimer = time.AfterFunc(time.Until(d), func() { _ = c.close() })
	default:
		c.dlTimer.Reset(time.Until(d))
	}
	return nil
}

// setWriteDeadline sets when the writes of a burst must be done. An SSH
// channel has no write deadline of its own: a write to a client that
// stopped reading waits for window space for ever, and the writer
// goroutine with it. So each write runs under a timer (timed) that closes
// the channel at the deadline; the write then fails, and the session ends
// as a drop.
func (c *sshConn) setWriteDeadline(d time.Time) error {
	c.writeBy = d
	return nil
}

// timed runs one write under the write deadline. Closing the channel
// unblocks the write once the client's side answers the close; a client
// whose whole connection is stuck is cut by the SSH front (its write
// stall), which the closing timer then waits for.
func (c *sshConn) timed(write func() error) error {
	if c.writeBy.IsZero() {
		return write()
	}
	t := time.AfterFunc(time.Until(c.writeBy), func() { _ = c.close() })
	err := write()
	if !t.Stop() {
		// The deadline passed: whatever the write said, the channel
		// is closing.
		return os.ErrDeadlineExceeded
	}
	return err
}

// writeText adds text to the burst; flush writes it.
func (c *sshConn) writeText(p []byte) error {
	c.pending = append(c.pending, p...)
	return nil
}

// writePrompt adds the text before the prompt line to the burst and makes
// the prompt line the terminal's own prompt at flush, so line editing
// redraws it when other output arrives while the player types.
func (c *sshConn) writePrompt(p []byte) error {
	i := bytes.LastIndexByte(p, '\n')
	c.pending = append(c.pending, p[:i+1]...)
	c.prompt, c.hasPrompt = string(p[i+1:]), true
	return nil
}

// flush writes the burst: one write to the channel, under the write
// deadline.
func (c *sshConn) flush() error {
	if len(c.pending) == 0 && !c.hasPrompt {
		return nil
	}
	prompted := c.hasPrompt
	err := c.timed(func() error {
		if c.hasPrompt {
			c.t.SetPrompt(c.prompt) // waits for the terminal's lock too
		}
		n, err := c.t.Write(c.pending)
		c.wire += uint64(n + len(c.prompt))
		return err
	})
	if prompted {
		c.drawnOnce.Do(func() { close(c.drawn) })
	}
	c.hasPrompt, c.prompt = false, ""
	if cap(c.pending) > 4096 {
		c.pending = nil // a burst's big buffer goes
	} else {
		c.pending = c.pending[:0]
	}
	return err
}

func (c *sshConn) writeRaw(p []byte) error               { return nil } // no telnet control on SSH
func (c *sshConn) startCompress() error                  { return nil } // SSH compresses itself if asked
func (c *sshConn) stopCompress() error                   { return nil }
func (c *sshConn) remote() string                        { return c.l.Remote.String() }
func (c *sshConn) kind() string                          { return "ssh" }
func (c *sshConn) echoOff() []byte                       { return nil }
func (c *sshConn) echoOn() []byte                        { return nil }
func (c *sshConn) gmcpFrame(pkg string, j []byte) []byte { return nil }
func (c *sshConn) opening() []byte                       { return nil }
func (c *sshConn) counts() (uint64, uint64, uint64)      { return c.wire, 0, 0 }

func (c *sshConn) close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.drawnOnce.Do(func() { close(c.drawn) })
	return c.l.Channel.Close()
}

func (c *sshConn) colorDepth() (markup.Level, bool) { return c.color, false }

func (c *sshConn) columns() int { return int(c.width.Load()) }

func (c *sshConn) info() clientInfo {
	return clientInfo{
		width: int(c.width.Load()), height: int(c.height.Load()),
		color: c.color, utf8: true, name: "ssh", terminal: c.l.Term,
	}
}
