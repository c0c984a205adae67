package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/server/servertest"
)

// copyoverConfig writes a test config with copyover on, and telnet over
// TLS at the address tlsAddr(cfgPath) reads back.
func copyoverConfig(t *testing.T, dir, extra string) (cfgPath, telnet string) {
	t.Helper()
	cfgPath, telnet = writeConfig(t, dir, extra)
	body, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	body = []byte(strings.Replace(string(body), "[server]\n", "[server]\ncopyover = true\ntls_addr = \""+freePort(t)+"\"\n", 1))
	if err := os.WriteFile(cfgPath, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath, telnet
}

// tlsAddr is the TLS address of the config at cfgPath.
func tlsAddr(t *testing.T, cfgPath string) string {
	t.Helper()
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Server.TLSAddr
}

// holderStatus asks the holder's control socket for its status, as
// key value lines.
func holderStatus(t *testing.T, dir string) map[string]string {
	t.Helper()
	c, err := net.DialTimeout("unix", filepath.Join(dir, "data", "holder.ctl"), 10*time.Second)
	if err != nil {
		t.Fatalf("the holder's control socket: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte("status\n")); err != nil {
		t.Fatal(err)
	}
	st := map[string]string{}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		st[k] = v
	}
	return st
}

// gamePID is the process id of the holder's game now.
func gamePID(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a bound on a hang
	for {
		st := holderStatus(t, dir)
		if pid, err := strconv.Atoi(st["game"]); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("the holder names no game: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNewGame waits until the holder runs a game other than old, and
// returns its pid.
func waitNewGame(t *testing.T, dir string, old int, p *proc) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a bound on a hang
	for {
		if pid, err := strconv.Atoi(holderStatus(t, dir)["game"]); err == nil && pid > 0 && pid != old {
			return pid
		}
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("the holder exited: %v\n%s", err, p.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new game after two minutes\n%s", p.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With [server] copyover on, the binary is two processes: the holder keeps
// the telnet connections (plain and over TLS, which it terminates), and the
// game it supervises restarts under it. A
// reboot asked from the shell (`zonemud reboot`) and one asked in game
// (`reboot`) each start a new game and put the player back in their
// character, in the room they stood in, without a password and without
// an "entered the world" line; SIGKILL of the game restarts it and puts
// the player back again from the last checkpoint. The connection never
// closes.
func TestCopyover_TwoProcessesRebootAndCrash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	dir := t.TempDir()
	cfgPath, telnet := copyoverConfig(t, dir, "[world]\nadmins = [\"Ada\"]\n")
	adminCreate(t, cfgPath, "Ada", "secret-ada")
	p := startProc(t, cfgPath, telnet)
	first := gamePID(t, dir)
	if first == p.cmd.Process.Pid {
		t.Fatal("the game runs in the holder's process")
	}
	if cmd, err := os.ReadFile("/proc/" + strconv.Itoa(first) + "/cmdline"); err == nil {
		if args := strings.Split(string(cmd), "\x00"); len(args) < 2 || args[0] != "zonemud" || args[1] != "game" {
			t.Errorf("ps names the game %q; want zonemud game", args)
		}
	}

	// MSSP names the holder's ports: the game binds neither.
	_, tport, _ := net.SplitHostPort(telnet)
	_, sport, _ := net.SplitHostPort(tlsAddr(t, cfgPath))
	if got := msspVar(t, telnet, "PORT"); len(got) != 1 || got[0] != tport {
		t.Errorf("MSSP PORT is %q; want the holder's telnet port %s", got, tport)
	}
	if got := msspVar(t, telnet, "SSL"); len(got) != 1 || got[0] != sport {
		t.Errorf("MSSP SSL is %q; want the holder's TLS port %s", got, sport)
	}

	ada := servertest.Dial(t, telnet)
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("west", "Market Row")
	bob := servertest.Dial(t, telnet)
	bob.Create("Bob", "secret-bob")
	bob.DoExpect("west", "Market Row")
	bob.Skip()
	// Telnet over TLS: the holder terminates TLS, so the session keeps it.
	tess := servertest.DialTLS(t, tlsAddr(t, cfgPath))
	tess.Create("Tess", "secret-tess")
	tess.DoExpect("north", "Temple Street")

	// One who is between login questions: the new game asks again, and
	// says why.
	dan := servertest.Dial(t, telnet)
	dan.Expect("By what name")
	dan.Send("Dan")
	dan.Expect("(y/n)")

	// From the shell.
	ada.Skip()
	bob.Skip()
	out, err := exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
	if err != nil {
		t.Fatalf("zonemud reboot: %v\n%s\n%s", err, out, p.out)
	}
	if !strings.Contains(string(out), "ok: rebooted") || !strings.Contains(string(out), "3 of 3 players back") {
		t.Errorf("zonemud reboot said:\n%s", out)
	}
	second := gamePID(t, dir)
	if second == first {
		t.Fatal("the reboot did not start a new game")
	}
	// Everything each saw from the reboot on: both were back in Market
	// Row, so an entry announced for either would reach the other.
	bob.Send("say hello again")
	seenB := bob.Expect("You say, 'hello again'")
	seenA := ada.Expect("Bob says, 'hello again'")
	for who, seen := range map[string]string{"Ada": seenA, "Bob": seenB} {
		if !strings.Contains(seen, "rebuilt around you") || !strings.Contains(seen, "Market Row") {
			t.Errorf("%s was not told of the reboot and shown the room again:\n%s", who, seen)
		}
		if strings.Contains(seen, "entered the world") {
			t.Errorf("%s saw a reattach announced as an entry:\n%s", who, seen)
		}
		if strings.Contains(strings.ToLower(seen), "password") {
			t.Errorf("%s was asked for a password after the reboot:\n%s", who, seen)
		}
	}
	for _, c := range []*servertest.Client{ada, bob} {
		if c.WaitClosed(100 * time.Millisecond) {
			t.Fatal("a connection closed at the reboot")
		}
	}
	ada.DoExpect("look", "Market Row")
	tess.DoExpect("look", "Temple Street")
	dan.Expect("so it starts again") // the dialogue starts over, on the same connection, saying so
	dan.Expect("By what name")
	dan.Send("Dan")
	dan.Expect("(y/n)")
	dan.Send("y")
	dan.Expect("password")
	dan.Send("secret-dan")
	dan.Expect("again")
	dan.Send("secret-dan")
	dan.DoExpect("say made it", "You say, 'made it'")

	// A reboot asked during a reboot is refused; the first goes on.
	c1, err := net.DialTimeout("unix", filepath.Join(dir, "data", "holder.ctl"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	_ = c1.SetDeadline(time.Now().Add(5 * time.Minute)) // a bound on a hang
	if _, err := c1.Write([]byte("reboot the test\n")); err != nil {
		t.Fatal(err)
	}
	r1 := bufio.NewScanner(c1)
	if !r1.Scan() || !strings.HasPrefix(r1.Text(), "checking") {
		t.Fatalf("the first reboot began with %q", r1.Text())
	}
	out, err = exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "failed: a reboot is already under way") {
		t.Errorf("a reboot during a reboot said (%v):\n%s", err, out)
	}
	last := ""
	for r1.Scan() {
		last = r1.Text()
	}
	if !strings.HasPrefix(last, "ok: rebooted") {
		t.Errorf("the first reboot ended with %q", last)
	}
	second = waitNewGame(t, dir, second, p)
	ada.DoExpect("look", "Market Row")

	// A reboot from the shell while an admin's shutdown counts down is
	// refused: the countdown would not survive it.
	if got := ada.DoExpect("stat bob", "holder zonemud"); !strings.Contains(got, "Server: game zonemud") {
		t.Errorf("stat does not name the game's and the holder's builds:\n%s", got)
	}
	ada.DoExpect("shutdown 600", "The world will shut down in 10 minutes")
	out, err = exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "counting down") {
		t.Errorf("a reboot during a shutdown countdown said (%v):\n%s", err, out)
	}
	ada.DoExpect("shutdown cancel", "The countdown is cancelled.")

	// In game: the admin's countdown asks the holder.
	ada.DoExpect("reboot 1", "The world will reboot in 1 second")
	ada.Expect("You stay connected")
	third := waitNewGame(t, dir, second, p)
	ada.DoExpect("look", "Market Row")
	bob.DoExpect("look", "Market Row")

	// A crash: the holder starts the game again and puts everyone back.
	bob.DoExpect("east", "Emberfall Square")
	p.save(t) // the checkpoint the restart starts from
	if err := syscall.Kill(third, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitNewGame(t, dir, third, p)
	ada.Expect("The world stumbled and is starting again")
	ada.DoExpect("look", "Market Row")
	bob.DoExpect("look", "Emberfall Square")
	tess.DoExpect("look", "Temple Street")
	for _, c := range []*servertest.Client{ada, bob, tess} {
		if c.WaitClosed(100 * time.Millisecond) {
			t.Fatal("a connection closed at the crash")
		}
	}
	ver, err := exec.Command(binary(t), "version", "-config", cfgPath).CombinedOutput()
	if err != nil || !strings.Contains(string(ver), "running holder: zonemud") || !strings.Contains(string(ver), "running game: zonemud") {
		t.Errorf("zonemud version does not name the running holder and game (%v):\n%s", err, ver)
	}
	st := holderStatus(t, dir)
	if st["swaps"] != "3" || st["restarts"] != "1" {
		t.Errorf("the holder counts %v; want 3 swaps and 1 restart", st)
	}
	p.stop(t)
	if !ada.WaitClosed(30 * time.Second) {
		t.Error("the player's connection outlived the holder")
	}
}

// A reboot into a binary that is not a zonemud is refused at its
// pre-flight and the old game goes on; a reboot into one that passes the
// check but fails to start after the swap has the holder start the old
// binary again. Either way the player stays connected and in their
// character, and whoever asked is told why.
func TestCopyover_BadBinaryLeavesTheOldGame(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zonemud")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	install := func(script string) {
		t.Helper()
		tmp := bin + ".new"
		if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, bin); err != nil { // as install(1) does
			t.Fatal(err)
		}
	}
	cfgPath, telnet := copyoverConfig(t, dir, "")
	p := startProcBin(t, bin, cfgPath, telnet)
	first := gamePID(t, dir)
	cy := servertest.Dial(t, telnet)
	cy.Create("Cyra", "secret-cyra")
	cy.DoExpect("west", "Market Row")

	reboot := func() (string, bool) {
		t.Helper()
		out, err := exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
		return string(out), err == nil
	}

	// refused checks that a reboot was refused, saying want, and that the
	// old game goes on with the player in it and no process of the
	// refused binary's left.
	refused := func(what, want string) {
		t.Helper()
		out, ok := reboot()
		if ok || !strings.Contains(out, "failed: the new binary was refused") || !strings.Contains(out, want) ||
			!strings.Contains(out, "the game goes on") {
			t.Errorf("a reboot into %s said (ok=%v), want %q:\n%s", what, ok, want, out)
		}
		if pid := gamePID(t, dir); pid != first {
			t.Errorf("the game changed (%d, was %d) after a refused reboot into %s", pid, first, what)
		}
		if kids := childrenOf(p.cmd.Process.Pid); runtime.GOOS == "linux" && (len(kids) != 1 || kids[0] != first) {
			t.Errorf("after a refused reboot into %s the holder's children are %v; want only the game %d", what, kids, first)
		}
		cy.DoExpect("say still here", "You say, 'still here'")
	}

	install("#!/bin/sh\necho 'not a zonemud' >&2\nexit 3\n")
	refused("a script that fails", "not a zonemud")

	// A program that exits 0 and says nothing is not taken for a zonemud.
	truth, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	truthData, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	install(string(truthData))
	refused("true(1)", "it is not a zonemud: its version said \"nothing\"")

	// A real zonemud that lost its execute bit (a copy made without -p, an
	// upload) is refused as it is, not made executable by the copy.
	install(string(data))
	if err := os.Chmod(bin, 0o644); err != nil {
		t.Fatal(err)
	}
	refused("a binary of mode 0644", "is not executable (mode -rw-r--r--)")

	// A script that answers like a zonemud but leaves a job behind that
	// holds its output open: refused without waiting on the job, and the
	// job does not outlive the check.
	left := filepath.Join(dir, "left.pid")
	install("#!/bin/sh\ncase \"$1\" in version) echo 'zonemud v9.9.9';; check) sleep 3600 & echo $! >" + left + "; echo ok;; *) exit 1;; esac\n")
	refused("a script leaving a job", "check:")
	if b, err := os.ReadFile(left); err != nil {
		t.Errorf("the script's job did not start: %v", err)
	} else if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid <= 0 || runtime.GOOS == "linux" && alive(pid) {
		t.Errorf("the job (pid %s) a refused binary started is still running", b)
	}

	// One that checks the areas but refuses the database: refused at the
	// pre-flight, before the old game lets go.
	install("#!/bin/sh\nif [ \"$1\" = version ]; then echo 'zonemud v9.9.9'; exit 0; fi\nif [ \"$1\" = check ]; then echo 'config ok; areas ok'; exit 0; fi\necho 'zonemud: store: the file is newer than this binary' >&2\nexit 1\n")
	out, ok := reboot()
	if ok || !strings.Contains(out, "failed: the new binary was refused: preflight") || !strings.Contains(out, "newer than this binary") {
		t.Errorf("a reboot into a binary that refuses the database said (ok=%v):\n%s", ok, out)
	}
	if pid := gamePID(t, dir); pid != first {
		t.Errorf("the game changed (%d, was %d) after a refused reboot", pid, first)
	}
	cy.DoExpect("say still here", "You say, 'still here'")

	// One that passes the pre-flight and dies as the game: the old binary
	// is started again. It leaves a job behind, which goes with it.
	install("#!/bin/sh\ncase \"$1\" in version) echo 'zonemud v9.9.9'; exit 0;; check|preflight) echo ok; exit 0;; esac\n" +
		"sleep 3600 & echo $! >" + left + "\necho 'panic: at start' >&2\nexit 2\n")
	cy.Skip()
	out, ok = reboot()
	if ok || !strings.Contains(out, "failed: the new game did not start") || !strings.Contains(out, "panic: at start") ||
		!strings.Contains(out, "the old game is back") {
		t.Errorf("a reboot into a binary that dies at start said (ok=%v):\n%s\n%s", ok, out, p.out)
	}
	t.Logf("the reboot into a binary that dies at start said:\n%s", out)
	back := gamePID(t, dir)
	if back == first {
		t.Error("the old game was not the one stopped for the swap")
	}
	cy.Expect("Market Row") // put back by the old binary, started again
	cy.DoExpect("say back again", "You say, 'back again'")
	if cy.WaitClosed(100 * time.Millisecond) {
		t.Fatal("the player's connection closed")
	}
	st := holderStatus(t, dir)
	if st["swaps"] != "0" {
		t.Errorf("the holder counts %s swaps; want 0", st["swaps"])
	}
	if b, err := os.ReadFile(left); err != nil {
		t.Errorf("the failed game's job did not start: %v", err)
	} else if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid <= 0 || runtime.GOOS == "linux" && alive(pid) {
		t.Errorf("the job (pid %s) of a game that died at start is still running", b)
	}
	if kids := childrenOf(p.cmd.Process.Pid); runtime.GOOS == "linux" && (len(kids) != 1 || kids[0] != back) {
		t.Errorf("the holder's children are %v; want only the game %d", kids, back)
	}
}

// childrenOf lists the processes whose parent is pid, zombies included
// (a child the holder did not wait for), from /proc.
func childrenOf(pid int) []int {
	var kids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		k, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after the last ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, k)
		}
	}
	return kids
}

// alive reports whether pid runs, from /proc: a zombie does not (killed,
// it waits for its parent, or init once orphaned, to reap it); a zombie
// the holder should have reaped is one of childrenOf's.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// The reboot into new code: the binary is built twice, the second
// with a line of help text changed (say's, in zone/cmd.go, through a build
// overlay) and stamped with another version (as scripts/release stamps a
// release), and `zonemud reboot` runs the second under the holder started
// from the first. A player on each front (telnet; telnet over TLS with
// MCCP2 on; SSH logged in by password, and by a key; the web page's
// WebSocket), each in a room of their own, stays connected, in their
// room without a password asked, the TLS one still compressed, and reads
// the new help text; the game now answers as the second build: stat
// names it, with the holder still the first, and the SSH host key and a
// password login are as before. A line each types once the holder has
// said it is swapping is answered exactly once, by whichever game had the
// session. Another floods 50,000 lines through the swap and stays, each
// line answered once at most, in order, the holder cutting nobody.
func TestCopyover_RebootIntoASecondBuild(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "zonemud")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	const second = "v0.0.0-copyover-second"
	const oldHelp, newHelp = "Speak to everyone in the room.", "Speak aloud to everyone in the room, as the second build says."
	src, err := filepath.Abs(filepath.Join("zone", "cmd.go"))
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(code), oldHelp) != 1 {
		t.Fatalf("say's help line %q is not in %s once: change the test with it", oldHelp, src)
	}
	changed := filepath.Join(dir, "cmd.go")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(code), oldHelp, newHelp, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, []byte(`{"Replace":{`+strconv.Quote(src)+`:`+strconv.Quote(changed)+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-overlay", overlay, "-ldflags", "-X main.version="+second, "-o", bin+".new", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build of the second binary: %v\n%s", err, out)
	}
	cfgPath, telnet := copyoverConfig(t, dir, "[world]\nadmins = [\"Ada\"]\n")
	adminCreate(t, cfgPath, "Ada", "secret-ada")
	p := startProcBin(t, bin, cfgPath, telnet)
	first := gamePID(t, dir)

	ada := servertest.Dial(t, telnet)
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("west", "Market Row")
	if got := ada.DoExpect("stat ada", "holder zonemud dev"); !strings.Contains(got, "Server: game zonemud dev") {
		t.Fatalf("stat before the reboot does not name the first build:\n%s", got)
	}
	tess := servertest.DialTLS(t, tlsAddr(t, cfgPath), servertest.OptMCCP2)
	tess.Create("Tess", "secret-tess")
	tess.DoExpect("north", "Temple Street")
	if !tess.Compressed() {
		t.Fatal("the TLS player agreed to MCCP2 and the holder did not compress")
	}
	// Two SSH players, each left in a room of their own by a character
	// made on telnet: Sam logs in by password, Kit by a key registered
	// with sshkey. Each enters the world in that room.
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	key, keyLine := servertest.NewSSHKey(t)
	for _, x := range []struct {
		name string
		do   [][2]string // a command and what its answer says
	}{
		{"Sam", [][2]string{{"east", "Cinder Lane"}}},
		{"Kit", [][2]string{{"sshkey add " + keyLine, "Key added"}, {"north", "Temple Street"}, {"north", "Before the Temple"}}},
	} {
		c := servertest.Dial(t, telnet)
		c.Create(x.name, "secret-"+strings.ToLower(x.name))
		for _, d := range x.do {
			c.DoExpect(d[0], d[1])
		}
		c.Quit()
	}
	var hostMu sync.Mutex
	var pinned []byte
	hostKey := func(_ string, _ net.Addr, k gossh.PublicKey) error {
		hostMu.Lock()
		defer hostMu.Unlock()
		if pinned == nil {
			pinned = k.Marshal()
		} else if !bytes.Equal(pinned, k.Marshal()) {
			return errors.New("the host key changed")
		}
		return nil
	}
	sam := servertest.DialSSH(t, cfg.Server.SSHAddr, &gossh.ClientConfig{User: "Sam",
		Auth: []gossh.AuthMethod{gossh.Password("secret-sam")}, HostKeyCallback: hostKey})
	sam.Expect("Cinder Lane")
	kit := servertest.DialSSH(t, cfg.Server.SSHAddr, &gossh.ClientConfig{User: "Kit",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(key)}, HostKeyCallback: hostKey})
	kit.Expect("Before the Temple")
	// A web player, on the WebSocket as the built-in page speaks it.
	wen := servertest.DialWeb(t, cfg.Server.WebAddr)
	wen.Create("Wendy", "secret-wendy")
	wen.DoExpect("south", "The Banked Fire")
	// Every front's player: each stays, in their room, and reads the new
	// help.
	players := []struct {
		name, room string
		c          *servertest.Client
	}{
		{"Ada (telnet)", "Market Row", ada},
		{"Tess (telnet over TLS, MCCP2)", "Temple Street", tess},
		{"Sam (SSH, password)", "Cinder Lane", sam},
		{"Kit (SSH, key)", "Before the Temple", kit},
		{"Wendy (web)", "The Banked Fire", wen},
	}
	for _, pl := range players {
		if got := pl.c.DoExpect("help say", oldHelp); strings.Contains(got, newHelp) {
			t.Fatalf("%s reads the second build's help before the reboot:\n%s", pl.name, got)
		}
	}
	// And one who floods through the swap, in a room of their own.
	fay := servertest.Dial(t, telnet)
	fay.Create("Fay", "secret-fay")
	fay.DoExpect("look", "Emberfall Square")
	if err := os.Rename(bin+".new", bin); err != nil { // as install(1) does
		t.Fatal(err)
	}

	c, err := net.DialTimeout("unix", filepath.Join(dir, "data", "holder.ctl"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Minute)) // a bound on a hang
	if _, err := c.Write([]byte("reboot the test\n")); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(c)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if strings.HasPrefix(sc.Text(), "swapping") || strings.HasPrefix(sc.Text(), "failed") {
			break
		}
	}
	for _, pl := range players {
		pl.c.Skip()
		pl.c.Send("say " + pl.room + " typed in the swap")
	}
	fay.Skip()
	stopFlood, flooded := make(chan struct{}), make(chan int, 1)
	go func() {
		n := 0
		defer func() { flooded <- n }()
		for n < 50000 {
			var b strings.Builder
			for range 100 {
				fmt.Fprintf(&b, "say flood %d\r\n", n)
				n++
			}
			if fay.Write([]byte(b.String())) != nil {
				return
			}
			select {
			case <-stopFlood:
				return
			default:
			}
		}
	}()
	for sc.Scan() {
		said = append(said, sc.Text())
	}
	if last := said[len(said)-1]; !strings.HasPrefix(last, "ok: rebooted") || !strings.Contains(last, "6 of 6 players back") {
		t.Fatalf("the reboot into the second binary said:\n%s\n%s", strings.Join(said, "\n"), p.out)
	}
	if pid := gamePID(t, dir); pid == first {
		t.Fatal("the reboot did not start a new game")
	}
	for _, pl := range players {
		pl.c.Send("say after the swap") // Send, not DoExpect: keep what came before
		seen := pl.c.Expect("You say, 'after the swap'")
		if n := strings.Count(seen, "You say, '"+pl.room+" typed in the swap'"); n != 1 {
			t.Errorf("%s: the line typed during the swap was answered %d times; want once:\n%s", pl.name, n, seen)
		}
		// The room shown again at the reattach, not the line typed (which
		// names it) or its echo (a terminal over SSH shows what is typed).
		var shown []string
		for _, line := range strings.Split(seen, "\n") {
			if !strings.Contains(line, " typed in the swap") {
				shown = append(shown, line)
			}
		}
		if !strings.Contains(strings.Join(shown, "\n"), pl.room) || strings.Contains(strings.ToLower(seen), "password") {
			t.Errorf("%s was not put back in %s without a password:\n%s", pl.name, pl.room, seen)
		}
		pl.c.DoExpect("look", pl.room)
		if got := pl.c.DoExpect("help say", newHelp); strings.Contains(got, oldHelp) {
			t.Errorf("%s still reads the first build's help:\n%s", pl.name, got)
		}
		if pl.c.WaitClosed(50 * time.Millisecond) {
			t.Fatalf("%s's connection closed", pl.name)
		}
	}
	if !tess.Compressed() {
		t.Error("the TLS player's MCCP2 stream did not go on")
	}
	if err := servertest.TrySSH(cfg.Server.SSHAddr, &gossh.ClientConfig{User: "Sam",
		Auth: []gossh.AuthMethod{gossh.Password("secret-sam")}, HostKeyCallback: hostKey}); err != nil {
		t.Errorf("an SSH password login after the reboot, with the host key pinned before it: %v", err)
	}

	// The flooder is still connected and in their character; each line
	// they typed was answered once at most, in the order typed, and the
	// line after the flood is answered. The holder drops lines only while
	// no game is linked; what is still in the flooder's stream when the
	// second game links is read at its session's pace, as on a direct
	// connection, up to all 50,000 at lines_per_sec: the bound is on a
	// hang.
	close(stopFlood)
	sent := <-flooded
	fay.Send("say after the flood")
	seen := fay.ExpectWithin("You say, 'after the flood'", 3*time.Minute)
	last, answered := -1, 0
	for _, n := range servertest.Numbered(seen, "You say, 'flood ") {
		if n <= last {
			t.Fatalf("flood line %d was answered after line %d: twice or out of order", n, last)
		}
		last = n
		answered++
	}
	if answered == 0 || last >= sent {
		t.Errorf("%d of %d flooded lines answered, the last %d", answered, sent, last)
	}
	fay.DoExpect("look", "Emberfall Square")
	if fay.WaitClosed(50 * time.Millisecond) {
		t.Fatal("the flooder's connection closed")
	}
	if cut := holderStatus(t, dir)["cut"]; cut != "0" {
		t.Errorf("the holder's status counts %q connections cut; want 0", cut)
	}
	t.Logf("the flooder sent %d lines through the swap; %d were answered", sent, answered)
	got := ada.DoExpect("stat ada", "holder zonemud dev")
	if !strings.Contains(got, "Server: game zonemud "+second) {
		t.Errorf("stat after the reboot does not name the second build:\n%s", got)
	}
	ver, err := exec.Command(binary(t), "version", "-config", cfgPath).CombinedOutput()
	if err != nil || !strings.Contains(string(ver), "running game: zonemud "+second) ||
		!strings.Contains(string(ver), "running holder: zonemud dev") {
		t.Errorf("zonemud version does not name the second game under the first holder (%v):\n%s", err, ver)
	}
	if ada.WaitClosed(100 * time.Millisecond) {
		t.Fatal("the admin's connection closed")
	}
}

// msspVar asks the server at addr for MSSP (IAC DO MSSP) and returns the
// values of the variable name.
func msspVar(t *testing.T, addr, name string) []string {
	t.Helper()
	const iac, do, sb, se, mssp = 255, 253, 250, 240, 70
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte{iac, do, mssp})
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a hang
	var got []byte
	buf := make([]byte, 4096)
	for {
		if i := bytes.Index(got, []byte{iac, sb, mssp}); i >= 0 {
			if j := bytes.Index(got[i:], []byte{iac, se}); j >= 0 {
				var vals []string
				for _, part := range bytes.Split(got[i+3:i+j], []byte{1})[1:] {
					fields := bytes.Split(part, []byte{2})
					if string(fields[0]) == name {
						for _, v := range fields[1:] {
							vals = append(vals, string(v))
						}
					}
				}
				return vals
			}
		}
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("no MSSP from %s: %v (%q)", addr, err, got)
		}
		got = append(got, buf[:n]...)
	}
}

// A reboot while an area file is half written (a builder's save caught in
// the middle): the new binary's check of the areas refuses it, saying
// which file, and the old game, which refused the same reload, goes on
// with the player in it. Once the file is whole again the reboot goes
// through and the new game shows the new text.
func TestCopyover_RebootWithAHalfWrittenAreaFileIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	dir := t.TempDir()
	areas := servertest.CopyAreas(t, func(_ string, data []byte) []byte { return data })
	cfgPath, telnet := copyoverConfig(t, dir, "[world]\nwatch_areas = true\n")
	body, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	was := "areas_dir = " + strconv.Quote(filepath.Join(servertest.Root(), "areas"))
	if !strings.Contains(string(body), was) {
		t.Fatalf("the test config has no %s", was)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(body), was, "areas_dir = "+strconv.Quote(areas), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, cfgPath, telnet)
	first := gamePID(t, dir)
	cy := servertest.Dial(t, telnet)
	cy.Create("Cyra", "secret-cyra")
	cy.DoExpect("west", "Market Row")

	file := filepath.Join(areas, "emberfall.toml")
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "failed: the new binary was refused: check") ||
		!strings.Contains(string(out), "emberfall.toml") || !strings.Contains(string(out), "the game goes on") {
		t.Errorf("a reboot with a half-written area file said (%v):\n%s", err, out)
	}
	if pid := gamePID(t, dir); pid != first {
		t.Errorf("the game changed (%d, was %d) after a refused reboot", pid, first)
	}
	cy.DoExpect("look", "Market Row is a short, broad street")
	cy.DoExpect("say still here", "You say, 'still here'")

	const old, text = "Market Row is a short, broad street", "Market Row, rebuilt by the reboot, is a short, broad street"
	if err := os.WriteFile(file, []byte(strings.Replace(string(whole), old, text, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(binary(t), "reboot", "-config", cfgPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok: rebooted") || !strings.Contains(string(out), "1 of 1 players back") {
		t.Fatalf("the reboot with the file whole again said (%v):\n%s\n%s", err, out, p.out)
	}
	cy.DoExpect("look", text)
	if cy.WaitClosed(50 * time.Millisecond) {
		t.Fatal("the player's connection closed")
	}
}
