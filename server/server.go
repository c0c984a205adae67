// Package server wires a running zonemud together: the store, the content,
// the world and its zones, the gate and its listeners, and the admin HTTP
// endpoint. main and the end-to-end tests start a server the same way,
// through Start.
package server

import (
	"cmp"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/internal/run"
	"zonemud/net/gate"
	"zonemud/net/sshd"
	"zonemud/net/web"
	"zonemud/net/web/page"
	"zonemud/server/config"
	"zonemud/store"
	"zonemud/world"
)

// Options are what Start needs beyond the configuration.
type Options struct {
	// Areas is the content to use when the areas folder of the config does
	// not exist (the binary's embedded starter world). Nil means the folder
	// must exist.
	Areas fs.FS
	Log   *slog.Logger
	// BeforeDrain, if set, is called by Shutdown once /readyz answers
	// that the server is draining and before anything stops (tests).
	BeforeDrain func()
	// Now, if set, is the clock the admin address's rate limits read
	// (tests stop it); nil is time.Now.
	Now func() time.Time
	// Page serves the web client at web_addr (everything but its
	// WebSocket endpoint); nil serves the built-in one (net/web/page).
	Page http.Handler
	// Copyover, set when a copyover holder started this game, is what the
	// holder says about itself, for /metrics.
	Copyover *CopyoverStats
	// Build names this binary in stat, /metrics and to a holder, as
	// `zonemud version` does (the release's stamped version and commit);
	// "" reads the module's build information.
	Build string
}

// CopyoverStats is what a copyover holder tells the game it starts: its
// counts so far and its build.
type CopyoverStats struct {
	Swaps    int    // reboots into a new game that linked
	Restarts int    // games started again after a crash
	Lost     int    // players in a character before a swap and not after
	Holder   string // the holder's version and commit
	// TelnetPort and TLSPort are the ports the holder listens on for
	// telnet and telnet over TLS ("" when off), for MSSP: the game binds
	// neither.
	TelnetPort, TLSPort string
}

// Server is a running zonemud.
type Server struct {
	cfg   *config.Config
	build string // this binary's version and commit (Options.Build)
	log   *slog.Logger
	db    *store.DB
	world *world.World
	gate  *gate.Gate

	telnetL net.Listener
	sshL    net.Listener
	ssh     *sshd.Server
	tlsL    net.Listener
	tlsCfg  *tls.Config
	httpL   net.Listener
	httpS   *http.Server
	webL    net.Listener
	web     *web.Server

	registry    *prometheus.Registry // immutable after Start: every figure /metrics serves
	serving     atomic.Bool          // the listeners are up
	draining    atomic.Bool          // Shutdown has begun
	beforeDrain func()               // immutable after Start: Options.BeforeDrain
	stopReq     chan bool            // an admin's countdown ended: true to reboot
	swapped     chan struct{}        // closed when a holder's Swap let every session go
	linkDone    chan struct{}        // closed when the link to a holder has ended; nil without one
	linkMu      sync.Mutex
	link        net.Conn // guarded by linkMu: the link to a holder, if any

	gr   run.Group
	once sync.Once
}

// Areas is where the content comes from.
type Areas struct {
	FS fs.FS
	// Dir is the folder on disk; "" for the built-in starter world,
	// which has no files to edit, watch or reload.
	Dir string
	// From names it for logs and messages: the folder, or "built-in".
	From string
}

// FindAreas picks the areas folder named in the config, or the fallback
// when that folder does not exist and no config file named it.
func FindAreas(cfg *config.Config, fallback fs.FS, log *slog.Logger) (Areas, error) {
	dir := cfg.Server.AreasDir
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return Areas{FS: os.DirFS(dir), Dir: dir, From: dir}, nil
	case err == nil:
		return Areas{}, fmt.Errorf("server: areas_dir %s exists but is not a folder", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return Areas{}, fmt.Errorf("server: areas_dir: %w", err)
	}
	if fallback == nil {
		return Areas{}, fmt.Errorf("server: areas folder %s does not exist", dir)
	}
	if cfg.AreasDirSet {
		// The admin named this folder: serving the built-in world instead
		// would hide the mistake.
		return Areas{}, fmt.Errorf("server: areas_dir %s, named in %s, does not exist", dir, cfg.File)
	}
	if log != nil {
		log.Info("server: no areas folder; serving the built-in starter world (run `zonemud init` to get editable files)", logev.ID(1101), "areas_dir", dir)
	}
	return Areas{FS: fallback, From: "built-in"}, nil
}

// Start opens the store, loads content, starts the world and begins
// listening. On error, whatever was started is stopped again.
func Start(cfg *config.Config, opt Options) (srv *Server, err error) {
	lg := opt.Log
	if lg == nil {
		lg = slog.Default()
	}
	s := &Server{cfg: cfg, log: lg, beforeDrain: opt.BeforeDrain, stopReq: make(chan bool, 1), swapped: make(chan struct{}),
		build: cmp.Or(opt.Build, build())}
	if cfg.Server.ProfileLocks {
		// One contended lock in five, and every wait of 100 µs or more.
		runtime.SetMutexProfileFraction(5)
		runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	}
	defer func() {
		if err != nil {
			s.abort()
		}
	}()
	areas, err := FindAreas(cfg, opt.Areas, lg)
	if err != nil {
		return nil, err
	}
	files := new(content.Cache) // kept for reloads
	set, err := content.LoadCached(areas.FS, files)
	if err != nil {
		return nil, err
	}
	lg.Info("server: content loaded", logev.ID(1102), "from", areas.From, "zones", len(set.Zones), "rooms", len(set.Rooms), "mobs", len(set.Mobs), "items", len(set.Items))
	// Every address is bound before anything is written: a port in use
	// stops start-up before the store is touched.
	if err := s.listen(); err != nil {
		return nil, err
	}
	backups := filepath.Join(cfg.Server.DataDir, "backups")
	if err := s.openStore(backups); err != nil {
		return nil, err
	}
	if err := s.newWorld(set, areas, files, backups, opt.Copyover); err != nil {
		return nil, err
	}
	if err := s.newFronts(opt.Copyover); err != nil {
		return nil, err
	}
	s.world.Start()
	s.serveTelnet()
	s.serveSSH()
	s.serveTLS()
	s.serveHTTP(opt.Now)
	s.serveWeb(opt.Page)
	if cfg.Server.HolderSocket != "" {
		s.linkDone = make(chan struct{})
		s.serveHolder(cfg.Server.HolderSocket, lg)
	}
	s.serving.Store(true)
	return s, nil
}

// openStore opens the database and logs what opening it found.
func (s *Server) openStore(backups string) error {
	cfg, lg := s.cfg, s.log
	path := filepath.Join(cfg.Server.DataDir, cfg.Store.File)
	opened := time.Now()
	var err error
	s.db, err = store.Open(path, cfg.Store)
	if err != nil {
		return withNewestBackup(err, backups)
	}
	if s.db.Fresh() {
		lg.Info("server: there was no database file, so a new, empty one was made", logev.ID(1103), "path", path)
	}
	for _, n := range s.db.Notes() {
		lg.Warn("server: store: "+n, logev.ID(1104), "path", path)
	}
	for _, m := range s.db.Migrations() {
		lg.Info("server: store: "+m, logev.ID(1105), "path", path)
	}
	lg.Info("server: store open", logev.ID(1106), "path", path, "boot", s.db.Boot(), "bytes", s.db.Size(),
		"check_on_open", cfg.Store.CheckOnOpen, "took", time.Since(opened).Round(time.Millisecond))
	return nil
}

// newWorld makes the world over the content and the store, the gate in
// front of it, and the metrics registry both report to (with the copyover
// holder's figures, when one started this game).
func (s *Server) newWorld(set *content.Set, areas Areas, files *content.Cache, backups string, copyover *CopyoverStats) error {
	cfg, lg := s.cfg, s.log
	wcfg := cfg.World
	wcfg.Lua = cfg.Lua
	wcfg.Instance = cfg.Instance
	wcfg.BackupDir = backups
	wcfg.BackupEvery, wcfg.BackupKeep = cfg.Store.BackupInterval(), cfg.Store.BackupKeep
	wcfg.Copyover = copyover != nil
	wcfg.Builds = "game " + s.build
	if copyover != nil {
		wcfg.Builds += "; holder " + copyover.Holder
	}
	if areas.Dir != "" {
		wcfg.Areas, wcfg.AreasDir, wcfg.Files = areas.FS, areas.Dir, files
	}
	zcfg := cfg.Zone
	if s.sshL != nil {
		_, zcfg.SSHPort, _ = net.SplitHostPort(s.sshL.Addr().String())
	}
	var err error
	s.world, err = world.New(set, s.db, wcfg, zcfg, lg)
	if err != nil {
		return err
	}
	s.gate = gate.New(s.world, cfg.Gate, lg)
	s.world.SetOps(ops{s})
	s.registry = prometheus.NewRegistry()
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := s.world.Register(s.registry); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if err := s.gate.Register(s.registry); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if err := registerCopyover(s.registry, s.gate, copyover, s.build); err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	return nil
}

// newFronts makes what the fronts need before they serve: the SSH server,
// the TLS configuration, and the MSSP answers (the holder's ports under
// copyover, when one started this game).
func (s *Server) newFronts(copyover *CopyoverStats) error {
	cfg, lg := s.cfg, s.log
	if s.sshL != nil {
		var err error
		s.ssh, err = sshd.New(s.gate, cfg.Server.DataDir, cfg.SSH, lg)
		if err != nil {
			return err
		}
	}
	if cfg.Server.TLSAddr != "" || (s.webL != nil && cfg.Web.TLS) {
		var err error
		s.tlsCfg, err = tlsConfig(cfg.Server.TLSCert, cfg.Server.TLSKey, cfg.Server.DataDir, cfg.Server.Hostname, lg)
		if err != nil {
			return err
		}
	}
	mssp := map[string][]string{}
	if s.telnetL != nil {
		_, port, _ := net.SplitHostPort(s.telnetL.Addr().String())
		mssp["PORT"] = []string{port}
	}
	if s.tlsL != nil {
		_, port, _ := net.SplitHostPort(s.tlsL.Addr().String())
		mssp["SSL"] = []string{port}
	}
	if st := copyover; st != nil {
		if st.TelnetPort != "" {
			mssp["PORT"] = []string{st.TelnetPort}
		}
		if st.TLSPort != "" {
			mssp["SSL"] = []string{st.TLSPort}
		}
	}
	if cfg.Server.Hostname != "" {
		mssp["HOSTNAME"] = []string{cfg.Server.Hostname}
	}
	if cfg.Server.Contact != "" {
		mssp["CONTACT"] = []string{cfg.Server.Contact}
	}
	if cfg.Server.Website != "" {
		mssp["WEBSITE"] = []string{cfg.Server.Website}
	}
	s.gate.SetMSSP(mssp)
	return nil
}

// serveTelnet serves the telnet front, if it is on.
func (s *Server) serveTelnet() {
	if s.telnetL == nil {
		return
	}
	lg := s.log
	s.gr.Go(context.Background(), func(context.Context) {
		if err := s.gate.ServeTelnet(s.telnetL); err != nil {
			lg.Error("server: a listener stopped", logev.ID(1107), "listener", "telnet", "err", err)
		}
	}, "server", "accept", "listener", "telnet")
	lg.Info("server: listening", logev.ID(1108), "listener", "telnet", "addr", s.telnetL.Addr().String())
}

// serveSSH serves the SSH front, if it is on.
func (s *Server) serveSSH() {
	if s.sshL == nil {
		return
	}
	lg := s.log
	s.gr.Go(context.Background(), func(context.Context) {
		if err := s.ssh.Serve(s.sshL); err != nil {
			lg.Error("server: a listener stopped", logev.ID(1107), "listener", "ssh", "err", err)
		}
	}, "server", "accept", "listener", "ssh")
	lg.Info("server: listening", logev.ID(1108), "listener", "ssh", "addr", s.sshL.Addr().String(), "host_key", gossh.FingerprintSHA256(s.ssh.HostKey()))
}

// serveTLS serves telnet over TLS, if it is on.
func (s *Server) serveTLS() {
	if s.tlsL == nil {
		return
	}
	lg := s.log
	plainPort := ""
	if s.telnetL != nil {
		_, plainPort, _ = net.SplitHostPort(s.telnetL.Addr().String())
	}
	s.gr.Go(context.Background(), func(context.Context) {
		if err := s.gate.ServeTelnetTLS(s.tlsL, s.tlsCfg, plainPort); err != nil {
			lg.Error("server: a listener stopped", logev.ID(1107), "listener", "tls", "err", err)
		}
	}, "server", "accept", "listener", "tls")
	lg.Info("server: listening", logev.ID(1108), "listener", "tls", "addr", s.tlsL.Addr().String())
}

// serveHTTP serves the admin endpoint, if it is on; now is its clock
// (time.Now when nil).
func (s *Server) serveHTTP(now func() time.Time) {
	if s.httpL == nil {
		return
	}
	cfg, lg := s.cfg, s.log
	if now == nil {
		now = time.Now
	}
	var h http.Handler = s.adminMux(now)
	if cfg.Server.AdminToken != "" {
		h = requireToken(cfg.Server.AdminToken, h)
	}
	h = requireHost(allowedHosts(cfg.Server.HTTPAddr, cfg.Server.Hostname, s.httpL.Addr()), h)
	s.httpS = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	s.gr.Go(context.Background(), func(context.Context) {
		if err := s.httpS.Serve(s.httpL); err != nil && !errors.Is(err, http.ErrServerClosed) {
			lg.Error("server: a listener stopped", logev.ID(1107), "listener", "http", "err", err)
		}
	}, "server", "accept", "listener", "http")
	lg.Info("server: listening", logev.ID(1108), "listener", "http", "addr", s.httpL.Addr().String(), "token", cfg.Server.AdminToken != "", "pprof", cfg.Server.Pprof)
}

// serveWeb serves the web client, if it is on, with pg as its page
// (the built-in one when nil).
func (s *Server) serveWeb(pg http.Handler) {
	// A resume token outlives its dropped page by the link-dead window,
	// here or behind a copyover holder that serves the page.
	s.gate.SetLinkDead(time.Duration(s.cfg.Zone.LinkDeadSecs) * time.Second)
	if s.webL == nil {
		return
	}
	cfg, lg := s.cfg, s.log
	wopt := web.Options{Page: pg, Log: lg}
	if wopt.Page == nil {
		wopt.Page = page.Handler()
	}
	if cfg.Web.TLS {
		wopt.TLS = s.tlsCfg
	}
	s.web = web.New(s.gate, cfg.Web, wopt)
	s.gr.Go(context.Background(), func(context.Context) {
		if err := s.web.Serve(s.webL); err != nil {
			lg.Error("server: a listener stopped", logev.ID(1107), "listener", "web", "err", err)
		}
	}, "server", "accept", "listener", "web")
	lg.Info("server: listening; open the url in a browser to play", logev.ID(1108), "listener", "web", "addr", s.webL.Addr().String(), "url", s.WebURL())
}

// WebURL is the address to open in a browser to play, "" if the web
// front is off.
func (s *Server) WebURL() string {
	if s.webL == nil {
		return ""
	}
	return WebURL(s.cfg, s.webL.Addr())
}

// WebURL is the address to open in a browser to play for a web front
// listening at addr: a wildcard listen address is shown as the hostname
// (or 127.0.0.1). The copyover holder, which listens itself, says it too.
func WebURL(cfg *config.Config, addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
		if cfg.Server.Hostname != "" {
			host = cfg.Server.Hostname
		}
	}
	scheme := "http"
	if cfg.Web.TLS {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/"
}

// WebAddr is where the web front listens, "" if off.
func (s *Server) WebAddr() string {
	if s.webL == nil {
		return ""
	}
	return s.webL.Addr().String()
}

// withNewestBackup adds to the refusal of a database file where the newest
// backup is, the first thing an admin will look for.
func withNewestBackup(err error, dir string) error {
	if !errors.As(err, new(*store.Refusal)) {
		return err
	}
	found, _ := filepath.Glob(filepath.Join(dir, "zonemud-*.db"))
	newest, at := "", time.Time{}
	for _, f := range found {
		if fi, serr := os.Stat(f); serr == nil && fi.ModTime().After(at) {
			newest, at = f, fi.ModTime()
		}
	}
	if newest == "" {
		return err
	}
	return fmt.Errorf("%w (the newest backup is %s; zonemud restore puts it in place)", err, newest)
}

// listen binds every configured address.
func (s *Server) listen() error {
	var err error
	for _, l := range []struct {
		what string
		addr string
		into *net.Listener
	}{
		{"telnet", s.cfg.Server.TelnetAddr, &s.telnetL},
		{"ssh", s.cfg.Server.SSHAddr, &s.sshL},
		{"TLS", s.cfg.Server.TLSAddr, &s.tlsL},
		{"http", s.cfg.Server.HTTPAddr, &s.httpL},
		{"web", s.cfg.Server.WebAddr, &s.webL},
	} {
		if l.addr == "" {
			continue
		}
		if *l.into, err = net.Listen("tcp", l.addr); err != nil {
			return fmt.Errorf("server: %s listen: %w", l.what, err)
		}
	}
	if s.httpL != nil {
		// Checked again on the address bound, whatever the name resolved to.
		if a, ok := s.httpL.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
			if !s.cfg.Server.HTTPPublic || s.cfg.Server.AdminToken == "" {
				return fmt.Errorf("server: server.http_addr: %s is not a loopback address; set http_public = true and an admin_token to serve the admin endpoint there", s.httpL.Addr())
			}
		}
	}
	return nil
}

// abort undoes a partial Start.
func (s *Server) abort() {
	if s.telnetL != nil {
		s.telnetL.Close()
	}
	if s.tlsL != nil {
		s.tlsL.Close()
	}
	if s.sshL != nil {
		s.sshL.Close()
	}
	if s.httpL != nil {
		s.httpL.Close()
	}
	if s.webL != nil {
		s.webL.Close()
	}
	if s.db != nil {
		s.db.Close()
	}
}

// TelnetAddr is where the telnet listener listens, "" if off.
func (s *Server) TelnetAddr() string {
	if s.telnetL == nil {
		return ""
	}
	return s.telnetL.Addr().String()
}

// SSHAddr is where the SSH front listens, "" if off.
func (s *Server) SSHAddr() string {
	if s.sshL == nil {
		return ""
	}
	return s.sshL.Addr().String()
}

// SSHHostKey is the SSH host key, nil if SSH is off.
func (s *Server) SSHHostKey() gossh.PublicKey {
	if s.ssh == nil {
		return nil
	}
	return s.ssh.HostKey()
}

// TLSAddr is where telnet over TLS listens, "" if off.
func (s *Server) TLSAddr() string {
	if s.tlsL == nil {
		return ""
	}
	return s.tlsL.Addr().String()
}

// HTTPAddr is where the admin endpoint listens, "" if off.
func (s *Server) HTTPAddr() string {
	if s.httpL == nil {
		return ""
	}
	return s.httpL.Addr().String()
}

// World is the running world.
func (s *Server) World() *world.World { return s.world }

// Gate is the running gate.
func (s *Server) Gate() *gate.Gate { return s.gate }

// Store is the open store.
func (s *Server) Store() *store.DB { return s.db }

// Shutdown stops accepting connections, tells every player, stops every
// zone (each saves its characters), writes everything, and closes the
// store. It returns once all of that is done or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.once.Do(func() {
		start := time.Now()
		s.draining.Store(true)
		if s.beforeDrain != nil {
			s.beforeDrain()
		}
		errs := []error{s.gate.Shutdown(ctx)}
		s.closeLink()
		if s.web != nil {
			errs = append(errs, s.web.Close())
		}
		errs = append(errs, s.world.Shutdown(ctx), s.gate.Wait(ctx))
		if s.ssh != nil {
			errs = append(errs, s.ssh.Shutdown(ctx))
		}
		if s.httpS != nil {
			errs = append(errs, s.httpS.Shutdown(ctx))
		}
		errs = append(errs, s.gr.Wait(ctx))
		errs = append(errs, s.db.Close())
		err = errors.Join(errs...)
		s.log.Info("server: stopped", logev.ID(1109), "took", time.Since(start).Round(time.Millisecond), "err", err)
	})
	return err
}

// serveHolder links the game to the holder at path and serves the
// sessions it attaches, on a goroutine, until the link ends.
func (s *Server) serveHolder(path string, lg *slog.Logger) {
	s.gr.Go(context.Background(), func(context.Context) {
		defer close(s.linkDone)
		c, err := gate.DialHolder(path, 10*time.Second)
		if err != nil {
			lg.Error("server: the holder cannot be reached", logev.ID(1120), "socket", path, "err", err)
			return
		}
		s.linkMu.Lock()
		if s.draining.Load() {
			s.linkMu.Unlock()
			_ = c.Close()
			return
		}
		s.link = c
		s.linkMu.Unlock()
		swapped, err := s.gate.ServeLink(c, s.build)
		if err != nil {
			lg.Warn("server: the holder's link ended", logev.ID(1121), "err", err)
		}
		if swapped {
			close(s.swapped)
		}
	}, "server", "link", "to", "holder")
}

// registerCopyover adds the copyover figures: the holder's counts as it
// passed them, the sessions this game took over from a holder, and the
// versions of both processes.
func registerCopyover(reg *prometheus.Registry, g *gate.Gate, st *CopyoverStats, game string) error {
	holder := ""
	if st != nil {
		holder = st.Holder
	}
	cs := []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "copyover_reattached_total",
			Help: "Sessions a copyover holder attached to this game already in their character (after a reboot or a crash restart), put back without a login.",
		}, func() float64 { return float64(g.Reattached()) }),
		prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "zonemud", Name: "build_info",
			Help:        "Always 1; the labels are this game's build and, under copyover, the holder's.",
			ConstLabels: prometheus.Labels{"game": game, "holder": holder},
		}),
	}
	cs[1].(prometheus.Gauge).Set(1)
	if st != nil {
		for _, f := range []struct {
			name, help string
			v          int
		}{
			{"copyover_reboots", "Reboots into a new game the holder has made since it started (the game restarts, so the holder counts).", st.Swaps},
			{"copyover_restarts", "Games the holder started again after one died, since it started.", st.Restarts},
			{"copyover_sessions_lost", "Players in a character before a reboot who were not back in one after it, since the holder started.", st.Lost},
		} {
			gg := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "zonemud", Name: f.name, Help: f.help})
			gg.Set(float64(f.v))
			cs = append(cs, gg)
		}
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// build names this binary when Options.Build is empty (tests that start a
// server in process): its module version and, when known, the revision it
// was built from.
func build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "zonemud"
	}
	b := "zonemud " + bi.Main.Version
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" {
			b += " " + st.Value[:min(12, len(st.Value))]
		}
	}
	return b
}

// closeLink ends the link to a holder, if there is one: the holder keeps
// the players for the next game.
func (s *Server) closeLink() {
	s.linkMu.Lock()
	defer s.linkMu.Unlock()
	if s.link != nil {
		_ = s.link.Close()
	}
}

// LinkEnded is closed once the link to the holder has ended (or could not
// be made); nil, which never delivers, when the server has no holder.
func (s *Server) LinkEnded() <-chan struct{} { return s.linkDone }

// Swapped is closed once a holder's Swap has let every session go: the
// game is to stop, and the next one takes the players.
func (s *Server) Swapped() <-chan struct{} { return s.swapped }

// StopRequested delivers an admin's request to stop the server, once a
// shutdown or reboot countdown has ended: true asks for a reboot. The
// process (main) then calls Shutdown, and for a reboot starts again.
func (s *Server) StopRequested() <-chan bool { return s.stopReq }

// ops are the process's operations the world's admin commands use.
type ops struct{ s *Server }

func (o ops) Sessions() []world.SessionInfo { return o.s.gate.Sessions() }
func (o ops) Kick(match func(world.SessionInfo) bool, line string) int {
	return o.s.gate.Kick(match, line)
}
func (o ops) Stop(reboot bool) {
	select {
	case o.s.stopReq <- reboot:
	default: // one request is enough
	}
}

// requireToken lets through only requests that carry the admin token as
// "Authorization: Bearer TOKEN". Once a token is configured every request
// needs it, wherever it comes from: a proxy on this machine makes every
// request look local.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="zonemud admin"`)
			http.Error(w, "this admin endpoint needs the admin token (Authorization: Bearer ...)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// adminMux serves health, readiness, metrics, backups, saves and (with
// pprof = true) profiles on the admin address: on loopback, or behind the
// admin token (requireToken).
func (s *Server) adminMux(now func() time.Time) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "ok\nplayers %d\nconnections %d\n", s.world.Players(), s.gate.Connections())
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if why := s.notReady(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	saves := rate.NewLimiter(rate.Every(adminEvery), adminBurst)
	mux.Handle("POST /save", sameOrigin(limited(saves, now, "saves", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		s.log.Info("server: a save was asked over http", logev.ID(1203), "remote", r.RemoteAddr, "user_agent", r.UserAgent())
		if err := s.world.SaveAll(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "saved")
	}))))
	backups := rate.NewLimiter(rate.Every(adminEvery), adminBurst)
	mux.Handle("GET /backup", sameOrigin(limited(backups, now, "backups", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Who took every password hash is worth a line in the log.
		s.log.Info("server: a backup was taken over http", logev.ID(1204), "remote", r.RemoteAddr, "user_agent", r.UserAgent(), "forwarded_for", r.Header.Get("X-Forwarded-For"))
		// Everyone's latest goes in: checkpoint first, then copy.
		if err := s.world.SaveAll(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="zonemud-backup.db"`)
		w.Header().Set("Content-Length", strconv.FormatInt(s.db.Size(), 10))
		if _, err := s.db.Backup(w); err != nil {
			s.log.Error("server: backup over http failed", logev.ID(1201), "err", err)
		}
	}))))
	mux.Handle("GET /metrics", s.metricsHandler())
	if s.cfg.Server.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// notReady says why the server should not be sent players now, or "" if
// it is ready: the store open, the listeners up, no shutdown or reboot
// counting down, and not draining. A countdown ends in a stop, so a load
// balancer stops sending new players from its start.
func (s *Server) notReady() string {
	switch {
	case s.draining.Load():
		return "draining: the server is shutting down"
	case s.world != nil && s.world.CountingDown():
		return "counting down: a shutdown or reboot is under way"
	case !s.serving.Load():
		return "starting: the listeners are not up yet"
	}
	return ""
}

// Scrapes of /metrics are limited so that a scraper gone wrong cannot
// take the zones' CPU: at most maxScrapes a second (a burst of as many),
// two at a time, each written within scrapeWriteTimeout.
const (
	maxScrapes         = 10
	scrapesInFlight    = 2
	scrapeWriteTimeout = 10 * time.Second
)

// metricsHandler serves the registry in the Prometheus formats, under the
// scrape limits: a scrape past the rate gets 429 at once, past the
// requests in flight 503, and a scraper that stops reading is cut off
// after the write timeout.
func (s *Server) metricsHandler() http.Handler {
	inner := promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{
		MaxRequestsInFlight: scrapesInFlight,
		ErrorHandling:       promhttp.ContinueOnError,
		ErrorLog:            promLog{s.log},
	})
	lim := rate.NewLimiter(maxScrapes, maxScrapes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !lim.Allow() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many scrapes; at most 10 a second", http.StatusTooManyRequests)
			return
		}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(scrapeWriteTimeout))
		inner.ServeHTTP(w, r)
	})
}

// promLog logs what the metrics handler reports: a collector that failed.
type promLog struct{ log *slog.Logger }

func (l promLog) Println(v ...any) {
	l.log.Warn("server: metrics: "+fmt.Sprint(v...), logev.ID(1202))
}
