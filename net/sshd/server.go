package sshd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/logev"
	"zonemud/internal/run"
	"zonemud/net/gate"
)

// Backend is what the front asks and hands its sessions to: the game's
// *gate.Gate in one process, or under copyover the holder
// (gate.Holder), which asks the game over its link.
type Backend interface {
	// AddressRefused is the line for a client whose address may not try
	// at all, "" if it may.
	AddressRefused(remote net.Addr) string
	// CheckSSH says what a credential proves.
	CheckSSH(c gate.SSHCheck) (gate.SSHAnswer, error)
	// ServeSSH runs a session to its end.
	ServeSSH(l gate.SSHLogin)
}

// Server is the SSH front: a gliderlabs/ssh server whose sessions go to a
// Backend.
type Server struct {
	g      Backend       // immutable after New
	cfg    Config        // immutable after New
	log    *slog.Logger  // immutable after New
	signer gossh.Signer  // immutable after New
	ssh    *ssh.Server   // immutable after New
	idle   time.Duration // immutable after New: HandshakeTimeoutSecs
	stall  time.Duration // immutable after Serve: writeStall (tests shorten it)

	mu        sync.Mutex
	closing   bool                      // guarded by mu
	listeners map[net.Listener]struct{} // guarded by mu
	conns     map[*conn]struct{}        // guarded by mu
	gr        run.Group                 // closed with closing, under mu
}

// ctxKey is the type of ctxConn.
type ctxKey struct{}

// ctxConn is the gliderlabs context key of a connection's *conn.
var ctxConn = ctxKey{}

// New makes an SSH front for g. It loads the host key from dataDir, or
// creates it there on first start. A nil log discards.
func New(g Backend, dataDir string, cfg Config, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	signer, err := loadHostKey(filepath.Join(dataDir, cfg.HostKeyFile), log)
	if err != nil {
		return nil, err
	}
	if g == nil || reflect.ValueOf(g).IsNil() {
		return nil, errors.New("sshd: no gate")
	}
	s := &Server{
		g: g, cfg: cfg, log: log, signer: signer,
		idle:      time.Duration(cfg.HandshakeTimeoutSecs) * time.Second,
		stall:     writeStall,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn]struct{}{},
	}
	s.ssh = &ssh.Server{
		Version:     "zonemud",
		HostSigners: []ssh.Signer{signer},
		// Authentication is set on the x/crypto config itself (see
		// serverConfig); the gliderlabs handler fields stay nil.
		ServerConfigCallback: s.serverConfig,
		ConnCallback: func(ctx ssh.Context, c net.Conn) net.Conn {
			ctx.SetValue(ctxConn, c.(*conn))
			return c
		},
		ConnectionFailedCallback: func(c net.Conn, err error) {
			s.log.Debug("sshd: a handshake failed", logev.ID(3006), logev.Remote(c.RemoteAddr().String()), "err", err)
		},
		// Only session channels; no global requests (tcpip-forward and
		// the like are refused), no subsystems.
		ChannelHandlers:   map[string]ssh.ChannelHandler{"session": s.sessionChannel},
		RequestHandlers:   map[string]ssh.RequestHandler{},
		SubsystemHandlers: map[string]ssh.SubsystemHandler{},
	}
	return s, nil
}

// HostKey is the server's public host key.
func (s *Server) HostKey() gossh.PublicKey { return s.signer.PublicKey() }

// Serve accepts SSH connections on l until Shutdown, then returns nil. It
// closes l.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = l.Close()
		return nil
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		_ = l.Close()
	}()
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			switch {
			case s.stopping():
				return nil
			case errors.Is(err, net.ErrClosed):
				return fmt.Errorf("sshd: accept: %w", err)
			}
			// Out of file descriptors and the like: wait and go on,
			// never spin and never die.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("sshd: accept failed; retrying", logev.ID(3007), "err", err, "after", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if why := s.g.AddressRefused(c.RemoteAddr()); why != "" {
			refuse(c, why)
			continue
		}
		cn := s.newConn(c)
		if !s.spawn("conn", func() {
			defer s.dropConn(cn)
			s.ssh.HandleConn(cn)
		}) {
			s.dropConn(cn)
		}
	}
}

// refuse closes a connection from an address the gate has shut out,
// before the SSH handshake, so it costs no key exchange and gets to try no
// password or key. The reason goes first as a line, which SSH allows before
// the version line: clients show it or ignore it, and a person trying with
// netcat reads why. The write deadline keeps a client that does not read
// from holding up the accept loop.
func refuse(c net.Conn, why string) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write([]byte(why + "\r\n"))
	_ = c.Close()
}

func (s *Server) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops accepting, closes every SSH connection and waits for the
// front's goroutines (game sessions included) to end, or for ctx. Call it
// after the world has told its players and closed their sessions: it cuts
// whatever is still open, which the world sees as link-dead.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.gr.Close()
	for l := range s.listeners {
		_ = l.Close()
	}
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	if err := s.gr.Wait(ctx); err != nil {
		return fmt.Errorf("sshd: connections still open at shutdown: %w", err)
	}
	return nil
}

// spawn runs fn on a new goroutine that Shutdown waits for, labelled for
// pprof. It reports false, and does not run fn, once Shutdown has begun.
func (s *Server) spawn(kind string, fn func()) bool {
	_, ok := s.gr.Go(context.Background(), func(context.Context) { fn() }, "sshd", kind)
	return ok
}

// run is spawn on the calling goroutine, for goroutines gliderlabs starts.
func (s *Server) run(kind string, fn func()) bool { return s.gr.Run(fn, "sshd", kind) }

// conn is one SSH connection as the front sees it: the socket, the count
// of its session channels, and the timer that closes it while it has no
// game session (during the handshake, and after its last session ends).
type conn struct {
	net.Conn
	s        *Server
	channels atomic.Int32 // open session channels

	mu       sync.Mutex
	sessions int         // guarded by mu: game sessions running
	holds    int         // guarded by mu: backend waits for a game (hold)
	idle     *time.Timer // immutable after newConn; Reset and Stop under mu
	closed   bool        // guarded by mu: Close ran; the idle timer stays stopped
	password string      // guarded by mu: kept from the authentication to the shell (keep)

	closeOnce sync.Once
	closeErr  error
}

func (s *Server) newConn(c net.Conn) *conn {
	cn := &conn{Conn: c, s: s}
	cn.mu.Lock()
	cn.idle = time.AfterFunc(s.idle, cn.idleTimeout)
	cn.mu.Unlock()
	s.mu.Lock()
	if !s.closing {
		s.conns[cn] = struct{}{}
	}
	s.mu.Unlock()
	return cn
}

func (s *Server) dropConn(cn *conn) {
	_ = cn.Close()
	s.mu.Lock()
	delete(s.conns, cn)
	s.mu.Unlock()
}

// idleTimeout closes a connection that has no game session: a handshake
// that did not finish in time, or a connection that stays open after its
// sessions ended (which the gate's connection limits do not count).
func (c *conn) idleTimeout() {
	c.mu.Lock()
	n := c.sessions + c.holds
	c.mu.Unlock()
	if n == 0 {
		c.s.log.Debug("sshd: closing a connection without a session", logev.ID(3008), logev.Remote(c.RemoteAddr().String()))
		_ = c.Close()
	}
}

func (c *conn) sessionStarted() {
	c.mu.Lock()
	c.sessions++
	c.idle.Stop()
	c.mu.Unlock()
}

func (c *conn) sessionEnded() {
	c.mu.Lock()
	c.sessions--
	if c.sessions == 0 && c.holds == 0 && !c.closed {
		c.idle.Reset(c.s.idle)
	}
	c.mu.Unlock()
}

// hold keeps the idle timer from closing the connection while the backend
// waits for a game (a copyover holder between two games, which bounds the
// wait: gate.GameWait); the func it returns lets the timer run again, for
// a whole timeout from then.
func (c *conn) hold() func() {
	c.mu.Lock()
	c.holds++
	c.idle.Stop()
	c.mu.Unlock()
	return sync.OnceFunc(func() {
		c.mu.Lock()
		c.holds--
		if c.sessions == 0 && c.holds == 0 && !c.closed {
			c.idle.Reset(c.s.idle)
		}
		c.mu.Unlock()
	})
}

// keep keeps the password that let the client in, for the shell to hand
// the backend (gate.SSHAnswer.Keep); take hands it over and forgets it.
// The connection keeps it no longer than that, and never past its close.
func (c *conn) keep(pw string) {
	c.mu.Lock()
	c.password = pw
	c.mu.Unlock()
}

func (c *conn) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	pw := c.password
	c.password = ""
	return pw
}

// Close closes the socket once; every later call returns nil.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.idle.Stop()
		c.password = ""
		c.mu.Unlock()
		c.closeErr = c.Conn.Close()
	})
	return c.closeErr
}
