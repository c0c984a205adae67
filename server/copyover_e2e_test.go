package server_test

import (
	"context"
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
	sock = filepath.Join(t.TempDir(), "holder.sock")
	h = gate.NewHolder(gate.DefaultConfig(), "holder-test", nil)
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
