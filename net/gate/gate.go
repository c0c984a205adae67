package gate

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"zonemud/internal/run"
	"zonemud/net/telnet"
	"zonemud/world"
)

// Config is the [gate] section of config.toml.
type Config struct {
	// MaxConnections caps open connections of all kinds.
	MaxConnections int `toml:"max_connections"`
	// MaxConnsPerIP caps open connections from one address.
	MaxConnsPerIP int `toml:"max_conns_per_ip"`
	// MaxLoginFailures is how many recent failed logins from one address
	// shut it out: no connection, and no password or key try over any way
	// in (they are forgiven by half every five minutes).
	MaxLoginFailures int `toml:"max_login_failures"`
	// AccountTries password tries at one account are allowed in each
	// window of AccountWindowSecs, from all connections together; past
	// them the account is locked for a window, then two, four... (up to an
	// hour) to addresses that have failed of late; a try from an address
	// that has not is never refused, only slowed (accounts.go).
	AccountTries      int `toml:"account_tries"`
	AccountWindowSecs int `toml:"account_window_secs"`
	// LimitLoopback applies the per-address limits to 127.0.0.1 too.
	// Off by default: behind a proxy every player is 127.0.0.1.
	LimitLoopback bool `toml:"limit_loopback"`
	// IPv6Prefix is how many leading bits of an IPv6 address make one
	// address for the per-address limits (64: a subscriber's /64 counts
	// once). IPv4 addresses count whole.
	IPv6Prefix int `toml:"ipv6_prefix"`
	// MaxLine is the longest input line in bytes; longer lines are refused.
	MaxLine int `toml:"max_line"`
	// MaxSubneg is the longest telnet subnegotiation in bytes.
	MaxSubneg int `toml:"max_subneg"`
	// LoginTimeoutSecs ends a connection that sits at a login prompt.
	LoginTimeoutSecs int `toml:"login_timeout_secs"`
	// WriteTimeoutSecs ends a connection whose client stops reading.
	WriteTimeoutSecs int `toml:"write_timeout_secs"`
	// OutputLimitKiB caps a session's queued output.
	OutputLimitKiB int `toml:"output_limit_kib"`
	// LinesPerSec and LinesBurst limit how fast one session's commands
	// reach its zone; a faster client waits, nobody else does.
	LinesPerSec float64 `toml:"lines_per_sec"`
	LinesBurst  int     `toml:"lines_burst"`
	// ArgonMemoryKiB and ArgonTime are the argon2id cost of new password
	// hashes; HashConcurrency caps hashes computed at once.
	ArgonMemoryKiB  int `toml:"argon_memory_kib"`
	ArgonTime       int `toml:"argon_time"`
	HashConcurrency int `toml:"hash_concurrency"`
	// MaxBadPasswords ends a login after this many wrong passwords.
	MaxBadPasswords int `toml:"max_bad_passwords"`
	// Banner is shown before the name prompt ({game} is the world's name).
	Banner string `toml:"banner"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{
		MaxConnections: 20000, MaxConnsPerIP: 32, MaxLoginFailures: 30,
		AccountTries: 10, AccountWindowSecs: 300, IPv6Prefix: 64,
		MaxLine: 4096, MaxSubneg: 8192,
		LoginTimeoutSecs: 120, WriteTimeoutSecs: 30, OutputLimitKiB: 512,
		LinesPerSec: 20, LinesBurst: 60,
		ArgonMemoryKiB: 19456, ArgonTime: 2, HashConcurrency: 2,
		MaxBadPasswords: 3,
		Banner:          "Welcome to {game}.",
	}
}

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	type rng struct {
		key       string
		v, lo, hi int
	}
	for _, r := range []rng{
		{"gate.max_connections", c.MaxConnections, 1, 1000000},
		{"gate.max_conns_per_ip", c.MaxConnsPerIP, 1, 1000000},
		{"gate.max_login_failures", c.MaxLoginFailures, 1, 1000000},
		{"gate.account_tries", c.AccountTries, 1, 1000000},
		{"gate.account_window_secs", c.AccountWindowSecs, 1, 86400},
		{"gate.max_line", c.MaxLine, 80, 65536},
		{"gate.max_subneg", c.MaxSubneg, 64, 1 << 20},
		{"gate.login_timeout_secs", c.LoginTimeoutSecs, 5, 3600},
		{"gate.write_timeout_secs", c.WriteTimeoutSecs, 1, 600},
		{"gate.output_limit_kib", c.OutputLimitKiB, 16, 1 << 20},
		{"gate.lines_burst", c.LinesBurst, 1, 10000},
		{"gate.argon_memory_kib", c.ArgonMemoryKiB, 8, 1 << 22},
		{"gate.argon_time", c.ArgonTime, 1, 100},
		{"gate.hash_concurrency", c.HashConcurrency, 1, 256},
		{"gate.max_bad_passwords", c.MaxBadPasswords, 1, 100},
		{"gate.ipv6_prefix", c.IPv6Prefix, 16, 128},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("%s: %d is out of range %d to %d", r.key, r.v, r.lo, r.hi)
		}
	}
	if c.LinesPerSec <= 0 || c.LinesPerSec > 10000 {
		return fmt.Errorf("gate.lines_per_sec: %g is out of range (0, 10000]", c.LinesPerSec)
	}
	if len(c.Banner) > 4096 {
		return fmt.Errorf("gate.banner: longer than 4096 bytes")
	}
	return nil
}

// Gate accepts connections, runs logins and owns sessions.
type Gate struct {
	cfg     Config       // immutable after New
	w       *world.World // immutable after New
	log     *slog.Logger // immutable after New
	hashSem chan struct{}

	nextID    atomic.Uint64
	conns     atomic.Int64 // open connections
	byIP      AddrCount
	ipFails   throttle // failed logins by address
	accounts  accounts // password tries by account
	overflows atomic.Uint64
	bursts    atomic.Uint64 // output bursts flushed: a write to the socket each, unless empty
	lines     atomic.Uint64 // lines of text in them
	refusedIP atomic.Uint64 // connections and tries refused by per-address limits
	// refusedTries counts password tries refused, unchecked, by an
	// account's cap; checks counts passwords hashed to check them.
	refusedTries atomic.Uint64
	checks       atomic.Uint64
	refusedBan   atomic.Uint64 // connections and tries refused by an address ban
	reattached   atomic.Uint64 // sessions a holder attached already in their character
	grants       grants        // a copyover game's answers to its holder's SSH front, waiting for their Login
	resume       resumes       // web sessions' resume tokens
	stopping     atomic.Bool
	met          *metrics // immutable after New

	mu        sync.Mutex
	listeners []net.Listener      // guarded by mu
	sessions  map[uint64]*Session // guarded by mu
	// gr starts every goroutine of the gate. It is never closed: a
	// session's last output needs a writer after Shutdown, and new
	// connections are refused by stopping instead.
	gr run.Group

	// Idle writers (writer.go): a writer that has emptied its session's
	// queue waits a while for another session to write to. idleW hands
	// it one (unbuffered: a send succeeds only while a writer waits);
	// idleN counts the waiting, atomic; stopIdle, closed by Wait through
	// stopOnce, sends every waiting writer home.
	idleW    chan *Session
	idleN    atomic.Int32
	stopIdle chan struct{}
	// writersStarted counts writer goroutines started; atomic.
	writersStarted atomic.Uint64
	stopOnce       sync.Once

	// msspExtra are MSSP variables set by the wiring: PORT, CONTACT,
	// WEBSITE and the like from config.
	msspExtra []telnet.MSSPVar
}

// New makes a gate in front of a world.
func New(w *world.World, cfg Config, log *slog.Logger) *Gate {
	if log == nil {
		log = slog.Default()
	}
	g := &Gate{
		cfg: cfg, w: w, log: log,
		hashSem:  make(chan struct{}, cfg.HashConcurrency),
		sessions: map[uint64]*Session{},
		idleW:    make(chan *Session),
		stopIdle: make(chan struct{}),
	}
	g.met = newMetrics(g)
	return g
}

// addListener records l for Shutdown to close. It closes l and reports
// false if Shutdown has already run: a listener whose accept loop starts
// after Shutdown would otherwise accept for ever, and the server's
// shutdown would wait on it for ever.
func (g *Gate) addListener(l net.Listener) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping.Load() {
		_ = l.Close()
		return false
	}
	g.listeners = append(g.listeners, l)
	return true
}

// ServeTelnet accepts telnet connections on l until the gate shuts down.
func (g *Gate) ServeTelnet(l net.Listener) error {
	if !g.addListener(l) {
		return nil
	}
	tc := g.cfg.telnetConfig()
	return acceptLoop(l, &g.stopping, g.log, frontTelnet, func(c net.Conn) {
		if why := g.admit(c.RemoteAddr()); why != "" {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = c.Write([]byte(why + "\r\n"))
			_ = c.Close()
			return
		}
		g.gr.GoWith(readerLabels, func() {
			g.run(c.RemoteAddr(), frontTelnet, func(s *Session) conn { return newTelnetConn(c, tc, s.raw) }, nil, true)
		})
	})
}

// admit decides whether a new connection from addr may open, and counts it
// if so (run releases it). It returns the line to send before closing a
// refused one.
func (g *Gate) admit(addr net.Addr) string {
	if g.stopping.Load() {
		return "The world is shutting down. Please come back in a moment."
	}
	if why := g.AddressRefused(addr); why != "" {
		return why
	}
	key := g.ipKey(addr)
	if n := g.conns.Add(1); n > int64(g.cfg.MaxConnections) {
		g.conns.Add(-1)
		return "The world is full right now; please try again later."
	}
	if !g.byIP.Add(key, g.cfg.MaxConnsPerIP) {
		g.conns.Add(-1)
		g.refusedIP.Add(1)
		return "Too many connections from your address; please close one and try again."
	}
	return ""
}

// run is one connection's life: the reader (login, then play) on the
// calling goroutine, a writer on its own while output is queued. With
// detach, play goes on on a fresh goroutine and run returns after the
// login: an idle connection then waits on a goroutine whose stack never
// held the login's deep calls, which keeps it small. Without detach (SSH,
// whose handler must last as long as the session) run returns when the
// session has ended. The caller has admitted the connection.
func (g *Gate) run(remote net.Addr, front string, mk func(*Session) conn, pre *preAuth, detach bool) {
	s := newSession(g, g.nextID.Add(1))
	s.remote, s.front, s.meters = remote, front, g.met.front(front)
	s.addr = g.ipKey(remote)
	s.lastRead.Store(time.Now().UnixNano())
	s.c = mk(s)
	g.mu.Lock()
	g.sessions[s.id] = s
	g.mu.Unlock()
	route := s.serve(pre)
	if route == nil {
		g.end(s)
		return
	}
	if !detach {
		s.play(route)
		g.end(s)
		return
	}
	g.gr.GoWith(readerLabels, func() {
		s.play(route)
		g.end(s)
	})
}

// readerLabels mark session readers in profiles.
var readerLabels = run.NewLabels("session", "reader")

// end closes a session whose reader is done and waits for its last output
// to be written and the connection closed.
func (g *Gate) end(s *Session) {
	s.Close("")
	<-s.done
	g.resume.ended(s, !s.onPurpose.Load())
	g.conns.Add(-1)
	g.byIP.Done(s.addr)
	g.mu.Lock()
	delete(g.sessions, s.id)
	g.mu.Unlock()
}

// Output is how many bursts of output the sessions have flushed (each one
// write to the socket) and how many lines of text they held.
func (g *Gate) Output() (bursts, lines uint64) { return g.bursts.Load(), g.lines.Load() }

// Connections is the number of open connections.
func (g *Gate) Connections() int { return int(g.conns.Load()) }

// Shutdown stops accepting connections and closes sessions still at a
// login prompt. Sessions in the world are closed by their zones when the
// world shuts down, after this. It does not wait: Wait waits for every
// session goroutine to end. It always returns nil.
func (g *Gate) Shutdown(ctx context.Context) error {
	g.stopping.Store(true)
	g.mu.Lock()
	for _, l := range g.listeners {
		_ = l.Close()
	}
	for _, s := range g.sessions {
		if s.route.Load() == nil {
			s.Close("The world is shutting down. Please come back in a moment.")
		}
	}
	g.mu.Unlock()
	return nil
}

// Wait waits for every session goroutine to end, or for ctx.
func (g *Gate) Wait(ctx context.Context) error {
	g.stopOnce.Do(func() { close(g.stopIdle) })
	err := g.gr.Wait(ctx)
	if err == nil {
		return nil
	}
	g.mu.Lock()
	for _, s := range g.sessions {
		_ = s.c.close()
	}
	g.mu.Unlock()
	return fmt.Errorf("gate: sessions still open at shutdown: %w", err)
}

// SetMSSP adds MSSP variables (ports, contact, website) from the wiring;
// one that the gate also knows (SSL) replaces the gate's, so every variable
// is sent once. Call it before serving.
func (g *Gate) SetMSSP(vars map[string][]string) {
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		g.msspExtra = append(g.msspExtra, telnet.MSSPVar{Name: k, Values: vars[k]})
	}
}
