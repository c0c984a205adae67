package main

import (
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// An admin's reboot saves everyone, stops, and starts the server again in
// the same process; the player logs back in where they stood. An admin's
// shutdown then stops it for good, with status 0.
func TestMain_RebootStartsAgainShutdownStops(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a reboot on Windows exits with status 75 for a supervisor to restart it")
	}
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[world]\nadmins = [\"Ada\"]\n")
	adminCreate(t, cfg, "Ada", "secret-ada")
	p := startProc(t, cfg, telnet)
	ada := servertest.Dial(t, telnet)
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("west", "Market Row")
	ada.DoExpect("reboot 1 fresh areas", "The world will reboot in 1 second")
	ada.Expect("It will be back a few seconds later")
	if !ada.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("the reboot did not close the connection")
	}
	// The process never ends: the same process serves again.
	var again *servertest.Client
	deadline := time.Now().Add(60 * time.Second)
	for again == nil {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("the process ended at the reboot: %v\n%s", err, p.out)
		default:
		}
		if c, err := dialOnce(telnet); err == nil {
			again = servertest.Wrap(t, c)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not come back after the reboot\n%s", p.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	again.Login("Ada", "secret-ada")
	again.DoExpect("look", "Market Row")
	if !strings.Contains(p.out.String(), "event=8123") {
		t.Errorf("the log does not say the countdown ended:\n%s", p.out)
	}

	again.DoExpect("shutdown 1", "The world will shut down in 1 second")
	select {
	case err := <-p.done:
		p.done <- nil
		if err != nil {
			t.Fatalf("exit after an admin's shutdown: %v\n%s", err, p.out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("still running a minute after an admin's shutdown\n%s", p.out)
	}
}

func dialOnce(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }
