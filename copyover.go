package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/logev"
	"zonemud/net/gate"
	"zonemud/net/sshd"
	"zonemud/net/web"
	"zonemud/net/web/page"
	"zonemud/server"
	"zonemud/server/config"
)

// Copyover's two processes ([server] copyover = true). `zonemud serve`
// becomes the holder: it listens for telnet, keeps every connection
// (net/gate/holder.go), and runs the game as its child, `zonemud game`,
// the same executable. The child serves the sessions the holder attaches
// over the link socket, and everything else as a one-process server does.
//
// A reboot (SIGHUP, `zonemud reboot`, the in-game `reboot`) goes:
//
//  1. copy the binary now on disk into data_dir/copyover/, so that what
//     runs is what was checked, whatever is installed over it meanwhile;
//  2. pre-flight: the binary must be an executable file; the copy must
//     name itself a zonemud (`version`), run `check` on the config and areas, then
//     `preflight`, a start with no listeners on a copy of the database the
//     old game writes on request (Snapshot): a binary that is not a
//     zonemud, panics at start, refuses the database or does not build the
//     world is refused here, and the old game goes on untouched; each run
//     is a process group of its own, killed when it exits, so a script
//     that starts a job leaves nothing behind;
//  3. Swap: the old game lets every session go, saves, closes the
//     database (bbolt's lock) and exits;
//  4. start the copy as the game; it must link within gameStartWait;
//  5. if it does not (it refused the database, panicked at start, exited),
//     the holder starts the copy of the binary that last linked again:
//     the old game is back, from the database the swap just saved, and
//     every player is put back in their character.
//
// The old game cannot keep running while the new one starts, because
// only one process may hold the database; the fallback of step 5 is the
// safe design that leaves. A crash (the child exits without a swap) is
// handled as step 5: the last good binary starts again, with a back-off
// if it keeps dying.

// Environment of the game child.
const (
	envHolderSocket  = "ZONEMUD_HOLDER_SOCKET"
	envHolderControl = "ZONEMUD_HOLDER_CONTROL"
	envCopyoverStats = "ZONEMUD_COPYOVER_STATS" // "swaps restarts lost holder-build"
	envHolderPorts   = "ZONEMUD_HOLDER_PORTS"   // "telnet-port tls-port", "-" for off
)

// gameStartWait bounds a game's start, from exec to its link; an SSH login
// during a swap waits as long for the next game (gate.GameWait).
const gameStartWait = gate.GameWait

// preflightWait bounds the new binary's check.
const preflightWait = 2 * time.Minute

// holderPaths are the holder's sockets for cfg.
func holderPaths(cfg *config.Config) (link, control string) {
	link = cmp.Or(cfg.Server.HolderSocket, filepath.Join(cfg.Server.DataDir, "holder.sock"))
	return link, filepath.Join(cfg.Server.DataDir, "holder.ctl")
}

// rebootReq is one ask for a swap; say gets each line of progress, the
// last starting with "ok" or "failed".
type rebootReq struct {
	by   string
	say  func(string)
	done chan struct{}
}

// holderProc is the holder process: the holder, its sockets, and the game
// it supervises. Only run's goroutine touches the game fields.
type holderProc struct {
	cfg     *config.Config
	cfgPath string
	log     *slog.Logger
	exe     string // the binary on disk: a reboot starts what is here then
	dir     string // data_dir/copyover: the copies of binaries
	h       *gate.Holder
	link    string
	control string
	reqs    chan rebootReq
	ports   string // envHolderPorts's value

	good     string // run's goroutine only: the copy that last linked
	swaps    int    // run's goroutine only
	restarts int    // run's goroutine only
	lost     int    // run's goroutine only

	smu       sync.Mutex
	status    string // guarded by smu: what "status" answers
	rebooting bool   // guarded by smu: a reboot was asked and has not ended
}

// gameChild is one game process.
type gameChild struct {
	cmd    *exec.Cmd
	bin    string
	exited chan struct{} // closed once cmd.Wait returned
	tail   *tailBuffer
	err    error // set before exited is closed
}

// serveCopyover runs the holder until SIGINT or SIGTERM, or until the game
// stops on an admin's shutdown.
func serveCopyover(cfg *config.Config, cfgPath string, log *slog.Logger, stderr io.Writer) int {
	log.Info("zonemud: starting as the copyover holder", logev.ID(1010), "version", version, "commit", cmp.Or(commit(), "unknown"),
		"config", configName(cfg), "data_dir", cfg.Server.DataDir)
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: copyover: cannot find this binary:", err)
		return 1
	}
	if cfgPath != "" {
		if cfgPath, err = filepath.Abs(cfgPath); err != nil {
			fmt.Fprintln(stderr, "zonemud:", err)
			return 1
		}
	}
	p := &holderProc{cfg: cfg, cfgPath: cfgPath, log: log, exe: exe, dir: filepath.Join(cfg.Server.DataDir, "copyover"),
		reqs: make(chan rebootReq, 1)}
	p.link, p.control = holderPaths(cfg)
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		fmt.Fprintln(stderr, "zonemud: copyover:", err)
		return 1
	}
	// Copies left by an earlier holder are not in use: the game dies
	// with its holder.
	if old, _ := filepath.Glob(filepath.Join(p.dir, "game-*")); len(old) > 0 {
		for _, d := range old {
			_ = os.RemoveAll(d)
		}
	}
	// What is opened before the holder serves is closed again if a later
	// listener cannot be had.
	var opened []io.Closer
	fail := func(why ...any) int {
		for _, c := range opened {
			c.Close()
		}
		fmt.Fprintln(stderr, why...)
		return 1
	}
	// The signals are caught before the listeners open, as in serve; a
	// SIGHUP that comes before the loop below waits in hup.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	gl, err := listenUnix(p.link)
	if err != nil {
		return fail("zonemud: copyover:", err)
	}
	opened = append(opened, gl)
	cl, err := listenUnix(p.control)
	if err != nil {
		return fail("zonemud: copyover:", err)
	}
	opened = append(opened, cl)
	defer os.Remove(p.link)
	defer os.Remove(p.control)
	if cfg.Server.TelnetAddr == "" {
		return fail("zonemud: copyover needs server.telnet_addr: the holder keeps the telnet players")
	}
	tl, err := net.Listen("tcp", cfg.Server.TelnetAddr)
	if err != nil {
		return fail("zonemud: copyover: telnet listen:", err)
	}
	opened = append(opened, tl)
	var tlsL net.Listener
	var tcfg *tls.Config
	if cfg.Server.TLSAddr != "" {
		tcfg, err = server.TLSConfig(cfg, log)
		if err == nil {
			tlsL, err = net.Listen("tcp", cfg.Server.TLSAddr)
		}
		if err != nil {
			return fail("zonemud: copyover: TLS:", err)
		}
		opened = append(opened, tlsL)
	}
	p.h = gate.NewHolder(cfg.Gate, buildName(), log)
	// SSH is the holder's too: it owns the host key and the listener, and
	// asks the game about accounts over the link (net/gate/holder_ssh.go).
	var sshS *sshd.Server
	if cfg.Server.SSHAddr != "" {
		sl, err := net.Listen("tcp", cfg.Server.SSHAddr)
		if err != nil {
			return fail("zonemud: copyover: SSH:", err)
		}
		opened = append(opened, sl)
		if sshS, err = sshd.New(p.h, cfg.Server.DataDir, cfg.SSH, log); err != nil {
			return fail("zonemud: copyover: SSH:", err)
		}
		go func() { _ = sshS.Serve(sl) }()
		log.Info("zonemud: holder listening", logev.ID(1011), "listener", "ssh", "addr", sl.Addr().String(),
			"host_key", gossh.FingerprintSHA256(sshS.HostKey()))
	}
	// And the web client: the page, and each WebSocket kept as a
	// connection is.
	var webS *web.Server
	if cfg.Server.WebAddr != "" {
		wl, err := net.Listen("tcp", cfg.Server.WebAddr)
		if err != nil {
			return fail("zonemud: copyover: web:", err)
		}
		opened = append(opened, wl)
		wopt := web.Options{Page: page.Handler(), Log: log}
		if cfg.Web.TLS {
			if wopt.TLS, err = server.TLSConfig(cfg, log); err != nil {
				return fail("zonemud: copyover: web:", err)
			}
		}
		webS = web.New(p.h, cfg.Web, wopt)
		go func() { _ = webS.Serve(wl) }()
		log.Info("zonemud: holder listening; open the url in a browser to play", logev.ID(1011), "listener", "web", "addr", wl.Addr().String(), "url", server.WebURL(cfg, wl.Addr()))
	}
	go func() { _ = p.h.ServeGames(gl) }()
	go func() { _ = p.h.ServeTelnet(tl) }()
	_, telnetPort, _ := net.SplitHostPort(tl.Addr().String())
	tlsPort := "-"
	if tlsL != nil {
		_, tlsPort, _ = net.SplitHostPort(tlsL.Addr().String())
	}
	p.ports = telnetPort + " " + tlsPort
	if tlsL != nil {
		_, plainPort, _ := net.SplitHostPort(tl.Addr().String())
		go func() { _ = p.h.ServeTelnetTLS(tlsL, tcfg, plainPort) }()
		log.Info("zonemud: holder listening", logev.ID(1011), "listener", "tls", "addr", tlsL.Addr().String())
	}
	go p.serveControl(cl)
	log.Info("zonemud: holder listening", logev.ID(1011), "listener", "telnet", "addr", tl.Addr().String(), "link", p.link, "control", p.control)

	go func() {
		for range hup {
			p.ask(rebootReq{by: "SIGHUP", say: func(l string) { log.Info("zonemud: reboot: "+l, logev.ID(1012)) }})
		}
	}()
	code := p.run(ctx)
	cl.Close()
	p.h.Shutdown()
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if sshS != nil {
		_ = sshS.Shutdown(wctx)
	}
	if webS != nil {
		_ = webS.Close()
	}
	_ = p.h.Wait(wctx)
	log.Info("zonemud: the holder stopped", logev.ID(1013), "swaps", p.swaps, "restarts", p.restarts)
	return code
}

// listenUnix listens on a unix socket at path, mode 0600, taking the place
// of a stale socket file but not of a live one.
func listenUnix(path string) (net.Listener, error) {
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%s answers: is another zonemud running on this data_dir?", path)
	}
	_ = os.Remove(path)
	old := umask(0o177)
	l, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// ask queues a reboot, or says one is under way: from its ask until its
// last line, a second is refused.
func (p *holderProc) ask(r rebootReq) {
	p.smu.Lock()
	busy := p.rebooting
	p.rebooting = true
	p.smu.Unlock()
	if busy {
		r.say("failed: a reboot is already under way")
		if r.done != nil {
			close(r.done)
		}
		return
	}
	p.reqs <- r // never blocks: rebooting keeps it to one
}

// run supervises the game until the holder is to stop; it returns the
// process's exit status.
func (p *holderProc) run(ctx context.Context) int {
	g, err := p.startGame(p.exe, true)
	if err != nil {
		p.log.Error("zonemud: the game did not start", logev.ID(1014), "err", err)
		return 1
	}
	p.good = g.bin
	p.setStatus(g)
	crashes := []time.Time{}
	for {
		select {
		case <-ctx.Done():
			p.stopGame(g, syscall.SIGTERM, time.Duration(p.cfg.Server.ShutdownSecs)*time.Second+10*time.Second)
			return 0
		case <-g.exited:
			if g.err == nil {
				// A clean exit without a swap: an admin's shutdown.
				p.log.Info("zonemud: the game stopped; the holder stops with it", logev.ID(1015))
				return 0
			}
			p.restarts++
			p.log.Error("zonemud: the game died; starting it again", logev.ID(1016), "err", g.err, "last_words", g.tail.String())
			now := time.Now()
			crashes = append(crashes, now)
			for len(crashes) > 0 && now.Sub(crashes[0]) > time.Minute {
				crashes = crashes[1:]
			}
			g = p.restartGood(ctx, len(crashes))
			if g == nil {
				return 0 // asked to stop meanwhile
			}
			p.setStatus(g)
		case r := <-p.reqs:
			g = p.swap(ctx, g, r)
			p.setStatus(g)
			p.smu.Lock()
			p.rebooting = false
			p.smu.Unlock()
			if r.done != nil {
				close(r.done)
			}
			if g == nil {
				return 0
			}
		}
	}
}

// restartGood starts the last good binary again until it links, backing
// off while it keeps failing; nil if ctx ends first.
func (p *holderProc) restartGood(ctx context.Context, recent int) *gameChild {
	wait := time.Duration(0)
	if recent > 3 {
		wait = time.Duration(min(recent-3, 5)) * 2 * time.Second
	}
	for {
		if wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
		g, err := p.startGame(p.good, false)
		if err == nil {
			return g
		}
		p.log.Error("zonemud: the game did not start again", logev.ID(1014), "err", err)
		wait = min(2*wait+time.Second, 30*time.Second)
	}
}

// swap carries out one reboot and returns the game running after it.
func (p *holderProc) swap(ctx context.Context, g *gameChild, r rebootReq) *gameChild {
	start := time.Now()
	p.log.Warn("zonemud: a reboot into the binary on disk", logev.ID(1017), "by", r.by, "exe", p.exe)
	r.say("checking the new binary " + p.exe)
	bin, err := p.copyBinary(p.exe)
	if err != nil {
		p.log.Error("zonemud: the new binary was refused; the game goes on", logev.ID(1018), "err", err)
		r.say("failed: the new binary was refused: " + err.Error() + "; the game goes on")
		return g
	}
	if err := p.preflight(bin, r); err != nil {
		_ = os.RemoveAll(filepath.Dir(bin))
		p.log.Error("zonemud: the new binary failed its pre-flight; the game goes on", logev.ID(1018), "err", err)
		r.say("failed: the new binary was refused: " + err.Error() + "; the game goes on")
		return g
	}
	kept := p.h.LoggedIn()
	r.say(fmt.Sprintf("swapping: %d players in their characters are kept", kept))
	if done := p.h.Swap("reboot by " + r.by); done != nil {
		select {
		case <-done:
		case <-g.exited:
		case <-time.After(time.Minute):
			p.log.Error("zonemud: the old game did not let go of its sessions; stopping it", logev.ID(1019))
		}
	}
	// The old game shuts down by itself after the swap (its farewells go
	// nowhere: the holder ignores what follows Bye); it is signalled only
	// if it takes too long.
	select {
	case <-g.exited:
	case <-time.After(time.Duration(p.cfg.Server.ShutdownSecs)*time.Second + 30*time.Second):
		p.stopGame(g, syscall.SIGKILL, 10*time.Second)
	}
	ng, err := p.startGame(bin, false)
	if err != nil {
		p.log.Error("zonemud: the new game did not start; starting the old one again", logev.ID(1020), "err", err)
		r.say("failed: the new game did not start: " + err.Error() + "; the old one is started again")
		_ = os.RemoveAll(filepath.Dir(bin))
		ng = p.restartGood(ctx, 0)
		if ng != nil {
			r.say("the old game is back")
		}
		return ng
	}
	if old := p.good; old != bin && old != p.exe {
		_ = os.RemoveAll(filepath.Dir(old))
	}
	p.good = bin
	p.swaps++
	again, waiting := waitLoggedIn(p.h, 10*time.Second, gameStartWait)
	p.lost += waiting
	took := time.Since(start).Round(time.Millisecond)
	left := max(kept-again-waiting, 0)
	p.log.Warn("zonemud: rebooted", logev.ID(1021), "took", took, "kept", kept, "back", again, "not_back", waiting, "left", left)
	line := fmt.Sprintf("ok: rebooted in %s; %d of %d players back in their characters", took, again, kept)
	if waiting > 0 {
		line += fmt.Sprintf(", %d not back", waiting)
	}
	if left > 0 {
		line += fmt.Sprintf(", %d left during it", left)
	}
	r.say(line)
	return ng
}

// waitLoggedIn waits for the players kept through a swap to be back in
// their characters, and returns how many are and how many are still not
// (gate.Holder.Waiting: a player who left meanwhile is neither). It waits
// while they keep coming back: it gives up once stall passes with none
// more back, or after most in all. A fixed bound counted the players of a
// big world still being put back (8,839 of 10,000 after ten seconds on a
// loaded machine) as lost, and players who quit during the swap too.
func waitLoggedIn(h *gate.Holder, stall, most time.Duration) (back, waiting int) {
	start := time.Now()
	last, lastAt := -1, start
	for {
		back, waiting = h.LoggedIn(), h.Waiting()
		now := time.Now()
		if back > last {
			last, lastAt = back, now
		}
		if waiting == 0 || now.Sub(lastAt) > stall || now.Sub(start) > most {
			return back, waiting
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// copyBinary copies exe into a folder of its own under the holder's, as
// "zonemud", so that ps names the game and what starts is what was checked.
func (p *holderProc) copyBinary(exe string) (string, error) {
	if err := checkExecutable(exe); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(p.dir, "game-")
	if err != nil {
		return "", err
	}
	in, err := os.Open(exe)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("the binary %s: %w", exe, err)
	}
	defer in.Close()
	bin := filepath.Join(dir, "zonemud")
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err == nil {
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("copying the binary %s: %w", exe, err)
	}
	return bin, nil
}

// checkExecutable refuses a binary the holder could not run: a reboot
// into it would copy it as executable and run what an admin never meant
// to (a half-written upload, a text file).
func checkExecutable(exe string) error {
	fi, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("the binary %s: %w", exe, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the binary %s is not a regular file (%s)", exe, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("the binary %s is not executable (mode %s); install it with mode 0755", exe, fi.Mode().Perm())
	}
	return nil
}

// preflight asks the new binary its version (it must name itself a
// zonemud), runs its check of the config and the areas, then its start on
// a copy of the database the running game writes.
func (p *holderProc) preflight(bin string, r rebootReq) error {
	out, err := runChecked(bin, filepath.Dir(bin), "version")
	if err != nil {
		return fmt.Errorf("version: %v: %s: is it a zonemud?", err, lastLine(out))
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); !strings.HasPrefix(first, "zonemud ") {
		if first == "" {
			first = "nothing"
		}
		return fmt.Errorf("it is not a zonemud: its version said %q", lastLine(first))
	}
	if err := p.runNew(bin, "check"); err != nil {
		return err
	}
	copyPath := filepath.Join(filepath.Dir(bin), "preflight.db")
	defer os.Remove(copyPath)
	if err := p.h.Snapshot(copyPath, preflightWait); err != nil {
		return fmt.Errorf("the running game could not copy the database for the pre-flight: %w", err)
	}
	r.say("the new binary opens a copy of the database")
	return p.runNew(bin, "preflight", copyPath)
}

// runNew runs the new binary on a command of the pre-flight; it must exit
// 0 and say ok.
func (p *holderProc) runNew(bin, command string, args ...string) error {
	full := []string{command}
	if p.cfgPath != "" {
		full = append(full, "-config", p.cfgPath)
	}
	wd, _ := os.Getwd()
	out, err := runChecked(bin, wd, append(full, args...)...)
	if err != nil {
		said := lastLine(out)
		if first, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); command == "check" && first != said {
			said = lastLine(first) + " ... " + said // check names each problem, then counts them
		}
		return fmt.Errorf("%s: %v: %s", command, err, said)
	}
	if !strings.Contains(out, "ok") {
		return fmt.Errorf("%s said: %s", command, cmp.Or(lastLine(out), "nothing"))
	}
	return nil
}

// runChecked runs bin with args in dir, within preflightWait, and returns
// what it printed. It runs in a process group of its own, ended when it
// exits: whatever it left running (a script's background job) is killed,
// and output held open by such a job is waited on a few seconds only.
func runChecked(bin, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), preflightWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = childWaitDelay
	checkAttrs(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		reapGroup(cmd)
	}
	return out.String(), err
}

// childWaitDelay bounds the wait for a child's output pipes after it
// exited: something it started may hold them.
const childWaitDelay = 3 * time.Second

// preflight starts the server on db, a copy of the database, with no
// listeners and no holder, and stops it again: a copyover holder's test
// that a new binary opens (and migrates) the database and builds the
// world before the running game lets go of it. The copy is removed.
func preflight(cfg *config.Config, db string, log *slog.Logger, stdout, stderr io.Writer) int {
	dir, err := os.MkdirTemp(filepath.Dir(db), "preflight-")
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: preflight:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Rename(db, filepath.Join(dir, cfg.Store.File)); err != nil {
		fmt.Fprintln(stderr, "zonemud: preflight:", err)
		return 1
	}
	s := &cfg.Server
	s.DataDir = dir
	s.TelnetAddr, s.SSHAddr, s.TLSAddr, s.HTTPAddr, s.WebAddr, s.HolderSocket = "", "", "", "", "", ""
	cfg.Store.BackupEvery = ""
	start := time.Now()
	srv, err := server.Start(cfg, server.Options{Areas: areasFS(), Log: log, Build: buildName()})
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: preflight:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.Server.ShutdownSecs)*time.Second+10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintln(stderr, "zonemud: preflight: shutdown:", err)
		return 1
	}
	fmt.Fprintf(stdout, "preflight ok: the database opened and the world built in %s\n", time.Since(start).Round(time.Millisecond))
	return 0
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// startGame starts bin as the game and waits for its link. With copy set
// it first copies bin (the first start: the holder's own binary).
func (p *holderProc) startGame(bin string, copyFirst bool) (*gameChild, error) {
	if copyFirst {
		c, err := p.copyBinary(bin)
		if err != nil {
			return nil, err
		}
		bin = c
	}
	// A dead game's link may not have ended yet at the holder: the next
	// game is turned away while one is linked.
	for deadline := time.Now().Add(30 * time.Second); p.h.LinkedNow() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	linked := p.h.Linked()
	args := []string{"game"}
	if p.cfgPath != "" {
		args = append(args, "-config", p.cfgPath)
	}
	cmd := exec.Command(bin, args...)
	cmd.Args[0] = "zonemud"
	cmd.Dir, _ = os.Getwd()
	cmd.Env = append(os.Environ(), envHolderSocket+"="+p.link, envHolderControl+"="+p.control, envHolderPorts+"="+p.ports,
		fmt.Sprintf("%s=%d %d %d %s", envCopyoverStats, p.swaps, p.restarts, p.lost, strings.ReplaceAll(buildName(), " ", "_")))
	g := &gameChild{cmd: cmd, bin: bin, exited: make(chan struct{}), tail: &tailBuffer{max: 4096}}
	cmd.Stdout = os.Stdout
	cmd.Stderr = io.MultiWriter(os.Stderr, g.tail)
	cmd.WaitDelay = childWaitDelay
	childAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	go func() {
		g.err = cmd.Wait()
		reapGroup(cmd)
		close(g.exited)
	}()
	p.log.Info("zonemud: the game started", logev.ID(1022), "pid", cmd.Process.Pid, "bin", bin)
	p.setStatus(g)
	select {
	case <-linked:
		return g, nil
	case <-g.exited:
		return nil, fmt.Errorf("it exited (%v) before linking: %s", g.err, lastLine(g.tail.String()))
	case <-time.After(gameStartWait):
		p.stopGame(g, syscall.SIGKILL, 10*time.Second)
		return nil, fmt.Errorf("it did not link within %s: %s", gameStartWait, lastLine(g.tail.String()))
	}
}

// stopGame signals the game and waits for it to exit, killing it after d.
func (p *holderProc) stopGame(g *gameChild, sig syscall.Signal, d time.Duration) {
	select {
	case <-g.exited:
		return
	default:
	}
	_ = g.cmd.Process.Signal(sig)
	select {
	case <-g.exited:
	case <-time.After(d):
		p.log.Error("zonemud: the game did not stop; killing it", logev.ID(1019), "pid", g.cmd.Process.Pid)
		_ = g.cmd.Process.Kill()
		<-g.exited
	}
}

func (p *holderProc) setStatus(g *gameChild) {
	st := "game none"
	if g != nil {
		st = fmt.Sprintf("game %d", g.cmd.Process.Pid)
	}
	st += fmt.Sprintf("\nholder %d zonemud %s %s\nswaps %d\nrestarts %d\nlost %d", os.Getpid(), version, cmp.Or(commit(), "unknown"), p.swaps, p.restarts, p.lost)
	p.smu.Lock()
	p.status = st
	p.smu.Unlock()
}

// serveControl answers the holder's control socket: one command a
// connection, "reboot" or "status".
func (p *holderProc) serveControl(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		go p.controlConn(c)
	}
}

func (p *holderProc) controlConn(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(io.LimitReader(c, 256)).ReadString('\n')
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Minute))
	word, by, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch word {
	case "reboot":
		var mu sync.Mutex
		say := func(l string) {
			mu.Lock()
			defer mu.Unlock()
			_, _ = io.WriteString(c, l+"\n")
			p.log.Info("zonemud: reboot: "+l, logev.ID(1012))
		}
		done := make(chan struct{})
		p.ask(rebootReq{by: cmp.Or(strings.TrimSpace(by), "the control socket"), say: say, done: done})
		<-done
	case "status":
		p.smu.Lock()
		st := p.status
		p.smu.Unlock()
		_, _ = io.WriteString(c, st+"\ngame_build "+p.h.GameBuild()+"\nconnections "+strconv.Itoa(p.h.Connections())+
			"\ncut "+strconv.FormatUint(p.h.Cuts(), 10)+"\n")
	default:
		_, _ = io.WriteString(c, "failed: the holder takes reboot or status\n")
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// serveGame runs the game under a holder (`zonemud game`, started by the
// holder with the link's sockets in its environment).
func serveGame(cfg *config.Config, log *slog.Logger, stderr io.Writer) int {
	link, control := os.Getenv(envHolderSocket), os.Getenv(envHolderControl)
	if link == "" {
		fmt.Fprintln(stderr, "zonemud: game is started by the holder (zonemud serve with [server] copyover = true)")
		return 2
	}
	cfg.Server.HolderSocket = link
	s := &cfg.Server
	s.TelnetAddr, s.TLSAddr, s.SSHAddr, s.WebAddr = "", "", "", "" // the holder's
	signal.Ignore(syscall.SIGHUP)
	log.Info("zonemud: starting as the game", logev.ID(1023), "version", version, "commit", cmp.Or(commit(), "unknown"), "pid", os.Getpid())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop() // caught before the game starts, as in serve
	srv, err := server.Start(cfg, server.Options{Areas: areasFS(), Log: log, Copyover: copyoverStats(), Build: buildName()})
	if err != nil {
		fmt.Fprintln(stderr, "zonemud:", err)
		return 1
	}
	code := 0
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case <-srv.Swapped():
			break wait
		case <-srv.LinkEnded():
			select {
			case <-srv.Swapped():
			default:
				log.Error("zonemud: the link to the holder ended; the game stops", logev.ID(1024))
				code = 1
			}
			break wait
		case reboot := <-srv.StopRequested():
			if !reboot {
				break wait
			}
			go askReboot(control, srv, log)
		}
	}
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.Server.ShutdownSecs)*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "zonemud: shutdown:", err)
		return 1
	}
	return code
}

// askReboot asks the holder for a swap after an admin's reboot countdown;
// if the holder refuses, the world is told why and goes on.
func askReboot(control string, srv *server.Server, log *slog.Logger) {
	last, err := controlAsk(control, "reboot the in-game reboot", func(string) {})
	if err == nil && strings.HasPrefix(last, "ok") {
		return
	}
	why := strings.TrimPrefix(last, "failed: ")
	if err != nil {
		why = err.Error()
	}
	srv.World().RebootFailed(why)
}

// controlAsk sends one command to the holder's control socket and passes
// each line of the answer to line; it returns the last.
func controlAsk(path, cmd string, line func(string)) (string, error) {
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		return "", fmt.Errorf("no holder answers at %s: %w", path, err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(c)
	last := ""
	for sc.Scan() {
		last = sc.Text()
		line(last)
	}
	if last == "" {
		return "", fmt.Errorf("the holder at %s said nothing", path)
	}
	return last, nil
}

// copyoverStats reads what the holder passed the game about itself.
func copyoverStats() *server.CopyoverStats {
	f := strings.Fields(os.Getenv(envCopyoverStats))
	if len(f) < 4 {
		return nil
	}
	st := &server.CopyoverStats{Holder: strings.ReplaceAll(f[3], "_", " ")}
	st.Swaps, _ = strconv.Atoi(f[0])
	st.Restarts, _ = strconv.Atoi(f[1])
	st.Lost, _ = strconv.Atoi(f[2])
	if ports := strings.Fields(os.Getenv(envHolderPorts)); len(ports) == 2 {
		st.TelnetPort, st.TLSPort = ports[0], strings.TrimPrefix(ports[1], "-")
	}
	return st
}

// rebootCmd asks a running holder for a reboot (`zonemud reboot`) and
// prints its progress.
func rebootCmd(cfg *config.Config, stdout, stderr io.Writer) int {
	_, control := holderPaths(cfg)
	last, err := controlAsk(control, "reboot zonemud reboot", func(l string) { fmt.Fprintln(stdout, l) })
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: reboot:", err, "(is the server running with [server] copyover = true?)")
		return 1
	}
	if !strings.HasPrefix(last, "ok") {
		return 1
	}
	return 0
}

// runningVersions prints the builds of a running copyover holder and its
// game, if one answers: after a reboot they differ from each other and
// from the binary on disk.
func runningVersions(cfg *config.Config, stdout io.Writer) {
	_, control := holderPaths(cfg)
	st := map[string]string{}
	if _, err := controlAsk(control, "status", func(l string) {
		k, v, _ := strings.Cut(l, " ")
		st[k] = v
	}); err != nil {
		return
	}
	if h := st["holder"]; h != "" {
		if _, b, ok := strings.Cut(h, " "); ok { // "PID build"
			h = b
		}
		fmt.Fprintln(stdout, "running holder:", h)
	}
	if g := st["game_build"]; g != "" {
		fmt.Fprintln(stdout, "running game:", g)
	}
}
