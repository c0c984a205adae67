package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/net/boundary"
	"zonemud/net/gate"
	"zonemud/net/sshd"
	"zonemud/net/web"
	"zonemud/server"
	"zonemud/server/config"
	"zonemud/server/servertest"
	"zonemud/store"
	"zonemud/zone"
)

// startHolder runs a copyover holder with a telnet listener and a socket
// for games, and stops it when the test ends.
func startHolder(t *testing.T) (h *gate.Holder, telnetAddr, sock string) {
	t.Helper()
	return startHolderWith(t, gate.DefaultConfig())
}

// startHolderWith is startHolder with the gate limits of cfg.
func startHolderWith(t *testing.T, cfg gate.Config) (h *gate.Holder, telnetAddr, sock string) {
	t.Helper()
	return startHolderLog(t, cfg, nil)
}

// startHolderLog is startHolderWith logging to log.
func startHolderLog(t *testing.T, cfg gate.Config, log *slog.Logger) (h *gate.Holder, telnetAddr, sock string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "holder.sock")
	h = gate.NewHolder(cfg, "holder-test", log)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = h.ServeTelnet(tl) }()
	go func() { _ = h.ServeGames(gl) }()
	t.Cleanup(func() {
		h.Shutdown()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Wait(ctx); err != nil {
			t.Errorf("the holder's goroutines did not end: %v", err)
		}
	})
	return h, tl.Addr().String(), sock
}

func waitLinked(t *testing.T, h *gate.Holder) {
	t.Helper()
	select {
	case <-h.Linked():
	case <-time.After(30 * time.Second):
		t.Fatal("the game did not link to the holder")
	}
}

// A telnet player connected through the holder stays connected while the
// game stops and a new one starts on the same database: the player is put
// back in their character, in the room they stood in, with no password
// asked, and a command typed while no game ran is answered once, by the
// new game.
func TestCopyover_TelnetPlayerStaysThroughAGameRestart(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	first := servertest.Start(t, cfg)
	waitLinked(t, h)

	ada := servertest.Dial(t, addr)
	ada.Create("Ada", "secret-ada")
	ada.DoExpect("west", "Market Row")
	ada.DoExpect("say before", "You say, 'before'")

	done := h.Swap("test")
	if done == nil {
		t.Fatal("Swap found no game linked")
	}
	ada.Expect("rebuilt around you")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the game did not let go of its sessions")
	}
	select {
	case <-first.Swapped():
	case <-time.After(30 * time.Second):
		t.Error("the server does not say the swap happened")
	}
	// Typed while no game runs: the holder keeps it.
	ada.Send("say during the swap")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatalf("the first game's shutdown: %v", err)
	}
	if ada.WaitClosed(200 * time.Millisecond) {
		t.Fatal("the player's connection closed with the first game")
	}

	servertest.Start(t, cfg)
	ada.Send("say after")
	all := ada.Expect("You say, 'after'")
	if n := strings.Count(all, "You say, 'during the swap'"); n != 1 {
		t.Errorf("the line typed during the swap was answered %d times:\n%s", n, all)
	}
	if !strings.Contains(all, "Market Row") {
		t.Errorf("the player is not shown the room they stood in:\n%s", all)
	}
	if strings.Contains(strings.ToLower(all), "password") || strings.Contains(all, "By what name") {
		t.Errorf("the player was asked to log in again:\n%s", all)
	}
	if strings.Contains(all, "shutting down") {
		t.Errorf("the old game's farewell reached the player:\n%s", all)
	}
	ada.DoExpect("look", "Market Row")
	t.Logf("what the player saw from the swap on:\n%s", all)
}

// A player who connects while no game is linked waits, connected, and gets
// the login once a game links; a "game" that answers the holder's Hello
// with garbage is dropped without touching the player.
func TestCopyover_PlayerWaitsForAGameAndGarbageLinkIsDropped(t *testing.T) {
	h, addr, sock := startHolder(t)
	bob := servertest.Dial(t, addr)

	bad, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Write([]byte{0, 0, 0, 9, 250, 1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	_ = bad.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 256)
	for {
		if _, err := bad.Read(buf); err != nil {
			break // the holder closed the bad link
		}
	}
	bad.Close()
	select {
	case <-h.Linked():
		t.Fatal("the holder linked a peer that sent garbage")
	default:
	}
	if bob.WaitClosed(100 * time.Millisecond) {
		t.Fatal("the player was dropped with the bad link")
	}

	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Start(t, cfg)
	waitLinked(t, h)
	bob.Expect("By what name")
	bob.Send("Bob")
	bob.Expect("(y/n)")
	bob.Send("y")
	bob.Expect("password")
	bob.Send("secret-bob")
	bob.Expect("again")
	bob.Send("secret-bob")
	bob.DoExpect("say here", "You say, 'here'")
}

// A client that floods while no game runs keeps its connection: the
// holder keeps what it can, says once that it dropped the rest, and the
// next game applies each kept line once.
func TestCopyover_FloodDuringTheSwap(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	first := servertest.Start(t, cfg)
	waitLinked(t, h)
	cy := servertest.Dial(t, addr)
	cy.Create("Cyra", "secret-cyra")
	cy.DoExpect("look", "Emberfall Square")

	swapGames(t, h, first, cfg, nil, func() {
		var flood strings.Builder
		for i := range 400 {
			fmt.Fprintf(&flood, "say flood %d\r\n", i)
		}
		if err := cy.Write([]byte(flood.String())); err != nil {
			t.Fatal(err)
		}
		cy.Expect("lines typed past this one are dropped")
	})
	all := cy.Expect("Emberfall Square") // back in the character: the holder sends straight on again
	cy.Send("say after")
	all += cy.Expect("You say, 'after'")
	seen := map[string]int{}
	for _, line := range strings.Split(all, "\n") {
		if i := strings.Index(line, "You say, 'flood "); i >= 0 {
			seen[strings.TrimSpace(line[i:])]++
		}
	}
	if len(seen) == 0 || len(seen) > 256 {
		t.Errorf("%d flooded lines were answered; want between 1 and 256", len(seen))
	}
	for l, n := range seen {
		if n != 1 {
			t.Errorf("%q was answered %d times", l, n)
		}
	}
	if _, ok := seen["You say, 'flood 0'"]; !ok {
		t.Errorf("the first flooded line was not answered: %d answered:\n%s", len(seen), all)
	}
}

// A client that floods through the holder while a game is linked is held
// back as a connection of the game's own is: the holder reads its lines no
// faster than its session in the game takes them, so a flood three times
// what the game queues for a session, typed far faster than the session
// reads, is answered line by line, each once and in order, none refused,
// and the connection stays. (Read at once and forwarded, its lines
// overflowed the game's queue and each one past it was answered with a
// refusal: megabytes of output for a big flood, and the holder cut the
// client for it.)
func TestCopyover_FloodWithAGameLinkedIsHeldBack(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	cfg.Gate.LinesPerSec, cfg.Gate.LinesBurst = 300, 10
	servertest.Start(t, cfg)
	waitLinked(t, h)
	fl := servertest.Dial(t, addr)
	fl.Create("Flint", "secret-flint")
	fl.DoExpect("look", "Emberfall Square")

	const lines = 1500
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "say flood %d\r\n", i)
	}
	b.WriteString("say after the flood\r\n")
	wrote := make(chan error, 1)
	go func() { wrote <- fl.Write([]byte(b.String())) }() // held back, a write may wait
	seen := fl.ExpectWithin("You say, 'after the flood'", 2*time.Minute)
	if err := <-wrote; err != nil {
		t.Fatalf("the flood's write: %v", err)
	}
	next := 0
	for _, n := range servertest.Numbered(seen, "You say, 'flood ") {
		if n != next {
			t.Fatalf("flood line %d was answered where line %d was due: dropped, twice or out of order", n, next)
		}
		next++
	}
	if next != lines {
		t.Errorf("%d of %d flooded lines were answered", next, lines)
	}
	if n := strings.Count(seen, "typing faster"); n > 0 {
		t.Errorf("the flooder was told %d times that lines were dropped", n)
	}
	fl.DoExpect("look", "Emberfall Square")
	if fl.WaitClosed(50 * time.Millisecond) {
		t.Fatal("the flooder's connection closed")
	}
	if n := h.Cuts(); n != 0 {
		t.Errorf("the holder cut %d connections", n)
	}
}

// A client behind the holder that stops reading is cut once the output
// waiting for it passes the gate's output_limit_kib, as the gate cuts one
// of its own (long before the MiB the holder once kept for each), and the
// holder says so in its log (2413, with the player and why) and counts it.
func TestCopyover_HolderCutsAClientThatStopsReading(t *testing.T) {
	gcfg := gate.DefaultConfig()
	gcfg.OutputLimitKiB = 16
	// Longer than any flood takes, however slow the machine: the output
	// cap, not the write timeout, is what cuts the connection.
	gcfg.WriteTimeoutSecs = 600
	logs := &lockedBuffer{}
	h, addr, sock := startHolderLog(t, gcfg, slog.New(slog.NewTextHandler(logs, nil)))
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Start(t, cfg)
	waitLinked(t, h)

	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096) // fills sooner
	}
	sl := servertest.Wrap(t, raw)
	sl.Create("Sleepy", "sleepy-pass")
	talk := servertest.Dial(t, addr)
	talk.Create("Chatter", "chatter-pass")
	sl.StopReading()

	long := strings.Repeat("chatter ", 110)
	said := 0
	for i := 0; h.Cuts() == 0; i++ {
		for j := range 4 {
			line := fmt.Sprintf("say %d.%d %s", i, j, long)
			talk.Send(line)
			said += len(line)
		}
		talk.ExpectWithin(fmt.Sprintf("You say, '%d.%d ", i, 3), 20*time.Second)
		// A bound on a hang only: before the holder's queue fills, the
		// kernel's send buffer on the holder's side takes what it can,
		// and Linux grows it up to net.ipv4.tcp_wmem's largest (4 MiB
		// by default), so how much is said before the cut says little of
		// the holder's limit; net/gate's TestHolder_CutsAtTheGatesOutputLimit
		// holds that, with no socket in between.
		if said > 64<<20 {
			t.Fatalf("Sleepy was not cut after %d bytes said to them, past the output limit of 16 KiB and any socket buffer (the holder keeps %d connections)\n%s", said, h.Connections(), logs.String())
		}
	}
	for h.Connections() != 1 {
		time.Sleep(10 * time.Millisecond) // bounded by the test's timeout
	}
	if n := h.Cuts(); n != 1 {
		t.Errorf("the holder counts %d cuts; want 1", n)
	}
	waitLog(t, logs, "event=2413", "player=Sleepy", "output_limit_kib")
	talk.DoExpect("say still here", "You say, 'still here'")
	t.Logf("Sleepy was cut after %d bytes said", said)
}

// The holder applies the gate's per-address limit to the connections it
// keeps: past max_conns_per_ip a connection is told why and closed, and a
// slot freed by a connection that ended is given again.
func TestCopyover_HolderLimitsConnectionsPerAddress(t *testing.T) {
	gcfg := gate.DefaultConfig()
	gcfg.LimitLoopback = true
	gcfg.MaxConnsPerIP = 2
	h, addr, sock := startHolderWith(t, gcfg)
	a := servertest.Dial(t, addr)
	b := servertest.Dial(t, addr)
	for h.Connections() < 2 {
		time.Sleep(5 * time.Millisecond) // bounded by the test's timeout
	}
	c := servertest.Dial(t, addr)
	c.Expect("Too many connections from your address")
	if !c.WaitClosed(30 * time.Second) {
		t.Fatal("the connection past the limit was left open")
	}
	b.Close()
	for h.Connections() > 1 {
		time.Sleep(5 * time.Millisecond)
	}
	d := servertest.Dial(t, addr)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	cfg.Gate = gcfg
	servertest.Start(t, cfg)
	waitLinked(t, h)
	a.Expect("By what name")
	d.Expect("By what name")
}

// startHolderSSH puts an SSH front over the holder h, as the holder
// process does, and returns its address and its host key check.
func startHolderSSH(t *testing.T, h *gate.Holder) (string, gossh.HostKeyCallback) {
	t.Helper()
	return startHolderSSHWith(t, h, sshd.DefaultConfig())
}

// startHolderSSHWith is startHolderSSH with the front's configuration cfg.
func startHolderSSHWith(t *testing.T, h *gate.Holder, cfg sshd.Config) (string, gossh.HostKeyCallback) {
	t.Helper()
	s, err := sshd.New(h, t.TempDir(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return l.Addr().String(), gossh.FixedHostKey(s.HostKey())
}

// An SSH player behind the holder: the holder owns the host key and does
// the SSH crypto, the game checks the account over the link. With no game
// linked within the bound a client is refused, told why in a banner; a new
// name answers the creation questions with the password hidden (the
// holder reads it away from the line editor); a wrong password is
// refused; and the player stays connected, in the room, through a restart
// of the game, a line typed during the swap answered once. A client that
// authenticated before the swap and asks for its shell after it gets in:
// the new game checked its password again.
func TestCopyover_SSHPlayerStaysThroughAGameRestart(t *testing.T) {
	h, _, sock := startHolder(t)
	addr, hostKey := startHolderSSH(t, h)
	h.SetGameWait(time.Second) // no game comes: the refusal below
	client := func(user, pw string, banner *string) *gossh.ClientConfig {
		return &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.Password(pw)}, HostKeyCallback: hostKey,
			BannerCallback: func(m string) error {
				if banner != nil {
					*banner += m
				}
				return nil
			}}
	}

	var banner string
	if err := servertest.TrySSH(addr, client("Ada", "secret-ada", &banner)); err == nil {
		t.Fatal("an SSH client was let in with no game linked")
	}
	if !strings.Contains(banner, "restarting") {
		t.Errorf("the client refused with no game was told %q", banner)
	}
	h.SetGameWait(0)

	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Cai", "secret-cai")
	first := servertest.Start(t, cfg)
	waitLinked(t, h)
	ada := servertest.DialSSH(t, addr, client("Ada", "anything", nil))
	ada.Expect("(y/n)")
	ada.Send("y")
	ada.Expect("password")
	ada.Send("secret-ada")
	ada.Expect("again")
	ada.Send("secret-ada")
	ada.Expect("Exits:")
	ada.DoExpect("west", "Market Row")
	if bytes.Contains(ada.Raw(), []byte("secret-ada")) {
		t.Errorf("the new password was echoed to the SSH terminal:\n%s", ada.Raw())
	}

	if err := servertest.TrySSH(addr, client("Ada", "wrong", nil)); err == nil {
		t.Error("a wrong SSH password was let in")
	}
	bob := servertest.DialSSH(t, addr, client("Ada", "secret-ada", nil))
	bob.Expect("Market Row") // the right one takes the character over
	ada.Expect("")
	if !ada.WaitClosed(30 * time.Second) {
		t.Fatal("the taken-over SSH session stayed open")
	}
	bob.DoExpect("look", "Market Row")
	// One that authenticates now and asks for its shell only after the
	// swap: the game that checked its password is gone, the next checks it.
	late, err := gossh.Dial("tcp", addr, client("Cai", "secret-cai", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()

	swapGames(t, h, first, cfg, nil, func() { bob.Send("say during the swap") })
	if bob.WaitClosed(200 * time.Millisecond) {
		t.Fatal("the SSH connection closed with the first game")
	}
	bob.Send("say after")
	all := bob.Expect("You say, 'after'")
	if n := strings.Count(all, "You say, 'during the swap'"); n != 1 {
		t.Errorf("the line typed during the swap was answered %d times:\n%s", n, all)
	}
	if !strings.Contains(all, "Market Row") || strings.Contains(strings.ToLower(all), "password") {
		t.Errorf("the SSH player was not put back in Market Row without a password:\n%s", all)
	}
	bob.DoExpect("look", "Market Row")
	lt := servertest.OpenSSH(t, late)
	lt.Expect("Exits:")
	lt.DoExpect("score", "Cai")
	if bytes.Contains(lt.Raw(), []byte("restarted while you logged in")) {
		t.Errorf("the late session was told to connect again:\n%s", lt.Raw())
	}
	bob.DoExpect("look", "Market Row") // not taken over by it
}

// The game's side of the SSH frames, with the test as the holder: a wrong
// password is denied and a right one opens the account with a grant; the
// game starts an SSH session only with a grant it gave, for that name,
// once. A Login with any other number gets a line and a Close, so no
// client one game let in is started by another.
func TestCopyover_GameStartsOnlyTheSSHSessionsItLetIn(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "holder.sock")
	gl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer gl.Close()
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	servertest.Start(t, cfg)
	c, err := gl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a bound on a hang
	r, w := boundary.NewReader(c), boundary.NewWriter(c)
	if v, _, err := boundary.Greet(r, w, "test-holder"); err != nil || v < boundary.SSHVersion {
		t.Fatalf("handshake: version %d, %v", v, err)
	}
	send := func(f boundary.Frame) {
		t.Helper()
		if err := w.WriteFlush(f); err != nil {
			t.Fatal(err)
		}
	}
	// next reads frames until one that match takes, and returns it.
	next := func(what string, match func(boundary.Frame) bool) boundary.Frame {
		t.Helper()
		for {
			f, err := r.Read()
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if match(f) {
				return f
			}
		}
	}
	ask := func(n uint64, user, pw string) *boundary.AuthAnswer {
		t.Helper()
		send(&boundary.AuthAsk{Ask: n, Method: boundary.AuthPassword, User: user, Remote: "127.0.0.1:4000", Secret: []byte(pw)})
		return next("an answer", func(f boundary.Frame) bool { a, ok := f.(*boundary.AuthAnswer); return ok && a.Ask == n }).(*boundary.AuthAnswer)
	}
	closed := func(session uint64) bool {
		t.Helper()
		f := next("the session's fate", func(f boundary.Frame) bool {
			switch f := f.(type) {
			case *boundary.Close:
				return f.Session == session
			case *boundary.State:
				return f.Session == session && f.Account != ""
			}
			return false
		})
		_, isClose := f.(*boundary.Close)
		return isClose
	}
	login := func(session uint64, user string, grant uint64) {
		send(&boundary.Login{Session: session, Front: "ssh", Remote: "127.0.0.1:4000", User: user, Grant: grant,
			Client: boundary.Client{Width: 80, Height: 24, Name: "ssh", UTF8: true}})
	}

	if a := ask(1, "Ada", "wrong"); a.Verdict != boundary.Denied || a.Grant != 0 {
		t.Errorf("a wrong password: %+v", a)
	}
	if a := ask(2, "Zenobia", "whatever"); a.Verdict != boundary.NoAccount || a.Grant == 0 {
		t.Errorf("a name with no account: %+v", a)
	}
	a := ask(3, "ada", "secret-ada")
	if a.Verdict != boundary.Opens || a.Account != "Ada" || a.Grant == 0 {
		t.Fatalf("the right password: %+v", a)
	}
	login(10, "Ada", a.Grant^1)
	if !closed(10) {
		t.Fatal("a Login with a grant the game did not give was started")
	}
	b := ask(4, "Ada", "secret-ada")
	login(11, "Bob", b.Grant)
	if !closed(11) {
		t.Fatal("a Login with another name's grant was started")
	}
	login(12, "Ada", a.Grant)
	if closed(12) {
		t.Fatal("a Login with the game's own grant was refused")
	}
	login(13, "Ada", a.Grant)
	if !closed(13) {
		t.Fatal("a grant was used twice")
	}
}

// A holder from before Took (protocol version 2) sends every line at once;
// the game, with the test as that holder, queues what it can for the
// session, drops the rest and tells the player once for the overflow, not
// once for each line dropped (a flood of them was megabytes of refusals).
// The lines it kept are answered once each, in order, the Detached at the
// swap names the last of them, and no Took reaches a link that did not
// agree on it.
func TestCopyover_GameTellsAnOldHolderOncePerOverflow(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "holder.sock")
	gl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer gl.Close()
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	cfg.Gate.LinesPerSec, cfg.Gate.LinesBurst = 200, 10
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	servertest.Start(t, cfg)
	c, err := gl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute)) // a bound on a hang
	r, w := boundary.NewReader(c), boundary.NewWriter(c)
	if err := w.WriteFlush(&boundary.Hello{Min: 1, Max: boundary.SSHVersion, Build: "old-holder"}); err != nil {
		t.Fatal(err)
	}
	if f, err := r.Read(); err != nil {
		t.Fatal(err)
	} else if wl, ok := f.(*boundary.Welcome); !ok || wl.Version != boundary.SSHVersion {
		t.Fatalf("the game answered an old holder's Hello with %#v", f)
	}
	if err := w.WriteFlush(&boundary.Attach{Session: 1, Front: "telnet", Remote: "127.0.0.1:4000", Account: "Ada", Authenticated: true,
		Client: boundary.Client{Width: 80, Height: 24, Name: "telnet", UTF8: true}}); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := r.Read()
		if err != nil {
			t.Fatalf("waiting for Ada to be in her character: %v", err)
		}
		if st, ok := f.(*boundary.State); ok && st.Account == "Ada" {
			break
		}
	}
	const lines = 1500 // three times the game's queue for a session
	for i := range lines {
		if err := w.Write(&boundary.Input{Session: 1, Seq: uint64(i + 1), Line: fmt.Sprintf("say flood %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFlush(&boundary.Swap{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var detached uint64
	for done := false; !done; {
		f, err := r.Read()
		if err != nil {
			t.Fatalf("waiting for the swap's Bye: %v", err)
		}
		switch f := f.(type) {
		case *boundary.Output:
			for _, op := range f.Ops {
				if op.Kind == boundary.OpText {
					out.Write(op.Data)
				}
			}
		case *boundary.Detached:
			detached = f.Seq
		case *boundary.Took:
			t.Fatalf("a Took reached a holder of version %d", boundary.SSHVersion)
		case *boundary.Bye:
			done = true
		}
	}
	seen := out.String()
	if n := strings.Count(seen, "typing faster"); n != 1 {
		t.Errorf("the player was told %d times that lines were dropped; want once", n)
	}
	last, answered := -1, 0
	for _, n := range servertest.Numbered(seen, "You say, 'flood ") {
		if n <= last {
			t.Fatalf("flood line %d was answered after line %d: twice or out of order", n, last)
		}
		last = n
		answered++
	}
	if answered == 0 || answered == lines {
		t.Errorf("%d of %d flooded lines answered: want some, not all", answered, lines)
	}
	if detached != uint64(last+1) {
		t.Errorf("the swap's Detached names line %d; the last answered was %d", detached, last+1)
	}
}

// startHolderWeb puts a web front over the holder h, as the holder
// process does, and returns its address.
func startHolderWeb(t *testing.T, h *gate.Holder) string {
	t.Helper()
	s := web.New(h, web.DefaultConfig(), web.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return l.Addr().String()
}

// resumeToken is the token of the last Client.Resume in seen.
func resumeToken(t *testing.T, seen string) string {
	t.Helper()
	i := strings.LastIndex(seen, `<GMCP Client.Resume {"token":"`)
	if i < 0 {
		t.Fatalf("no Client.Resume in:\n%s", seen)
	}
	tok := seen[i+len(`<GMCP Client.Resume {"token":"`):]
	return tok[:strings.IndexByte(tok, '"')]
}

// A web player behind the holder: the holder keeps the WebSocket, so the
// page stays connected through a restart of the game, in the room, a line
// typed during the swap answered once. The new game gives the page a new
// resume token as it puts the player back; a page that reconnects with
// it goes back into the character without the password, and the first
// game's token, which no game knows any more, is refused.
func TestCopyover_WebPlayerStaysThroughAGameRestart(t *testing.T) {
	h, _, sock := startHolder(t)
	addr := startHolderWeb(t, h)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	first := servertest.Start(t, cfg)
	waitLinked(t, h)

	wen := servertest.DialWeb(t, addr)
	wen.SendGMCP("Core.Hello", `{"client":"test","version":"1"}`)
	wen.Create("Wendy", "secret-wendy")
	wen.DoExpect("west", "Market Row")
	old := resumeToken(t, string(wen.Raw()))

	swapGames(t, h, first, cfg, nil, func() { wen.Send("say during the swap") })
	if wen.WaitClosed(200 * time.Millisecond) {
		t.Fatal("the page's WebSocket closed with the first game")
	}
	wen.Send("say after")
	all := wen.Expect("You say, 'after'")
	if n := strings.Count(all, "You say, 'during the swap'"); n != 1 {
		t.Errorf("the line typed during the swap was answered %d times:\n%s", n, all)
	}
	if !strings.Contains(all, "Market Row") || strings.Contains(strings.ToLower(all), "password") {
		t.Errorf("the web player was not put back in Market Row without a password:\n%s", all)
	}
	tok := resumeToken(t, all)
	if tok == old || tok != resumeToken(t, string(wen.Raw())) {
		t.Fatal("the new game gave the page the old game's token")
	}

	stale := servertest.DialWeb(t, addr)
	stale.SendGMCP("Client.Resume", `{"token":"`+old+`"}`)
	stale.Expect("cannot be resumed")
	stale.Close()

	wen.Close() // the page reloads
	again := servertest.DialWeb(t, addr)
	again.SendGMCP("Client.Resume", `{"token":"`+tok+`"}`)
	got := again.Expect("Market Row")
	if strings.Contains(strings.ToLower(got), "password") {
		t.Errorf("the resumed page was asked for a password:\n%s", got)
	}
	again.DoExpect("say resumed", "You say, 'resumed'")

	// A page that says a screen reader is on gets plain text: the holder
	// passes on what its Core.Hello said.
	sera := servertest.DialWeb(t, addr)
	sera.SendGMCP("Core.Hello", `{"client":"test","version":"1","screenreader":true}`)
	sera.Create("Sera", "secret-sera")
	sera.DoExpect("look", "Emberfall Square")
	raw := sera.Raw()
	if i := bytes.Index(raw, []byte("Client.Resume")); i < 0 || bytes.Contains(raw[i:], []byte("\x1b[")) {
		t.Errorf("a page with a screen reader was sent colour in the world:\n%q", raw)
	}
}

// A player between login questions when their game goes starts the
// dialogue again under the next game, and is told so (docs/ARCHITECTURE.md
// "Copyover": the answers so far were the old game's, and the holder keeps
// none of them). What they typed meanwhile is not taken as an answer: a
// password typed during the swap would be asked about as a name, on
// screen. Echo is back on for the name after a password question; the
// connection never closes, and each finishes logging in.
func TestCopyover_LoginDialogueStartsAgainAcrossASwap(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	first := servertest.Start(t, cfg)
	waitLinked(t, h)
	const adaPass, calPass = "swordfishada", "swordfishcal" // letters only: a name, if taken for one
	ada := servertest.Dial(t, addr)
	ada.Create("Ada", adaPass)
	ada.Quit()

	named := servertest.Dial(t, addr) // the name given, asked to confirm it
	named.Expect(servertest.NamePrompt)
	named.Send("Bea")
	named.Expect("(y/n)")
	pw := servertest.Dial(t, addr, 1) // an account's password asked; it lets the server echo (IAC DO ECHO)
	pw.Expect(servertest.NamePrompt)
	pw.Send("Ada")
	pw.Expect("password")
	again := servertest.Dial(t, addr) // a new character's password asked again
	again.Expect(servertest.NamePrompt)
	again.Send("Cal")
	again.Expect("(y/n)")
	again.Send("y")
	again.Expect("password")
	again.Send(calPass)
	again.Expect("again")
	if echo := lastEcho(pw.Raw()); echo != "off" {
		t.Fatalf("echo is %s at the password question", echo)
	}

	clients := []*servertest.Client{named, pw, again}
	swapGames(t, h, first, cfg, nil, func() {
		for _, c := range clients {
			c.Skip()
		}
		// Typed while no game runs.
		named.Send("y")
		pw.Send(adaPass)
		again.Send(calPass)
	})
	for i, c := range clients {
		seen := c.Expect("starts again")
		seen += c.Expect(servertest.NamePrompt)
		if low := strings.ToLower(seen); strings.Contains(low, adaPass) || strings.Contains(low, calPass) {
			t.Errorf("client %d: a password typed during the swap was shown back:\n%s", i, seen)
		}
		if strings.Contains(seen, "(y/n)") || strings.Contains(seen, "Wrong password") {
			t.Errorf("client %d: a line typed during the swap was taken as an answer:\n%s", i, seen)
		}
		if c.WaitClosed(50 * time.Millisecond) {
			t.Fatalf("client %d: the connection closed", i)
		}
	}
	if echo := lastEcho(pw.Raw()); echo != "on" {
		t.Errorf("echo is %s at the name question after the restart", echo)
	}
	named.Send("Bea")
	named.Expect("(y/n)")
	named.Send("y")
	named.Expect("password")
	named.Send("swordfishbea")
	named.Expect("again")
	named.Send("swordfishbea")
	named.DoExpect("say in", "You say, 'in'")
	pw.Send("Ada")
	pw.Expect("password")
	pw.Send(adaPass)
	pw.DoExpect("say in", "You say, 'in'")
	again.Send("Cal")
	again.Expect("(y/n)")
	again.Send("y")
	again.Expect("password")
	again.Send(calPass)
	again.Expect("again")
	again.Send(calPass)
	again.DoExpect("say in", "You say, 'in'")
}

// lastEcho says what the last echo negotiation in raw left: "off" after
// IAC WILL ECHO (the server echoes, so the client does not), "on" after
// IAC WONT ECHO, "" if there was none.
func lastEcho(raw []byte) string {
	will := bytes.LastIndex(raw, []byte{255, 251, 1})
	wont := bytes.LastIndex(raw, []byte{255, 252, 1})
	switch {
	case will < 0 && wont < 0:
		return ""
	case will > wont:
		return "off"
	}
	return "on"
}

// swapGames lets the linked game go (Swap, then its shutdown) and starts
// the next on cfg; during runs between the Swap and the old game's Bye,
// after runs once it has said Bye and before it shuts down.
func swapGames(t *testing.T, h *gate.Holder, old *server.Server, cfg *config.Config, during, after func()) *server.Server {
	t.Helper()
	done := h.Swap("test")
	if done == nil {
		t.Fatal("Swap found no game linked")
	}
	if during != nil {
		during()
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the game did not let go of its sessions")
	}
	if after != nil {
		after()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := old.Shutdown(ctx); err != nil {
		t.Fatalf("the old game's shutdown: %v", err)
	}
	next := servertest.Start(t, cfg)
	waitLinked(t, h)
	return next
}

// censusAtEnd checks, once every game of the test has stopped (a cleanup
// registered before the last one starts runs after its shutdown), that no
// item is held twice and the ledger agrees with the records.
func censusAtEnd(t *testing.T, cfg *config.Config) {
	t.Helper()
	t.Cleanup(func() {
		db, err := store.OpenReadOnly(filepath.Join(cfg.Server.DataDir, cfg.Store.File), cfg.Store)
		if err != nil {
			t.Errorf("the database after the swaps: %v", err)
			return
		}
		defer db.Close()
		if _, err := db.Census(); err != nil {
			t.Errorf("the census after the swaps: %v", err)
		}
	})
}

// A reboot while a player's private copy of the crypt is being minted: the
// mint, held on its worker, ends during the swap (before the old game has
// let the player go, and again after, while it shuts down). Either way the
// player is put back connected, at the crypt's door or in the copy, with
// the lantern they carry exactly once; the next game mints them a copy of
// their own; and once every game has stopped, the census is clean.
func TestCopyover_SwapDuringAnInstanceMint(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := instConfig(t, "Kit")
	cfg.Server.HolderSocket = sock
	var hmu sync.Mutex
	var hold chan struct{} // the mint's worker waits on it while set
	cfg.Instance.MintHook = func(string) {
		hmu.Lock()
		c := hold
		hmu.Unlock()
		if c != nil {
			<-c
		}
	}
	holdMints := func() func() {
		c := make(chan struct{})
		hmu.Lock()
		hold = c
		hmu.Unlock()
		var once sync.Once
		release := func() {
			once.Do(func() {
				hmu.Lock()
				hold = nil
				hmu.Unlock()
				close(c)
			})
		}
		t.Cleanup(release)
		return release
	}
	g := servertest.Start(t, cfg)
	waitLinked(t, h)
	kit := servertest.Dial(t, addr)
	kit.Login("Kit", "kit-pass")
	kit.DoExpect("goto "+barrowRef, "The Barrow of Thane Berrick")
	kit.DoExpect("load emberfall:item:lantern", "> ")

	for round, when := range []string{"during", "after"} {
		release := holdMints()
		kit.DoExpect("down", "The way begins to open...")
		kit.Skip()
		var during, after func()
		if when == "during" {
			during = release
		} else {
			after = release
		}
		if round == 1 {
			censusAtEnd(t, cfg)
		}
		g = swapGames(t, h, g, cfg, during, after)
		seen := kit.Expect("Exits:") // the copy opening in the old game, if it did, then the room put back in
		here := kit.DoExpect("look", "Exits:")
		if !strings.Contains(here, "The Barrow of Thane Berrick") && !strings.Contains(here, "The Crumbling Stair") {
			t.Fatalf("round %s: the player was put back neither at the door nor in the copy:\n%s\n%s", when, seen, here)
		}
		if kit.WaitClosed(50 * time.Millisecond) {
			t.Fatalf("round %s: the connection closed", when)
		}
		inv := kit.DoExpect("inventory", "> ")
		if n := strings.Count(strings.ToLower(inv), "lantern"); n != 1 {
			t.Errorf("round %s: the player carries %d lanterns; want 1:\n%s", when, n, inv)
		}
		if strings.Contains(here, "The Crumbling Stair") {
			if z := g.World().Where("Kit"); z == nil || !zone.IsInstanceID(z.ID()) {
				t.Errorf("round %s: the player is on the stair outside any copy (%v)", when, z)
			}
			kit.DoExpect("up", "The Barrow of Thane Berrick")
		}
		kit.DoExpect("look", "The Barrow of Thane Berrick")
		t.Logf("round %s: saw\n%s\nthen\n%s", when, seen, here)
	}
	kit.DoExpect("down", "The Crumbling Stair")
	if z := g.World().Where("Kit"); z == nil || !zone.IsInstanceID(z.ID()) {
		t.Fatalf("the new game did not mint the player a copy")
	}
	kit.DoExpect("up", "The Barrow of Thane Berrick")
}

// A reboot while an area file is being reloaded: the builder's save of
// Market Row's description lands as the swap begins. The player is put
// back in Market Row, connected, and the next game, which reads the areas
// afresh, shows the new text; the census is clean after.
func TestCopyover_SwapDuringAHotReload(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(_ string, data []byte) []byte { return data })
	cfg.World.WatchAreas = true
	g := servertest.Start(t, cfg)
	waitLinked(t, h)
	ada := servertest.Dial(t, addr)
	ada.Create("Ada", "secret-ada")
	ada.DoExpect("west", "Market Row")
	const old, text = "Market Row is a short, broad street of stalls", "Market Row, rebuilt in the swap, is a short, broad street of stalls"
	censusAtEnd(t, cfg)
	swapGames(t, h, g, cfg, func() {
		edit(t, cfg.Server.AreasDir, "emberfall.toml", true, replaceOnce(old, text))
	}, nil)
	seen := ada.Expect("Exits:")
	if !strings.Contains(seen, "Market Row") {
		t.Fatalf("the player was not put back in Market Row:\n%s", seen)
	}
	if ada.WaitClosed(50 * time.Millisecond) {
		t.Fatal("the connection closed")
	}
	ada.DoExpect("look", text)
	ada.DoExpect("say still here", "You say, 'still here'")
}

// Between two games the holder counts the players it keeps for the next
// (Waiting, what a reboot reports as not back if they stay so); one who
// leaves during the swap is not among them, and once the next game has
// put the other back none is waiting.
func TestCopyover_WaitingCountsThoseStillToComeBack(t *testing.T) {
	h, addr, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	g := servertest.Start(t, cfg)
	waitLinked(t, h)
	ada := servertest.Dial(t, addr)
	ada.Create("Ada", "secret-ada")
	bob := servertest.Dial(t, addr)
	bob.Create("Bob", "secret-bob")
	lurker := servertest.Dial(t, addr) // at the name question: not a player to put back
	lurker.Expect(servertest.NamePrompt)
	eventually(t, "both in the world", func() bool { return h.LoggedIn() == 2 })
	if n := h.Waiting(); n != 0 {
		t.Fatalf("%d waiting while the game has everyone", n)
	}
	swapGames(t, h, g, cfg, nil, func() {
		eventually(t, "both kept for the next game", func() bool { return h.Waiting() == 2 })
		bob.Close()
		eventually(t, "the one who left not kept", func() bool { return h.Waiting() == 1 })
	})
	ada.DoExpect("look", "Emberfall Square")
	eventually(t, "Ada back", func() bool { return h.LoggedIn() == 1 })
	if n := h.Waiting(); n != 0 {
		t.Errorf("%d waiting once the next game has put Ada back", n)
	}
}

// sshResult is what one SSH client's dial came to: the client, and with
// shell its terminal.
type sshResult struct {
	c    *gossh.Client
	term net.Conn
	err  error
}

// dialSSHAsync authenticates at addr as user on a goroutine of its own,
// and with shell opens a terminal at once.
func dialSSHAsync(addr, user string, auth gossh.AuthMethod, hostKey gossh.HostKeyCallback, shell bool) chan sshResult {
	ch := make(chan sshResult, 1)
	go func() {
		c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{auth}, HostKeyCallback: hostKey})
		r := sshResult{c: c, err: err}
		if err == nil && shell {
			r.term, r.err = servertest.StartShell(c)
		}
		ch <- r
	}()
	return ch
}

// dialed is the result of a dialSSHAsync; the test fails if it never ends.
func dialed(t *testing.T, ch chan sshResult) sshResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.c != nil {
			t.Cleanup(func() { _ = r.c.Close() })
		}
		return r
	case <-time.After(2 * time.Minute):
		t.Fatal("an SSH client's authentication never ended")
	}
	return sshResult{}
}

// waitSSHWaiting waits until n SSH logins wait for a game at the holder.
func waitSSHWaiting(t *testing.T, h *gate.Holder, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); h.SSHWaiting() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d SSH logins wait for a game, want %d", h.SSHWaiting(), n)
		}
	}
}

// SSH logins whose authentication is under way while the game swaps wait
// for the next game and end in the player's character there, without
// connecting again: one by password, one by key. The new game checks each
// credential itself: a wrong password during the swap is still refused.
func TestCopyover_SSHLoginDuringASwapGetsIn(t *testing.T) {
	h, telnetAddr, sock := startHolder(t)
	scfg := sshd.DefaultConfig()
	scfg.HandshakeTimeoutSecs = 2 // shorter than the swap: the wait for a game does not count
	addr, hostKey := startHolderSSHWith(t, h, scfg)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	first := servertest.Start(t, cfg)
	waitLinked(t, h)
	key, line := servertest.NewSSHKey(t)
	bea := servertest.Dial(t, telnetAddr)
	bea.Create("Bea", "secret-bea")
	bea.DoExpect("sshkey add "+line, "Key added")
	bea.DoExpect("west", "Market Row")
	bea.Quit()

	var ada, beaKey, wrong chan sshResult
	swapGames(t, h, first, cfg, func() {
		// The game lets go now: none of them can be asked before the
		// next game links.
		ada = dialSSHAsync(addr, "Ada", gossh.Password("secret-ada"), hostKey, true)
		beaKey = dialSSHAsync(addr, "Bea", gossh.PublicKeys(key), hostKey, true)
		wrong = dialSSHAsync(addr, "Ada", gossh.Password("not-her-password"), hostKey, false)
		waitSSHWaiting(t, h, 3)
		time.Sleep(3 * time.Second) // past the front's handshake timeout
	}, nil)

	r := dialed(t, ada)
	if r.err != nil {
		t.Fatalf("the password login during the swap: %v", r.err)
	}
	a := servertest.Wrap(t, r.term)
	a.Expect("Exits:")
	a.DoExpect("score", "Ada")
	r = dialed(t, beaKey)
	if r.err != nil {
		t.Fatalf("the key login during the swap: %v", r.err)
	}
	b := servertest.Wrap(t, r.term)
	b.Expect("Market Row")
	b.DoExpect("score", "Bea")
	for _, c := range []*servertest.Client{a, b} {
		if bytes.Contains(c.Raw(), []byte("connect again")) || bytes.Contains(c.Raw(), []byte("restarting")) {
			t.Errorf("a login during the swap was told to come back:\n%s", c.Raw())
		}
	}
	if r := dialed(t, wrong); r.err == nil {
		t.Error("a wrong password during the swap was let in")
	}
	if n := h.CredentialsKept(); n != 0 {
		t.Errorf("the holder keeps the credentials of %d players in their characters", n)
	}
}

// fakeGame links to the holder at sock as a game does, for a test to
// answer the holder's frames itself (or not at all).
func fakeGame(t *testing.T, sock string) (net.Conn, *boundary.Reader, *boundary.Writer) {
	t.Helper()
	c, err := gate.DialHolder(sock, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a bound on a hang
	r, w := boundary.NewReader(c), boundary.NewWriter(c)
	if _, _, err := boundary.Answer(r, w, "fake-game"); err != nil {
		t.Fatal(err)
	}
	return c, r, w
}

// readFrames reads from a fake game's link until it has n frames of the
// kind of want, and returns them.
func readFrames[F boundary.Frame](t *testing.T, r *boundary.Reader, n int) []F {
	t.Helper()
	var got []F
	for len(got) < n {
		f, err := r.Read()
		if err != nil {
			t.Fatalf("reading the holder's frames: %v", err)
		}
		if ff, ok := f.(F); ok {
			got = append(got, ff)
		}
	}
	return got
}

// The steps of an SSH login behind the holder are each kept to a game that
// checked the client. A game that goes with a password's question
// unanswered: the holder asks the next game. A game that let two clients
// in and goes before it put them in their characters (here one that
// lies, letting in a wrong password): the holder asks the next, real,
// game again with what each client typed, and that game lets in the right
// password and refuses the wrong one.
func TestCopyover_SSHLoginIsAskedAgainOfTheNextGame(t *testing.T) {
	h, _, sock := startHolder(t)
	addr, hostKey := startHolderSSH(t, h)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	servertest.Admin(t, cfg, "Cai", "secret-cai")

	// A game that takes the questions and dies.
	c1, r1, _ := fakeGame(t, sock)
	waitLinked(t, h)
	ada := dialSSHAsync(addr, "Ada", gossh.Password("secret-ada"), hostKey, false)
	cai := dialSSHAsync(addr, "Cai", gossh.Password("not-her-password"), hostKey, false)
	asks := readFrames[*boundary.AuthAsk](t, r1, 2)
	_ = c1.Close()

	// The next is asked the same, and lets both in.
	c2, r2, w2 := fakeGame(t, sock)
	again := readFrames[*boundary.AuthAsk](t, r2, 2)
	grants := map[string]uint64{}
	for i, a := range again {
		if a.Method != boundary.AuthPassword {
			t.Fatalf("asked again by %v", a.Method)
		}
		if !slices.ContainsFunc(asks, func(b *boundary.AuthAsk) bool {
			return b.User == a.User && b.Method == a.Method && bytes.Equal(b.Secret, a.Secret)
		}) {
			t.Errorf("the next game was asked %s/%q, which the first was not", a.User, a.Secret)
		}
		grants[a.User] = uint64(100 + i)
		if err := w2.WriteFlush(&boundary.AuthAnswer{Ask: a.Ask, Verdict: boundary.Opens, Account: a.User, Grant: grants[a.User]}); err != nil {
			t.Fatal(err)
		}
	}
	ra, rc := dialed(t, ada), dialed(t, cai)
	if ra.err != nil || rc.err != nil {
		t.Fatalf("the clients the game let in: %v, %v", ra.err, rc.err)
	}
	at, ct := servertest.OpenSSH(t, ra.c), servertest.OpenSSH(t, rc.c)
	for _, lg := range readFrames[*boundary.Login](t, r2, 2) {
		if lg.Grant != grants[lg.User] {
			t.Errorf("%s's Login brought grant %d, not its game's %d", lg.User, lg.Grant, grants[lg.User])
		}
	}
	// It dies before it puts them in their characters.
	_ = c2.Close()
	servertest.Start(t, cfg)
	at.Expect("Exits:")
	at.DoExpect("score", "Ada")
	ct.Expect("please connect again")
	if !ct.WaitClosed(30 * time.Second) {
		t.Fatal("a wrong password a lying game let in was started by the real one")
	}
	if bytes.Contains(ct.Raw(), []byte("Exits:")) {
		t.Errorf("the wrong password reached a character:\n%s", ct.Raw())
	}
}

// bannedFrom is an address the ban tests ban: a loopback address of its
// own, so the admin's (127.0.0.1) is not caught.
const bannedFrom = "127.0.0.2"

func dialerFrom(from string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
}

// sshGreeting is what the SSH port at addr writes to a client from
// bannedFrom before it closes or within a few seconds: a refusal before
// the handshake is the line alone, an SSH server's first line is its
// version.
func sshGreeting(t *testing.T, addr string) string {
	t.Helper()
	c, err := dialerFrom(bannedFrom).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	var got []byte
	buf := make([]byte, 512)
	for !bytes.Contains(got, []byte("\n")) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	return string(got)
}

// webRefusal is the answer of the web front at addr to a WebSocket upgrade
// from bannedFrom: its status and body.
func webRefusal(t *testing.T, addr string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+web.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Sec-WebSocket-Protocol", web.ProtoGMCP)
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialerFrom(bannedFrom).DialContext, DisableKeepAlives: true}}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// An address banned in the game is refused by the holder before any
// handshake, on each front, in the words a gate uses: SSH before its
// version line, telnet with the line and a close, a WebSocket upgrade with
// 503; at once after the admin's ban, while no game is linked during a
// reboot, and after it. A holder started afresh learns the bans from the
// game, and an unban lets the address in at once.
func TestCopyover_BannedAddressRefusedBeforeTheHandshake(t *testing.T) {
	h, telnetAddr, sock := startHolder(t)
	sshAddr, _ := startHolderSSH(t, h)
	webAddr := startHolderWeb(t, h)
	if c, err := dialerFrom(bannedFrom).Dial("tcp", sshAddr); err != nil {
		t.Skipf("this machine cannot dial from %s: %v", bannedFrom, err)
	} else {
		c.Close()
	}
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	first := servertest.Start(t, cfg)
	waitLinked(t, h)
	ada := servertest.Dial(t, telnetAddr)
	ada.Login("Ada", "secret-ada")
	if g := sshGreeting(t, sshAddr); !strings.HasPrefix(g, "SSH-2.0-") {
		t.Fatalf("before any ban the SSH port greets with %q", g)
	}

	const line = "Your address is banned from this world until"
	refused := func(when string) {
		t.Helper()
		if g := sshGreeting(t, sshAddr); !strings.HasPrefix(g, line) || !strings.Contains(g, "(spam)") || strings.Contains(g, "SSH-") {
			t.Errorf("%s: the SSH port said %q to a banned address", when, g)
		}
		c, err := dialerFrom(bannedFrom).Dial("tcp", telnetAddr)
		if err != nil {
			t.Fatal(err)
		}
		tc := servertest.Wrap(t, c)
		tc.Expect(line)
		if !tc.WaitClosed(30 * time.Second) {
			t.Errorf("%s: a banned address's telnet connection was kept", when)
		}
		if code, body := webRefusal(t, webAddr); code != http.StatusServiceUnavailable || !strings.Contains(body, line) {
			t.Errorf("%s: a banned address's upgrade got %d %q", when, code, body)
		}
	}
	ada.DoExpect("ban "+bannedFrom+" 7d spam", "Banned "+bannedFrom+"/32 until")
	refused("at once")
	second := swapGames(t, h, first, cfg, nil, func() { refused("while no game is linked") })
	refused("after the reboot")

	// A new holder in front of a new game on the same database.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := second.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h2, telnet2, sock2 := startHolder(t)
	ssh2, _ := startHolderSSH(t, h2)
	cfg.Server.HolderSocket = sock2
	servertest.Start(t, cfg)
	waitLinked(t, h2)
	from := &net.TCPAddr{IP: net.ParseIP(bannedFrom)}
	for deadline := time.Now().Add(30 * time.Second); h2.AddressRefused(from) == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a new holder never learned the game's bans")
		}
	}
	if g := sshGreeting(t, ssh2); !strings.HasPrefix(g, line) {
		t.Errorf("a new holder's SSH port said %q to a banned address", g)
	}
	ada = servertest.Dial(t, telnet2)
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("unban "+bannedFrom, "is lifted")
	if g := sshGreeting(t, ssh2); !strings.HasPrefix(g, "SSH-2.0-") {
		t.Errorf("after the unban the SSH port said %q", g)
	}

	// The first holder still has the ban; a game too old to keep it
	// current (a protocol version before Bans) makes it forget the list,
	// which that game would not update.
	if h.AddressRefused(from) == "" {
		t.Fatal("the first holder lost the ban with its game")
	}
	c, err := gate.DialHolder(sock, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, w := boundary.NewReader(c), boundary.NewWriter(c)
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFlush(&boundary.Welcome{Version: boundary.BansVersion - 1, Build: "old-game"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); h.AddressRefused(from) != ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a holder kept its ban list under a game that does not send one")
		}
	}
}

// A game with more address bans than one frame carries sends them in
// several, and the holder refuses every one of them.
func TestCopyover_ManyBansReachTheHolder(t *testing.T) {
	h, _, sock := startHolder(t)
	cfg := servertest.Config(t)
	cfg.Server.HolderSocket = sock
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	db, err := store.Open(filepath.Join(cfg.Server.DataDir, cfg.Store.File), cfg.Store)
	if err != nil {
		t.Fatal(err)
	}
	const n = boundary.MaxBans + 100
	for i := range n {
		b := store.Ban{Kind: store.BanAddress, Target: fmt.Sprintf("10.0.%d.%d/32", i/256, i%256), Reason: "bots", By: "ada", Created: time.Now().Unix()}
		if err := db.PutBan(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	servertest.Start(t, cfg)
	waitLinked(t, h)
	last := &net.TCPAddr{IP: net.IPv4(10, 0, byte((n-1)/256), byte((n-1)%256))}
	for deadline := time.Now().Add(30 * time.Second); h.AddressRefused(last) == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the holder never learned the game's last ban")
		}
	}
	for i := range n {
		a := &net.TCPAddr{IP: net.IPv4(10, 0, byte(i/256), byte(i%256))}
		if why := h.AddressRefused(a); why != "Your address is banned from this world (bots)." {
			t.Fatalf("%s: the holder says %q", a, why)
		}
	}
	if why := h.AddressRefused(&net.TCPAddr{IP: net.IPv4(10, 0, byte(n/256), byte(n%256))}); why != "" {
		t.Errorf("an address nobody banned is refused: %q", why)
	}
}
