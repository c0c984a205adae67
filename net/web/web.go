package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"zonemud/internal/logev"
	"zonemud/internal/run"
	"zonemud/net/gate"
)

// The subprotocols of mudstandards.org the front speaks, in the order it
// prefers them when a client offers both.
const (
	ProtoGMCP   = "gmcp.mudstandards.org"
	ProtoTelnet = "telnet.mudstandards.org"
)

// Path is where the WebSocket endpoint is served; everything else is the
// page's.
const Path = "/ws"

// Config is the [web] section of config.toml. The address itself is
// server.web_addr, beside the other listeners.
type Config struct {
	// Origins are the pages, besides the one this address serves, whose
	// scripts may open a WebSocket here: host patterns matched against
	// the Origin header's host ("play.example.org", "*.example.org"), or
	// "scheme://host" patterns. A browser always sends Origin; a request
	// from another origin is refused (403), so another site's page cannot
	// play as its visitor. Clients that are not browsers send none and
	// are let in.
	Origins []string `toml:"origins"`
	// TLS serves https:// and wss:// with the certificate of the telnet
	// TLS port (server.tls_cert and tls_key, or the self-signed pair in
	// data_dir).
	TLS bool `toml:"tls"`
	// PingSecs is how often each connection is pinged; one that has not
	// answered by the next ping is closed (its character goes link-dead).
	// It also keeps proxies, which close quiet connections, from closing
	// a player who is only reading.
	PingSecs int `toml:"ping_secs"`
	// MaxMessageKiB bounds one message from a client; a bigger one closes
	// the connection (1009).
	MaxMessageKiB int `toml:"max_message_kib"`
	// ProxyHeader, when set ("X-Forwarded-For" or "X-Real-IP"), is the
	// header a reverse proxy on this machine puts the player's address
	// in. It is believed only from a loopback peer: without it, behind a
	// proxy every player is 127.0.0.1 to the bans and per-address limits.
	ProxyHeader string `toml:"proxy_header"`
	// HeaderSecs bounds the reading of a request's header (the upgrade's
	// included): a client that sends it slowly is dropped when it runs
	// out. ReadSecs bounds a whole request, and the writing of its
	// answer; a WebSocket is free of both once upgraded (pings watch it
	// then). IdleSecs closes a kept-alive HTTP connection with no request
	// in it. MaxHeaderKiB bounds a request's header (431 past it).
	HeaderSecs   int `toml:"header_secs"`
	ReadSecs     int `toml:"read_secs"`
	IdleSecs     int `toml:"idle_secs"`
	MaxHeaderKiB int `toml:"max_header_kib"`
	// MaxConnsPerIP caps the TCP connections one address holds open on
	// this listener at once, page loads and WebSockets together, counted
	// under the gate's address key (so loopback is exempt unless
	// gate.limit_loopback); one past it is answered 503 once its request
	// header is in (within two seconds; silent ones are closed) and
	// closed. The gate's max_conns_per_ip still caps the
	// sessions (WebSockets) among them, with every other front's.
	MaxConnsPerIP int `toml:"max_conns_per_ip"`
	// UpgradesPerMin is how many WebSocket upgrades one address may ask
	// for in a minute (a bucket of that many that fills again over a
	// minute); one past it is answered 429 with Retry-After.
	UpgradesPerMin int `toml:"upgrades_per_min"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{
		PingSecs: 30, MaxMessageKiB: 16,
		HeaderSecs: 10, ReadSecs: 30, IdleSecs: 60, MaxHeaderKiB: 16,
		MaxConnsPerIP: 64, UpgradesPerMin: 60,
	}
}

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	if c.PingSecs < 5 || c.PingSecs > 3600 {
		return fmt.Errorf("web.ping_secs: %d is out of range 5 to 3600", c.PingSecs)
	}
	if c.MaxMessageKiB < 1 || c.MaxMessageKiB > 1024 {
		return fmt.Errorf("web.max_message_kib: %d is out of range 1 to 1024", c.MaxMessageKiB)
	}
	type rng struct {
		key       string
		v, lo, hi int
	}
	for _, r := range []rng{
		{"web.header_secs", c.HeaderSecs, 1, 600},
		{"web.read_secs", c.ReadSecs, 1, 3600},
		{"web.idle_secs", c.IdleSecs, 1, 3600},
		{"web.max_header_kib", c.MaxHeaderKiB, 1, 1024},
		{"web.max_conns_per_ip", c.MaxConnsPerIP, 1, 1000000},
		{"web.upgrades_per_min", c.UpgradesPerMin, 1, 1000000},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("%s: %d is out of range %d to %d", r.key, r.v, r.lo, r.hi)
		}
	}
	for _, o := range c.Origins {
		switch {
		case strings.TrimSpace(o) == "":
			return errors.New("web.origins: an empty pattern")
		case o == "*" || o == "*://*":
			return fmt.Errorf("web.origins: %q would let any site's page play as its visitor; name the hosts", o)
		}
		if _, err := path.Match(strings.ToLower(o), ""); err != nil {
			return fmt.Errorf("web.origins: %q is not a pattern: %v", o, err)
		}
	}
	switch strings.ToLower(c.ProxyHeader) {
	case "", "x-forwarded-for", "x-real-ip":
	default:
		return fmt.Errorf("web.proxy_header: %q is not X-Forwarded-For or X-Real-IP", c.ProxyHeader)
	}
	return nil
}

// Options are what the front needs beyond its configuration.
type Options struct {
	// Page serves everything but Path: the built-in web client. Nil
	// serves a short page that says the client is not built in.
	Page http.Handler
	// TLS, if set, serves HTTPS (Config.TLS).
	TLS *tls.Config
	Log *slog.Logger
}

// Backend is what the front admits its connections with and hands them
// to: the game's *gate.Gate in one process, or under copyover the holder
// (gate.Holder), which keeps them through the game's restarts.
type Backend interface {
	// AddressKey is the key per-address limits count addr under.
	AddressKey(addr net.Addr) string
	// Admit counts a new connection, or returns the line that refuses it.
	Admit(addr net.Addr) string
	// Release gives back a connection Admit counted that was never served.
	Release(addr net.Addr)
	ServeWeb(l gate.WebLogin)
	ServeWebTelnet(c net.Conn)
}

// Server is the web front: one HTTP server for the page and the
// WebSocket endpoint.
type Server struct {
	g    Backend      // immutable
	cfg  Config       // immutable
	log  *slog.Logger // immutable
	tls  *tls.Config  // immutable
	mux  *http.ServeMux
	http *http.Server

	mu    sync.Mutex
	conns map[*websocket.Conn]struct{} // guarded by mu: open connections, for the pinger
	stop  chan struct{}
	once  sync.Once
	gr    run.Group

	upgrades *bucket         // per-address upgrade rate
	open     *gate.AddrCount // per-address TCP connections
	refusing chan struct{}   // connections past the cap being answered
}

// New makes the web front in front of a gate or a copyover holder.
func New(g Backend, cfg Config, opt Options) *Server {
	lg := opt.Log
	if lg == nil {
		lg = slog.Default()
	}
	s := &Server{
		g: g, cfg: cfg, log: lg, conns: map[*websocket.Conn]struct{}{}, stop: make(chan struct{}),
		upgrades: newBucket(cfg.UpgradesPerMin, time.Minute, time.Now),
		open:     &gate.AddrCount{},
		refusing: make(chan struct{}, maxRefusing),
	}
	if opt.TLS != nil {
		s.tls = opt.TLS.Clone()
		s.tls.NextProtos = []string{"http/1.1"} // WebSocket upgrades need HTTP/1.1
	}
	page := opt.Page
	if page == nil {
		page = http.HandlerFunc(notBuilt)
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc(Path, s.serveWS)
	s.mux.Handle("/", page)
	s.http = &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: time.Duration(cfg.HeaderSecs) * time.Second,
		ReadTimeout:       time.Duration(cfg.ReadSecs) * time.Second,
		WriteTimeout:      time.Duration(cfg.ReadSecs) * time.Second,
		IdleTimeout:       time.Duration(cfg.IdleSecs) * time.Second,
		MaxHeaderBytes:    cfg.MaxHeaderKiB << 10,
		ErrorLog:          log.New(io.Discard, "", 0), // TLS noise from scanners
	}
	return s
}

// Handler is the front's HTTP handler: the page, and Path.
func (s *Server) Handler() http.Handler { return s.mux }

// Serve accepts HTTP (or HTTPS) on l until Close. It also pings the open
// connections.
func (s *Server) Serve(l net.Listener) error {
	s.gr.GoWith(pingLabels, s.pinger)
	l = &capListener{Listener: l, s: s, plain: s.tls == nil}
	if s.tls != nil {
		l = tls.NewListener(l, s.tls)
	}
	err := s.http.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops accepting and closes idle HTTP connections. Connections
// upgraded to WebSocket are sessions: the gate and the world close them.
func (s *Server) Close() error {
	s.once.Do(func() { close(s.stop) })
	err := s.http.Close()
	s.gr.Close() // a Serve still starting must not start its pinger while we wait
	_ = s.gr.Wait(context.Background())
	return err
}

var pingLabels = run.NewLabels("web", "ping")

// notBuilt is the page while the binary carries no web client.
func notBuilt(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	fmt.Fprint(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zonemud</title></head>
<body><h1>zonemud</h1>
<p>The web client is not built into this binary yet. Play with telnet or SSH
(the server's log says where), or point a WebSocket client at <code>/ws</code>
with the subprotocol <code>gmcp.mudstandards.org</code> or
<code>telnet.mudstandards.org</code>.</p>
</body></html>
`)
}

// wantsUpgrade reports whether r asks for a WebSocket.
func wantsUpgrade(r *http.Request) bool {
	return headerHas(r.Header, "Connection", "upgrade") && headerHas(r.Header, "Upgrade", "websocket")
}

func headerHas(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// offered reports whether the client offers one of the subprotocols.
func offered(r *http.Request) bool {
	return headerHas(r.Header, "Sec-WebSocket-Protocol", ProtoGMCP) || headerHas(r.Header, "Sec-WebSocket-Protocol", ProtoTelnet)
}

// serveWS upgrades a request to a session: refused before the upgrade if
// it is not one, offers neither subprotocol, or the gate will not admit
// its address; refused by the upgrade if its Origin is not allowed.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !wantsUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "This is the game's WebSocket endpoint; open / in a browser to play.", http.StatusUpgradeRequired)
		return
	}
	if !offered(r) {
		http.Error(w, "Ask for the WebSocket subprotocol "+ProtoGMCP+" (text and GMCP) or "+ProtoTelnet+" (a telnet stream).", http.StatusBadRequest)
		return
	}
	remote := s.remoteAddr(r)
	if wait := s.upgrades.take(s.g.AddressKey(remote)); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int((wait+time.Second-1)/time.Second)))
		http.Error(w, "Too many connections from your address in a short time; please wait a little and try again.", http.StatusTooManyRequests)
		s.log.Debug("web: an upgrade past the address's rate was refused", logev.ID(5002), logev.Remote(remote.String()))
		return
	}
	if why := s.g.Admit(remote); why != "" {
		http.Error(w, why, http.StatusServiceUnavailable)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:   []string{ProtoGMCP, ProtoTelnet},
		OriginPatterns: s.cfg.Origins,
	})
	if err != nil {
		// Accept answered already: 403 for a foreign Origin.
		s.log.Debug("web: an upgrade was refused", logev.ID(5001), logev.Remote(remote.String()), "origin", r.Header.Get("Origin"), "err", err)
		s.g.Release(remote)
		return
	}
	limit := int64(s.cfg.MaxMessageKiB) << 10
	s.track(c)
	switch c.Subprotocol() {
	case ProtoGMCP:
		c.SetReadLimit(limit)
		s.g.ServeWeb(gate.WebLogin{Socket: &socket{c: c, srv: s}, Remote: remote})
	default: // ProtoTelnet: offered() and Accept leave no other
		nc := websocket.NetConn(context.Background(), c, websocket.MessageBinary)
		c.SetReadLimit(limit) // NetConn lifts it
		s.g.ServeWebTelnet(&telnetStream{Conn: nc, c: c, remote: remote, srv: s})
	}
}

// remoteAddr is the player's address: the peer's, or behind a proxy on
// this machine the one the proxy says (ProxyHeader).
func (s *Server) remoteAddr(r *http.Request) net.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return &net.TCPAddr{}
	}
	addr := net.TCPAddrFromAddrPort(peer)
	if s.cfg.ProxyHeader == "" || !peer.Addr().Unmap().IsLoopback() {
		return addr
	}
	v := r.Header.Values(s.cfg.ProxyHeader)
	if len(v) == 0 {
		return addr
	}
	// The proxy appends the address it saw last: anything before it
	// is what the client claimed.
	list := strings.Split(v[len(v)-1], ",")
	ip, err := netip.ParseAddr(strings.TrimSpace(list[len(list)-1]))
	if err != nil {
		return addr
	}
	return net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip.Unmap(), peer.Port()))
}

func (s *Server) track(c *websocket.Conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) untrack(c *websocket.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Conns is how many WebSocket connections are open.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// pinger pings every open connection each PingSecs, each ping on a
// goroutine of its own for as long as it waits; one unanswered by the
// next round is closed. A client's pong is read by the session's reader,
// which always waits in a read.
func (s *Server) pinger() {
	every := time.Duration(s.cfg.PingSecs) * time.Second
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		list := make([]*websocket.Conn, 0, len(s.conns))
		for c := range s.conns {
			list = append(list, c)
		}
		s.mu.Unlock()
		for _, c := range list {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), every)
				defer cancel()
				if err := c.Ping(ctx); err != nil {
					_ = c.CloseNow()
				}
			}()
		}
	}
}

// socket is a gmcp.mudstandards.org connection as the gate reads it.
type socket struct {
	c   *websocket.Conn
	srv *Server
}

func (k *socket) Read(ctx context.Context) (bool, []byte, error) {
	typ, p, err := k.c.Read(ctx)
	return typ == websocket.MessageBinary, p, err
}

func (k *socket) Write(ctx context.Context, binary bool, p []byte) error {
	typ := websocket.MessageText
	if binary {
		typ = websocket.MessageBinary
	}
	return k.c.Write(ctx, typ, p)
}

func (k *socket) Close(clean bool) error {
	k.srv.untrack(k.c)
	if clean {
		return k.c.Close(websocket.StatusNormalClosure, "")
	}
	return k.c.CloseNow()
}

// telnetStream is a telnet.mudstandards.org connection: the telnet stream
// as a net.Conn, with the player's address.
type telnetStream struct {
	net.Conn
	c      *websocket.Conn
	remote net.Addr
	srv    *Server
}

func (t *telnetStream) RemoteAddr() net.Addr { return t.remote }

func (t *telnetStream) Close() error {
	t.srv.untrack(t.c)
	return t.Conn.Close()
}
