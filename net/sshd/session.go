package sshd

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/logev"
	"zonemud/net/gate"
)

const (
	// maxDim caps a window's width and height; the gate clamps to the
	// same, and no terminal is bigger.
	maxDim = 1000
	// maxTerm caps the length of a PTY's terminal name.
	maxTerm = 64
	// writeStall is how long one write may wait for a client that stopped
	// reading (its channel window is full) before the connection is cut.
	// It matches the gate's default write timeout for telnet.
	writeStall = 30 * time.Second
	// maxInputLine caps the characters of one input line that reach the
	// gate. Its line editor (x/term) keeps a whole line, and a hundred
	// lines of history, in memory with no limit of its own. Twice the
	// gate's default max_line: the gate refuses what is longer than its
	// own limit.
	maxInputLine = 8 << 10
)

// sessionChannel is the gliderlabs channel handler for "session" channels.
// It refuses channels beyond MaxChannels at once, then runs the channel's
// request loop on the goroutine gliderlabs started for it.
func (s *Server) sessionChannel(_ *ssh.Server, sc *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	cn, _ := ctx.Value(ctxConn).(*conn)
	if cn == nil { // every connection comes through Serve, which sets it
		_ = nc.Reject(gossh.ConnectionFailed, "internal error")
		return
	}
	if n := cn.channels.Add(1); n > int32(s.cfg.MaxChannels) {
		cn.channels.Add(-1)
		_ = nc.Reject(gossh.ResourceShortage, fmt.Sprintf("at most %d sessions per connection", s.cfg.MaxChannels))
		return
	}
	if !s.run("channel", func() { s.channel(cn, sc, nc) }) {
		cn.channels.Add(-1)
		_ = nc.Reject(gossh.ConnectionFailed, "the server is shutting down")
	}
}

// session is one session channel. Its fields belong to the channel's
// request loop, except where noted.
type session struct {
	s    *Server
	cn   *conn
	sc   *gossh.ServerConn
	ch   *channel // safe from any goroutine
	reqs <-chan *gossh.Request

	started bool // a shell or exec request was answered
	pty     bool
	term    string
	w, h    int
	sizes   *sizes        // non-nil once the game session runs
	done    chan struct{} // closed when the game session has ended
}

func (s *Server) channel(cn *conn, sc *gossh.ServerConn, nc gossh.NewChannel) {
	// The channel stops counting against MaxChannels before the client can
	// see it end: a client that opens its next session as soon as the last
	// one has closed is not refused for one still being torn down here.
	release := sync.OnceFunc(func() { cn.channels.Add(-1) })
	defer release()
	ch, reqs, err := nc.Accept()
	if err != nil {
		return
	}
	x := &session{s: s, cn: cn, sc: sc, ch: &channel{Channel: ch, cn: cn, release: release}, reqs: reqs}
	x.serve()
}

// serve answers the channel's requests until the client closes it. It
// never blocks on the game: window changes are handed over without
// waiting, so a client that sends a thousand before its shell request
// still gets its shell.
func (x *session) serve() {
	for req := range x.reqs {
		var after func()
		ok := false
		switch req.Type {
		case "pty-req":
			ok = x.ptyReq(req.Payload)
		case "window-change":
			ok = x.windowChange(req.Payload)
		case "shell":
			if !x.started {
				x.started, ok = true, true
				after = x.shell
			}
		case "exec":
			// Answered, so the client shows the line and the exit status
			// instead of a bare "exec request failed".
			if !x.started {
				x.started, ok = true, true
				after = x.exec
			}
		default:
			// subsystem (sftp), env, signal, break, x11-req,
			// auth-agent-req: refused.
		}
		_ = req.Reply(ok, nil)
		if after != nil {
			after()
		}
	}
	// The client has closed the channel, or the connection is gone.
	if x.sizes != nil {
		x.sizes.close()
		<-x.done
	}
	_ = x.ch.Close()
}

func (x *session) ptyReq(payload []byte) bool {
	var m struct {
		Term                         string
		Columns, Rows, Width, Height uint32
		Modes                        string
	}
	if x.started || x.pty || gossh.Unmarshal(payload, &m) != nil {
		return false
	}
	x.pty, x.term = true, cleanTerm(m.Term)
	x.w, x.h = clampDim(m.Columns), clampDim(m.Rows)
	return true
}

func (x *session) windowChange(payload []byte) bool {
	var m struct{ Columns, Rows, Width, Height uint32 }
	if !x.pty || gossh.Unmarshal(payload, &m) != nil {
		return false
	}
	x.w, x.h = clampDim(m.Columns), clampDim(m.Rows)
	if x.sizes != nil {
		x.sizes.put(x.w, x.h)
	}
	return true
}

// shell starts the game session, after the shell request is answered.
func (x *session) shell() {
	if !x.pty {
		x.refuse(fmt.Sprintf("zonemud needs an interactive terminal: connect with ssh -t %s", x.hint()))
		return
	}
	id, err := x.s.identify(x.sc.User(), x.sc.RemoteAddr(), x.sc.Permissions, x.cn.hold)
	if err != nil {
		x.s.log.Warn("sshd: a session refused", logev.ID(3003), "user", logUser(x.sc.User()), logev.Remote(x.sc.RemoteAddr().String()), "err", err)
		x.refuse("zonemud could not confirm who you are; please connect again.")
		return
	}
	args := []any{"user", logUser(id.user), "method", id.method, "remote", x.sc.RemoteAddr().String()}
	if id.key != nil {
		args = append(args, "key", gossh.FingerprintSHA256(id.key))
	}
	x.s.log.Info("sshd: a session", append([]any{logev.ID(3004)}, args...)...)

	sz, done, ch := newSizes(), make(chan struct{}), x.ch
	login := gate.SSHLogin{
		User: id.user, Authenticated: id.authenticated,
		Channel: ch, Remote: x.sc.RemoteAddr(),
		Term: x.term, Width: x.w, Height: x.h,
		Resize: sz.c, Grant: id.grant,
	}
	if id.method == methodPassword {
		login.Password = x.cn.take()
	}
	if id.key != nil {
		login.Key = id.key.Marshal()
	}
	cn := x.cn
	cn.sessionStarted()
	ok := x.s.spawn("session", func() {
		defer close(done)
		defer cn.sessionEnded()
		x.s.g.ServeSSH(login)
		sz.close()
		_ = ch.Close()
	})
	if !ok {
		cn.sessionEnded()
		x.refuse("The world is shutting down. Please come back in a moment.")
		return
	}
	x.sizes, x.done = sz, done
}

// exec refuses a command: the game is played in a terminal.
func (x *session) exec() {
	if !x.pty {
		x.refuse(fmt.Sprintf("zonemud needs an interactive terminal: connect with ssh -t %s", x.hint()))
		return
	}
	x.refuse(fmt.Sprintf("zonemud runs no commands: connect with ssh -t %s and type them in the game", x.hint()))
}

// refuse writes one line to the client's stderr and ends the channel with
// exit status 1.
func (x *session) refuse(line string) {
	nl := "\n"
	if x.pty {
		nl = "\r\n" // no terminal on our side turns \n into \r\n
	}
	_, _ = x.ch.Stderr().Write([]byte(line + nl))
	_ = x.ch.exit(1)
}

// hint is the ssh command line to suggest: the user name the client gave
// (when it is a plausible name) and the port it reached.
func (x *session) hint() string {
	name := x.sc.User()
	if name == "" || len(name) > 32 || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		name = "Name"
	}
	if _, port, err := net.SplitHostPort(x.sc.LocalAddr().String()); err == nil && port != "22" {
		return fmt.Sprintf("%s@<host> -p %s", name, port)
	}
	return name + "@<host>"
}

// cleanTerm keeps a terminal name to the characters terminal names use.
func cleanTerm(t string) string {
	t = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.+", r) {
			return r
		}
		return -1
	}, t)
	if len(t) > maxTerm {
		t = t[:maxTerm]
	}
	return t
}

func clampDim(v uint32) int { return int(min(v, maxDim)) }

// sizes hands window sizes to the gate without ever blocking the request
// loop: a buffer of one whose stale size is replaced by the newest.
type sizes struct {
	c      chan [2]int // the gate's SSHLogin.Resize
	mu     sync.Mutex
	closed bool // guarded by mu; c is closed
}

func newSizes() *sizes { return &sizes{c: make(chan [2]int, 1)} }

// put offers the newest size, dropping one the gate has not taken yet.
func (z *sizes) put(w, h int) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed {
		return
	}
	for {
		select {
		case z.c <- [2]int{w, h}:
			return
		default:
		}
		select {
		case <-z.c: // stale: the gate has not read it
		default:
		}
	}
}

// close tells the gate no more sizes come; it may be called twice.
func (z *sizes) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if !z.closed {
		z.closed = true
		close(z.c)
	}
}

// channel is a session channel as the gate holds it. Close ends the
// session the SSH way, exit status first. A write that stalls because the
// client stopped reading cuts the connection after writeStall, as the
// write deadline does for telnet; closing the channel alone would not
// unblock it.
type channel struct {
	gossh.Channel
	cn      *conn
	once    sync.Once
	release func() // uncounts the channel from its connection's sessions
	lineLen int    // reader only: characters since the last line end
	drop    bool   // reader only: the current character is past maxInputLine
}

// Read passes input on, dropping the characters of a line past
// maxInputLine until the next CR or LF. It drops whole UTF-8 sequences, so
// the line editor never waits for the rest of a cut character.
func (c *channel) Read(p []byte) (int, error) {
	for {
		n, err := c.Channel.Read(p)
		w := 0
		for _, b := range p[:n] {
			switch {
			case b == '\r' || b == '\n':
				c.lineLen, c.drop = 0, false
			case b&0xc0 == 0x80:
				// A continuation byte goes with its character's first.
			default:
				c.lineLen++
				c.drop = c.lineLen > maxInputLine
			}
			if c.drop {
				continue
			}
			p[w] = b
			w++
		}
		if w > 0 || err != nil {
			return w, err
		}
	}
}

func (c *channel) Write(p []byte) (int, error) {
	t := time.AfterFunc(c.cn.s.stall, func() {
		c.cn.s.log.Info("sshd: a client stopped reading; closing its connection", logev.ID(3005), logev.Remote(c.cn.RemoteAddr().String()))
		_ = c.cn.Close()
	})
	defer t.Stop()
	return c.Channel.Write(p)
}

// Close sends exit status 0 and closes the channel.
func (c *channel) Close() error { return c.exit(0) }

// exit sends the exit status and closes the channel, once; later calls do
// nothing.
func (c *channel) exit(code int) error {
	var err error
	c.once.Do(func() {
		c.release()
		_, _ = c.Channel.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{uint32(code)}))
		err = c.Channel.Close()
	})
	return err
}
