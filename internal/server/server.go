// Package server wires a running zonemud together: the store, the content,
// the world and its zones, the gate and its listeners, and the admin HTTP
// endpoint. main and the end-to-end tests start a server the same way,
// through Start.
package server

import (
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
	"sort"
	"strconv"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/config"
	"zonemud/net/gate"
	"zonemud/net/sshd"
	"zonemud/store"
	"zonemud/world"
	"zonemud/world/content"
	"zonemud/zone"
)

// Options are what Start needs beyond the configuration.
type Options struct {
	// Areas is the content to use when the areas folder of the config does
	// not exist (the binary's embedded starter world). Nil means the folder
	// must exist.
	Areas fs.FS
	Log   *slog.Logger
}

// Server is a running zonemud.
type Server struct {
	cfg   *config.Config
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

	wg   sync.WaitGroup
	once sync.Once
}

// LoadContent reads the areas folder named in the config, or the fallback
// when that folder does not exist and no config file named it.
func LoadContent(cfg *config.Config, fallback fs.FS, log *slog.Logger) (*content.Set, string, error) {
	dir := cfg.Server.AreasDir
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		set, err := content.Load(os.DirFS(dir))
		return set, dir, err
	case err == nil:
		return nil, dir, fmt.Errorf("server: areas_dir %s exists but is not a folder", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, dir, fmt.Errorf("server: areas_dir: %w", err)
	}
	if fallback == nil {
		return nil, dir, fmt.Errorf("server: areas folder %s does not exist", dir)
	}
	if cfg.AreasDirSet {
		// The admin named this folder: serving the built-in world instead
		// would hide the mistake.
		return nil, dir, fmt.Errorf("server: areas_dir %s, named in %s, does not exist", dir, cfg.File)
	}
	if log != nil {
		log.Info("server: no areas folder; serving the built-in starter world (run `zonemud init` to get editable files)", "areas_dir", dir)
	}
	set, err := content.Load(fallback)
	return set, "built-in", err
}

// Start opens the store, loads content, starts the world and begins
// listening. On error, whatever was started is stopped again.
func Start(cfg *config.Config, opt Options) (srv *Server, err error) {
	lg := opt.Log
	if lg == nil {
		lg = slog.Default()
	}
	s := &Server{cfg: cfg, log: lg}
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
	set, from, err := LoadContent(cfg, opt.Areas, lg)
	if err != nil {
		return nil, err
	}
	lg.Info("server: content loaded", "from", from, "zones", len(set.Zones), "rooms", len(set.Rooms), "mobs", len(set.Mobs), "items", len(set.Items))
	// Every address is bound before anything is written: a port in use
	// stops start-up before the store is touched.
	if err := s.listen(); err != nil {
		return nil, err
	}
	path := filepath.Join(cfg.Server.DataDir, cfg.Store.File)
	backups := filepath.Join(cfg.Server.DataDir, "backups")
	opened := time.Now()
	s.db, err = store.Open(path, cfg.Store)
	if err != nil {
		return nil, withNewestBackup(err, backups)
	}
	if s.db.Fresh() {
		lg.Info("server: there was no database file, so a new, empty one was made", "path", path)
	}
	for _, n := range s.db.Notes() {
		lg.Warn("server: store: "+n, "path", path)
	}
	for _, m := range s.db.Migrations() {
		lg.Info("server: store: "+m, "path", path)
	}
	lg.Info("server: store open", "path", path, "boot", s.db.Boot(), "bytes", s.db.Size(),
		"check_on_open", cfg.Store.CheckOnOpen, "took", time.Since(opened).Round(time.Millisecond))
	wcfg := cfg.World
	wcfg.Lua = cfg.Lua
	wcfg.BackupDir = backups
	zcfg := cfg.Zone
	if s.sshL != nil {
		_, zcfg.SSHPort, _ = net.SplitHostPort(s.sshL.Addr().String())
	}
	s.world, err = world.New(set, s.db, wcfg, zcfg, lg)
	if err != nil {
		return nil, err
	}
	s.gate = gate.New(s.world, cfg.Gate, lg)
	if s.sshL != nil {
		s.ssh, err = sshd.New(s.gate, cfg.Server.DataDir, cfg.SSH, lg)
		if err != nil {
			return nil, err
		}
	}
	if cfg.Server.TLSAddr != "" {
		s.tlsCfg, err = tlsConfig(cfg.Server.TLSCert, cfg.Server.TLSKey, cfg.Server.DataDir, cfg.Server.Hostname, lg)
		if err != nil {
			return nil, err
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

	s.world.Start()
	if s.telnetL != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.gate.ServeTelnet(s.telnetL); err != nil {
				lg.Error("server: telnet listener stopped", "err", err)
			}
		}()
		lg.Info("server: telnet listening", "addr", s.telnetL.Addr().String())
	}
	if s.sshL != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.ssh.Serve(s.sshL); err != nil {
				lg.Error("server: ssh listener stopped", "err", err)
			}
		}()
		lg.Info("server: ssh listening", "addr", s.sshL.Addr().String(), "host_key", gossh.FingerprintSHA256(s.ssh.HostKey()))
	}
	if s.tlsL != nil {
		plainPort := ""
		if s.telnetL != nil {
			_, plainPort, _ = net.SplitHostPort(s.telnetL.Addr().String())
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.gate.ServeTelnetTLS(s.tlsL, s.tlsCfg, plainPort); err != nil {
				lg.Error("server: TLS listener stopped", "err", err)
			}
		}()
		lg.Info("server: telnet over TLS listening", "addr", s.tlsL.Addr().String())
	}
	if s.httpL != nil {
		var h http.Handler = s.adminMux()
		if cfg.Server.AdminToken != "" {
			h = requireToken(cfg.Server.AdminToken, h)
		}
		s.httpS = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.httpS.Serve(s.httpL); err != nil && !errors.Is(err, http.ErrServerClosed) {
				lg.Error("server: http listener stopped", "err", err)
			}
		}()
		lg.Info("server: admin http listening", "addr", s.httpL.Addr().String(), "token", cfg.Server.AdminToken != "")
	}
	return s, nil
}

// withNewestBackup adds to the refusal of a database file where the newest
// backup made in game is, the first thing an admin will look for.
func withNewestBackup(err error, dir string) error {
	if !errors.As(err, new(*store.Refusal)) {
		return err
	}
	found, _ := filepath.Glob(filepath.Join(dir, "zonemud-*.db"))
	if len(found) == 0 {
		return err
	}
	sort.Strings(found) // the names sort by the time they were made
	return fmt.Errorf("%w (the newest backup made in game is %s)", err, found[len(found)-1])
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
		errs := []error{s.gate.Shutdown(ctx), s.world.Shutdown(ctx), s.gate.Wait(ctx)}
		if s.ssh != nil {
			errs = append(errs, s.ssh.Shutdown(ctx))
		}
		if s.httpS != nil {
			errs = append(errs, s.httpS.Shutdown(ctx))
		}
		s.wg.Wait()
		errs = append(errs, s.db.Close())
		err = errors.Join(errs...)
		s.log.Info("server: stopped", "took", time.Since(start).Round(time.Millisecond), "err", err)
	})
	return err
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

// adminMux serves health, metrics, backups, saves and profiles on the
// admin address: on loopback, or behind the admin token (requireToken).
func (s *Server) adminMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "ok\nplayers %d\nconnections %d\n", s.world.Players(), s.gate.Connections())
	})
	mux.HandleFunc("POST /save", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := s.world.SaveAll(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "saved")
	})
	mux.HandleFunc("GET /backup", func(w http.ResponseWriter, r *http.Request) {
		// Everyone's latest goes in: checkpoint first, then copy.
		if err := s.world.SaveAll(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="zonemud-backup.db"`)
		w.Header().Set("Content-Length", strconv.FormatInt(s.db.Size(), 10))
		if _, err := s.db.Backup(w); err != nil {
			s.log.Error("server: backup over http failed", "err", err)
		}
	})
	mux.HandleFunc("GET /metrics", s.metrics)
	// Profiles for the admin.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// metrics writes the Prometheus text format. Zone figures are labelled
// by template: the copies of a template are summed into one series (an
// instance id as a label would be unbounded, player-driven cardinality).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintf(w, "# HELP zonemud_players Characters in the world, link-dead included.\n# TYPE zonemud_players gauge\nzonemud_players %d\n", s.world.Players())
	fmt.Fprintf(w, "# HELP zonemud_connections Open client connections.\n# TYPE zonemud_connections gauge\nzonemud_connections %d\n", s.gate.Connections())
	ls := s.gate.LoginStats()
	fmt.Fprintf(w, "# HELP zonemud_login_password_checks_total Passwords hashed to check a login.\n# TYPE zonemud_login_password_checks_total counter\nzonemud_login_password_checks_total %d\n", ls.PasswordChecks)
	fmt.Fprintf(w, "# HELP zonemud_login_refused_total Connections and login tries refused before any password was checked.\n# TYPE zonemud_login_refused_total counter\nzonemud_login_refused_total{why=\"address\"} %d\nzonemud_login_refused_total{why=\"account\"} %d\n", ls.RefusedAddress, ls.RefusedAccount)
	bursts, lines := s.gate.Output()
	fmt.Fprintf(w, "# HELP zonemud_output_bursts_total Bursts of output written to connections (one write each).\n# TYPE zonemud_output_bursts_total counter\nzonemud_output_bursts_total %d\n", bursts)
	fmt.Fprintf(w, "# HELP zonemud_output_lines_total Lines of text in those bursts.\n# TYPE zonemud_output_lines_total counter\nzonemud_output_lines_total %d\n", lines)
	type row struct {
		template                          string
		hosted, faults, pop, dormant      uint64
		late                              float64
		lateHist                          [len(zone.LatenessBounds) + 1]uint64
		batches, messages                 uint64
		lua                               bool
		mem, calls, errs, timeouts, offed uint64
		work, deferred, overruns          uint64
	}
	var rows []*row
	idx := map[string]*row{}
	for _, z := range s.world.Zones() {
		r := idx[z.Template()]
		if r == nil {
			r = &row{template: z.Template()}
			idx[r.template] = r
			rows = append(rows, r)
		}
		r.hosted++
		r.faults += z.Faults()
		r.pop += uint64(z.Population())
		r.late = max(r.late, z.PulseLateness().Seconds())
		for i, n := range z.PulseLatenessCounts() {
			r.lateHist[i] += n
		}
		b, m := z.Batches()
		r.batches += b
		r.messages += m
		if z.Dormant() {
			r.dormant++
		}
		if st, ok := z.ScriptStats(); ok {
			r.lua = true
			r.mem += uint64(st.MemBytes)
			r.calls += st.Calls
			r.errs += st.Errors
			r.timeouts += st.Timeouts
			r.offed += uint64(st.ScriptsOff)
			r.work += st.Work
			r.deferred += st.Deferred
			r.overruns += st.Overruns
		}
	}
	series := func(name, help, kind string, lua bool, val func(*row) string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
		for _, r := range rows {
			if !lua || r.lua {
				fmt.Fprintf(w, "%s{zone=%q}%s\n", name, r.template, val(r))
			}
		}
	}
	u := func(v uint64) string { return " " + strconv.FormatUint(v, 10) }
	series("zonemud_zones_hosted", "Zones hosted: 1 for a permanent zone, the live copies for an instanceable template.", "gauge", false, func(r *row) string { return u(r.hosted) })
	series("zonemud_zone_faults_total", "Recovered handler panics per zone.", "counter", false, func(r *row) string { return u(r.faults) })
	series("zonemud_zone_population", "Players per zone.", "gauge", false, func(r *row) string { return u(r.pop) })
	series("zonemud_zone_pulse_lateness_seconds", "Worst pulse lateness per zone since the last scrape.", "gauge", false, func(r *row) string { return " " + strconv.FormatFloat(r.late, 'g', -1, 64) })
	fmt.Fprintf(w, "# HELP zonemud_zone_pulse_lateness_hist_seconds How late each pulse was taken, per zone.\n# TYPE zonemud_zone_pulse_lateness_hist_seconds histogram\n")
	for _, r := range rows {
		for i, b := range zone.LatenessBounds {
			fmt.Fprintf(w, "zonemud_zone_pulse_lateness_hist_seconds_bucket{zone=%q,le=\"%g\"} %d\n", r.template, b.Seconds(), r.lateHist[i])
		}
		fmt.Fprintf(w, "zonemud_zone_pulse_lateness_hist_seconds_bucket{zone=%q,le=\"+Inf\"} %d\n", r.template, r.lateHist[len(r.lateHist)-1])
		fmt.Fprintf(w, "zonemud_zone_pulse_lateness_hist_seconds_count{zone=%q} %d\n", r.template, r.lateHist[len(r.lateHist)-1])
	}
	series("zonemud_zone_batches_total", "Inbox batches handled: messages handled together, then one flush.", "counter", false, func(r *row) string { return u(r.batches) })
	series("zonemud_zone_messages_total", "Messages handled in inbox batches.", "counter", false, func(r *row) string { return u(r.messages) })
	series("zonemud_zone_dormant", "Zones that have stopped ticking (nobody there, nothing due).", "gauge", false, func(r *row) string { return u(r.dormant) })
	series("zonemud_lua_memory_bytes", "Estimated memory of each zone's Lua VM.", "gauge", true, func(r *row) string { return u(r.mem) })
	series("zonemud_lua_calls_total", "Calls into Lua.", "counter", true, func(r *row) string { return u(r.calls) })
	fmt.Fprintf(w, "# HELP zonemud_lua_failures_total Script calls that raised an error or ran out of time.\n# TYPE zonemud_lua_failures_total counter\n")
	for _, r := range rows {
		if r.lua {
			fmt.Fprintf(w, "zonemud_lua_failures_total{zone=%q,kind=\"error\"} %d\n", r.template, r.errs)
			fmt.Fprintf(w, "zonemud_lua_failures_total{zone=%q,kind=\"timeout\"} %d\n", r.template, r.timeouts)
		}
	}
	series("zonemud_lua_scripts_off", "Scripts switched off by their breaker.", "gauge", true, func(r *row) string { return u(r.offed) })
	series("zonemud_lua_work_total", "Work of script calls: Lua instructions, and library work in the same units.", "counter", true, func(r *row) string { return u(r.work) })
	series("zonemud_lua_deferred_total", "on_tick triggers and mud.after timers put off to a later pulse: the zone's script budget for the pulse was spent.", "counter", true, func(r *row) string { return u(r.deferred) })
	series("zonemud_lua_budget_spent_total", "Pulses in which a zone's scripts spent their whole budget.", "counter", true, func(r *row) string { return u(r.overruns) })
	fmt.Fprintf(w, "# HELP zonemud_zone_leases_lost_total Zone leases that lapsed because the zone's goroutine stopped answering.\n# TYPE zonemud_zone_leases_lost_total counter\nzonemud_zone_leases_lost_total %d\n", s.world.LeasesLost())
	fmt.Fprintf(w, "# HELP zonemud_store_commits_total Committed store transactions.\n# TYPE zonemud_store_commits_total counter\nzonemud_store_commits_total %d\n", s.db.Commits())
	fmt.Fprintf(w, "# HELP zonemud_store_refused_total Saves refused (stale epoch, ledger conflict, or a zone lease released or superseded).\n# TYPE zonemud_store_refused_total counter\nzonemud_store_refused_total %d\n", s.db.Refused())
	fmt.Fprintf(w, "# HELP zonemud_store_bytes Database file size.\n# TYPE zonemud_store_bytes gauge\nzonemud_store_bytes %d\n", s.db.Size())
}
