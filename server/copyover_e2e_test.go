package server_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/net/gate"
	"zonemud/server/servertest"
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
	sock = filepath.Join(t.TempDir(), "holder.sock")
	h = gate.NewHolder(cfg, "holder-test", nil)
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

	done := h.Swap("test")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the game did not let go of its sessions")
	}
	var flood strings.Builder
	for i := range 400 {
		fmt.Fprintf(&flood, "say flood %d\r\n", i)
	}
	if err := cy.Write([]byte(flood.String())); err != nil {
		t.Fatal(err)
	}
	cy.Expect("lines typed past this one are dropped")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	servertest.Start(t, cfg)
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
