package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/server/servertest"
	"zonemud/store"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds zonemud once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zonemud-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "zonemud")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// freePort finds a loopback port that is free now, for a server the test
// starts as a process. It is drawn from below the kernel's ephemeral range
// (32768 and up on Linux), not asked of the kernel with port 0: a port the
// kernel hands out is an ephemeral one, which any outgoing connection on a
// busy machine (the other tests' clients) may take before the server binds
// it, and the server then fails to start.
func freePort(t *testing.T) string {
	t.Helper()
	for range 1000 {
		port := 20000 + rand.IntN(12000)
		if !claimPort(t, port) {
			continue
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatal("no free port between 20000 and 32000")
	return ""
}

// portLocks is where claimPort keeps a lock file per port.
var portLocks = filepath.Join(os.TempDir(), "zonemud-test-ports")

// claimPort reserves port for the rest of t: no other freePort, in this
// test process or in any other one running at the same time (go test runs
// packages side by side), is handed it until t ends. The probe alone did
// not do: it closes its listener, so two draws for one server (its web and
// SSH addresses) could both get a port nobody had bound yet. The claim is
// an flock on a file of the port's, which the kernel drops with the
// process, so a test killed half way leaves nothing held.
func claimPort(t *testing.T, port int) bool {
	t.Helper()
	if err := os.MkdirAll(portLocks, 0o777); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(portLocks, fmt.Sprint(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	t.Cleanup(func() { f.Close() })
	return true
}

// A test's ports are all different, however many it draws: each is held
// until the test ends, even once the probe's listener is closed.
func TestFreePort_NeverTwiceWhileHeld(t *testing.T) {
	seen := map[string]bool{}
	for range 300 {
		addr := freePort(t)
		if seen[addr] {
			t.Fatalf("%s was handed out twice to one test", addr)
		}
		seen[addr] = true
	}
	var port int
	for a := range seen {
		fmt.Sscanf(a, "127.0.0.1:%d", &port)
		break
	}
	if claimPort(t, port) {
		t.Fatalf("port %d, held by this test, was claimed again", port)
	}
}

// proc is a zonemud process started by a test.
type proc struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	telnet string
	admin  string // the admin HTTP address
	done   chan error
}

// lockedBuffer collects a process's output, written by exec's copying
// goroutine while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// writeConfig writes a config for a test server in dir and returns its path
// and telnet address.
func writeConfig(t *testing.T, dir string, extra string) (string, string) {
	t.Helper()
	telnet := freePort(t)
	body := fmt.Sprintf(`[server]
telnet_addr = %q
ssh_addr = %q
http_addr = %q
web_addr = %q
data_dir = %q
areas_dir = %q
log_level = "warn"
[gate]
argon_memory_kib = 64
argon_time = 1
lines_per_sec = 1000.0
lines_burst = 1000
%s`, telnet, freePort(t), freePort(t), freePort(t), filepath.Join(dir, "data"), filepath.Join(servertest.Root(), "areas"), extra)
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, telnet
}

// startProc runs the binary on a config and returns once it is ready: its
// admin endpoint answers, which it starts after every other listener.
func startProc(t *testing.T, cfgPath, telnet string) *proc {
	t.Helper()
	return startProcBin(t, binary(t), cfgPath, telnet)
}

// startProcBin is startProc with the binary at bin.
func startProcBin(t *testing.T, bin, cfgPath, telnet string) *proc {
	t.Helper()
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: exec.Command(bin, "-config", cfgPath), out: &lockedBuffer{}, telnet: telnet,
		admin: cfg.Server.HTTPAddr, done: make(chan error, 1)}
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	// The server under test checks that only a zone's goroutine touches
	// its state, as every test binary does.
	p.cmd.Env = append(os.Environ(), "MUD_DEBUG_GOROUTINES=1")
	// A process the server left behind holding its output open must not
	// hang the test's end.
	p.cmd.WaitDelay = 10 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + p.admin + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("server exited while starting: %v\n%s", err, p.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready after a minute: %v\n%s", err, p.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop interrupts the process and waits for it to exit.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- nil // for the cleanup
		if err != nil {
			t.Fatalf("exit after an interrupt: %v\n%s", err, p.out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("still running a minute after an interrupt\n%s", p.out)
	}
}

// save asks the running server to checkpoint everyone, and returns once
// that is written.
func (p *proc) save(t *testing.T) {
	t.Helper()
	resp, err := http.Post("http://"+p.admin+"/save", "text/plain", nil)
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("save: %s: %s", resp.Status, body)
	}
}

// SIGTERM: every player is told, every character saved, and the process
// exits 0. The next start finds everyone where they stood.
func TestMain_SIGTERMSavesAndExits(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "")
	p := startProc(t, cfg, telnet)
	a := servertest.Dial(t, telnet)
	a.Create("Gale", "gale-pass")
	a.DoExpect("west", "Market Row")
	b := servertest.Dial(t, telnet)
	b.Create("Hale", "hale-pass")
	b.DoExpect("north", "Temple Street")

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.Expect("shutting down")
	b.Expect("shutting down")
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, p.out)
		}
		p.done <- nil
	case <-time.After(60 * time.Second): // a bound on a hang, not a measure
		t.Fatalf("still running a minute after SIGTERM\n%s", p.out)
	}
	t.Logf("stopped in %v", time.Since(start))
	if !a.WaitClosed(10*time.Second) || !b.WaitClosed(10*time.Second) {
		t.Fatal("connections left open after exit")
	}

	startProc(t, cfg, telnet)
	a2 := servertest.Dial(t, telnet)
	a2.Login("Gale", "gale-pass")
	a2.DoExpect("look", "Market Row")
	b2 := servertest.Dial(t, telnet)
	b2.Login("Hale", "hale-pass")
	b2.DoExpect("look", "Temple Street")
}

func TestMain_VersionAndCheck(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "zonemud ") {
		t.Fatalf("version: %d %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	dir := t.TempDir()
	cfg, _ := writeConfig(t, dir, "")
	if code := run([]string{"check", "-config", cfg}, &out, &errb); code != 0 || !strings.Contains(out.String(), "zones") {
		t.Fatalf("check: %d %q %q", code, out.String(), errb.String())
	}
	errb.Reset()
	bad := filepath.Join(dir, "bad.toml")
	_ = os.WriteFile(bad, []byte("[zone]\nlinkdead_secs = 0\n"), 0o644)
	if code := run([]string{"-config", bad}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "zone.linkdead_secs") {
		t.Fatalf("bad config: code %d, stderr %q", code, errb.String())
	}
}

func TestMain_InitWritesAnEditableWorld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mud")
	var out, errb bytes.Buffer
	if code := run([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: %d %s", code, errb.String())
	}
	for _, f := range []string{"config.toml", "areas/emberfall.toml", "areas/game.toml", "areas/README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init did not write %s", f)
		}
	}
	if code := run([]string{"init", dir}, &out, &errb); code == 0 {
		t.Fatal("init overwrote an existing world")
	}
}

// genworld writes a world that check accepts, and refuses to write over
// files that are there.
func TestMain_GenWorldWritesAWorldCheckAccepts(t *testing.T) {
	dir := t.TempDir()
	areas := filepath.Join(dir, "gen")
	var out, errb bytes.Buffer
	if code := run([]string{"genworld", "-rooms", "250", "-per-zone", "50", areas}, &out, &errb); code != 0 {
		t.Fatalf("genworld: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "250 rooms in 5 zones") {
		t.Errorf("genworld said %q", out.String())
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[server]\nareas_dir = %q\ndata_dir = %q\n", areas, filepath.Join(dir, "data"))), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"check", "-config", cfg}, &out, &errb); code != 0 || !strings.Contains(out.String(), "5 zones, 250 rooms") {
		t.Fatalf("check of the generated world: %d %q %q", code, out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"genworld", areas}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "not empty") {
		t.Fatalf("genworld over a world: code %d, stderr %q", code, errb.String())
	}
}

// genworld -tree writes the gathering workload's world, 9-ary and four
// levels deep under the start room: 81 zones of 91 rooms under a hub of
// ten, which check accepts; a shape out of range or not FANOUTxDEPTH is
// refused before anything is written.
func TestMain_GenWorldTreeCheckAccepts(t *testing.T) {
	dir := t.TempDir()
	areas := filepath.Join(dir, "tree")
	var out, errb bytes.Buffer
	if code := run([]string{"genworld", "-tree", "9x4", areas}, &out, &errb); code != 0 {
		t.Fatalf("genworld -tree: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "7381 rooms in 82 zones") {
		t.Errorf("genworld -tree said %q", out.String())
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[server]\nareas_dir = %q\ndata_dir = %q\n", areas, filepath.Join(dir, "data"))), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"check", "-config", cfg}, &out, &errb); code != 0 || !strings.Contains(out.String(), "82 zones, 7381 rooms") {
		t.Fatalf("check of the tree: %d %q %q", code, out.String(), errb.String())
	}
	for _, bad := range []string{"9x4x", "10x4", "0x4", "9x0", "9x7", "9", "x4", "nine"} {
		errb.Reset()
		to := filepath.Join(dir, "bad")
		if code := run([]string{"genworld", "-tree", bad, to}, &out, &errb); code == 0 || errb.Len() == 0 {
			t.Errorf("genworld -tree %q: code %d, stderr %q", bad, code, errb.String())
		}
		if _, err := os.Stat(to); !os.IsNotExist(err) {
			t.Errorf("genworld -tree %q wrote %s", bad, to)
		}
	}
}

// A backup taken while players play, by the command line and by an admin
// in game, is a consistent database with everyone in it.
func TestMain_LiveBackup(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[world]\nadmins = [\"Warden\"]\n")
	adminCreate(t, cfg, "Warden", "ward-pass")
	startProc(t, cfg, telnet)
	a := servertest.Dial(t, telnet)
	a.Login("Warden", "ward-pass")
	b := servertest.Dial(t, telnet)
	b.Create("Mortal", "mort-pass")
	a.DoExpect("west", "Market Row")
	// No checkpoint has run yet (every 10 s): the backup saves first.

	out := filepath.Join(dir, "cli-backup.db")
	res, err := exec.Command(binary(t), "backup", "-config", cfg, out).CombinedOutput()
	if err != nil {
		t.Fatalf("zonemud backup: %v\n%s", err, res)
	}
	checkBackup(t, out, "Warden", "Mortal")

	b.DoExpect("backup", "Huh?") // not for mortals
	// What a container's HEALTHCHECK runs: 0 while the server answers.
	if res, err := exec.Command(binary(t), "health", "-config", cfg).CombinedOutput(); err != nil || !strings.Contains(string(res), "ok") {
		t.Errorf("zonemud health on a running server: %v\n%s", err, res)
	}
	a.DoExpect("backup", "Writing a backup")
	a.ExpectWithin("Backup written: ", 30*time.Second)
	line := a.Expect(" bytes")
	path := strings.TrimSpace(line[:strings.LastIndex(line, " (")])
	checkBackup(t, path, "Warden", "Mortal")
}

func checkBackup(t *testing.T, path string, names ...string) {
	t.Helper()
	db, err := store.Open(path, store.DefaultConfig())
	if err != nil {
		t.Fatalf("backup %s does not open: %v", path, err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := db.Character(n); err != nil {
			t.Fatalf("backup lacks %s: %v", n, err)
		}
	}
}

// The binary serves SSH on ssh_addr with a host key that survives a
// restart, so players' clients never warn that it changed.
func TestMain_SSHHostKeySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "")
	c, err := loadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sshAddr := c.Server.SSHAddr
	fingerprint := func() string {
		var got string
		conf := &gossh.ClientConfig{
			User: "Keyscan",
			Auth: []gossh.AuthMethod{gossh.Password("x")},
			HostKeyCallback: func(host string, remote net.Addr, key gossh.PublicKey) error {
				got = gossh.FingerprintSHA256(key)
				return nil
			},
			Timeout: 30 * time.Second,
		}
		c, err := gossh.Dial("tcp", sshAddr, conf)
		if err == nil {
			c.Close()
		}
		if got == "" {
			t.Fatalf("no host key from %s: %v", sshAddr, err)
		}
		return got
	}
	p := startProc(t, cfg, telnet)
	first := fingerprint()
	p.stop(t)
	startProc(t, cfg, telnet)
	if again := fingerprint(); again != first {
		t.Fatalf("host key changed across a restart: %s, then %s", first, again)
	}
}

func TestMain_CheckCompilesScripts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mud")
	var out, errb bytes.Buffer
	if code := run([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: %d %s", code, errb.String())
	}
	t.Chdir(dir) // relative paths in the config are from the working directory
	cfg := "config.toml"
	out.Reset()
	if code := run([]string{"check", "-config", cfg}, &out, &errb); code != 0 || !strings.Contains(out.String(), "scripts") {
		t.Fatalf("check of a fresh world: %d %q %q", code, out.String(), errb.String())
	}
	lever := filepath.Join("areas", "scripts", "lever.lua")
	if err := os.WriteFile(lever, []byte("function on_command(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"check", "-config", cfg}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "lever.lua") {
		t.Fatalf("check passed a script that does not compile: code %d, stdout %q stderr %q", code, out.String(), errb.String())
	}
	// A script that compiles but cannot work as written.
	bad := "function on_tik()\n  os.execute('rm -rf /')\nend\nfunction on_greet(a)\n  a:sned('hi')\nend\n"
	if err := os.WriteFile(lever, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	code := run([]string{"check", "-config", cfg}, &out, &errb)
	for _, want := range []string{
		"scripts/lever.lua:1: on_tik is not a trigger, so nothing will call it (did you mean on_tick?)",
		"scripts/lever.lua:2: os.execute: scripts have no os",
		"scripts/lever.lua:5: :sned(): no handle or string has a method sned (did you mean send?)",
	} {
		if code == 0 || !strings.Contains(errb.String(), want) {
			t.Errorf("check: code %d, stderr %q; want a failure naming %q", code, errb.String(), want)
		}
	}
}

// heapAllocated is how many bytes f allocates on the heap.
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An area file of inline tables nested 2,000 deep (8 KB, which the TOML
// decoder would take about 470 MB to read) is refused by check with its
// file, line and the limit, for hardly more memory than checking the world
// without it.
func TestMain_CheckRefusesDeeplyNestedFileInBoundedMemory(t *testing.T) {
	dir := servertest.CopyAreas(t, func(_ string, data []byte) []byte { return data })
	var out, errb bytes.Buffer
	var code int
	clean := heapAllocated(func() { code = run([]string{"check", dir}, &out, &errb) })
	if code != 0 {
		t.Fatalf("check of the starter world: %d %s", code, errb.String())
	}
	deep := "[zone]\nname = \"Deep\"\n\n" + "x = " + strings.Repeat("{a=", 2000) + "1" + strings.Repeat("}", 2000) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "deep.toml"), []byte(deep), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	hostile := heapAllocated(func() { code = run([]string{"check", dir}, &out, &errb) })
	if want := "deep.toml:4: nested 33 deep"; code == 0 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "the limit is 32") {
		t.Fatalf("check: code %d, stderr %q; want a refusal naming %q and the limit", code, errb.String(), want)
	}
	if hostile > clean+16<<20 {
		t.Errorf("check with the deep file allocated %d bytes, %d without it; want at most 16 MB more", hostile, clean)
	}
	t.Logf("check allocated %d bytes, %d without the deep file", hostile, clean)
}

// The command line takes flags and the command in any order, lists its
// commands on -h, refuses an argument a command does not take, and checks
// the areas_dir of the config it was given.
func TestMain_CommandLine(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := writeConfig(t, dir, "")
	for _, args := range [][]string{{"-config", cfg, "check"}, {"check", "-config", cfg}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "config from "+cfg+" ok") {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want the check of %s", args, code, out.String(), errb.String(), cfg)
		}
	}

	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Errorf("-h: code %d", code)
	}
	for _, c := range []string{"serve", "check [DIR]", "backup OUT", "init [DIR]", "genworld DIR", "version", "-config"} {
		if !strings.Contains(errb.String(), c) {
			t.Errorf("-h does not list %q: %s", c, errb.String())
		}
	}

	for _, args := range [][]string{{"check", "one", "two"}, {"-config", cfg, "nosuch"}, {"backup"}, {"version", "now"}, {"restore"}, {"restore", "a.db", "b.db"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: code %d, want 2 (a usage error); stderr %q", args, code, errb.String())
		}
	}

	// A folder or file that is not there is named in the refusal.
	for _, args := range [][]string{{"check", "/no/such/areas"}, {"restore", "/no/such/backup.db"}} {
		errb.Reset()
		if code := run(append([]string{"-config", cfg}, args...), &out, &errb); code == 0 || !strings.Contains(errb.String(), "/no/such/") {
			t.Errorf("%q: code %d, stderr %q; want a refusal naming the path", args, code, errb.String())
		}
	}

	// An areas_dir that the config names must exist: check does not pass a
	// config by checking the built-in world instead.
	broken, _ := writeConfig(t, t.TempDir(), "")
	body, _ := os.ReadFile(broken)
	body = bytes.Replace(body, []byte("areas_dir = "), []byte("areas_dir = \"no-such-areas\"\n# was "), 1)
	if err := os.WriteFile(broken, body, 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"check", "-config", broken}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "no-such-areas") {
		t.Errorf("check of a config whose areas_dir is missing: code %d, stderr %q", code, errb.String())
	}

	// Two listeners on one address are refused, naming both keys.
	clash := filepath.Join(t.TempDir(), "clash.toml")
	if err := os.WriteFile(clash, []byte("[server]\ntelnet_addr = \"127.0.0.1:4555\"\nssh_addr = \"127.0.0.1:4555\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"check", "-config", clash}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "server.ssh_addr") || !strings.Contains(errb.String(), "server.telnet_addr") {
		t.Errorf("check of two listeners on one address: code %d, stderr %q", code, errb.String())
	}
}

// init prints a start command that works from any folder: the config's
// relative paths are from the config file, not the working directory.
func TestMain_InitStartCommandWorksFromAnywhere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mud")
	var out, errb bytes.Buffer
	if code := run([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: %d %s", code, errb.String())
	}
	i := strings.Index(out.String(), "zonemud -config ")
	if i < 0 {
		t.Fatalf("init printed no start command: %q", out.String())
	}
	args := strings.Fields(out.String()[i:])[1:3]
	t.Chdir(t.TempDir()) // somewhere else entirely
	out.Reset()
	if code := run(append(args, "check"), &out, &errb); code != 0 || !strings.Contains(out.String(), "areas from "+filepath.Join(dir, "areas")) {
		t.Fatalf("%q from another folder: code %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
	}
}

// The start-up log names the config file, the version and every file the
// server creates: the database, the SSH host key and the TLS pair.
func TestMain_StartupLogNamesItsFiles(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "")
	body, _ := os.ReadFile(cfg)
	body = bytes.Replace(body, []byte(`log_level = "warn"`), []byte(fmt.Sprintf("log_level = \"info\"\ntls_addr = %q", freePort(t))), 1)
	if err := os.WriteFile(cfg, body, 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, cfg, telnet)
	p.stop(t)
	log := p.out.String()
	data := filepath.Join(dir, "data")
	for _, want := range []string{
		"config=" + cfg, "version=", "commit=",
		filepath.Join(data, "zonemud.db"),
		filepath.Join(data, "ssh_host_ed25519_key"),
		filepath.Join(data, "tls_cert.pem"), filepath.Join(data, "tls_key.pem"),
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the start-up log does not name %s:\n%s", want, log)
		}
	}
}

// zonemud health fails when no server answers, and the container image
// runs it as its HEALTHCHECK with the image's own config.
func TestMain_HealthFailsWithNoServer(t *testing.T) {
	cfg, _ := writeConfig(t, t.TempDir(), "")
	var out, errb bytes.Buffer
	if code := run([]string{"health", "-config", cfg}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "no server answers") {
		t.Fatalf("health with no server: code %d, stderr %q", code, errb.String())
	}
	docker, err := os.ReadFile(filepath.Join(servertest.Root(), "contrib", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^HEALTHCHECK (?:.*\\\n)*.*CMD \["/usr/local/bin/zonemud", "-config", "/etc/zonemud/config.toml", "health"`).Match(docker) {
		t.Error("contrib/Dockerfile has no HEALTHCHECK running zonemud health on the image's config")
	}
}

// zonemud check refuses a quest whose step names a mob, item or room that
// does not exist, with the file, line and key of each.
func TestMain_CheckRefusesAQuestStepNamingWhatIsMissing(t *testing.T) {
	dir := servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name != "emberfall.toml" {
			return data
		}
		s := strings.Replace(string(data), `{ kind = "kill", target = "rat", count = 3,`, `{ kind = "kill", target = "ratt", count = 3,`, 1)
		s = strings.Replace(s, `{ kind = "fetch", target = "ashridge:item:ember_stone",`, `{ kind = "fetch", target = "ashridge:item:ember_stones",`, 1)
		s = strings.Replace(s, `{ kind = "talk", mob = "gate_sergeant",`, `{ kind = "talk", mob = "gate_sargeant",`, 1)
		return []byte(s)
	})
	var out, errb bytes.Buffer
	code := run([]string{"check", dir}, &out, &errb)
	for _, want := range []string{
		"quests.rats.steps[0].target: no mob emberfall:mob:ratt (did you mean emberfall:mob:rat?)",
		"quests.mine.steps[0].target: no item ashridge:item:ember_stones",
		"quests.wolves.steps[1].mob: no mob emberfall:mob:gate_sargeant",
	} {
		if code == 0 || !regexp.MustCompile(`emberfall\.toml:\d+: `+regexp.QuoteMeta(want)).MatchString(errb.String()) {
			t.Errorf("check: code %d, stderr %q; want a refusal naming %q", code, errb.String(), want)
		}
	}
}
