package server_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// A client that sends its last line and closes its side at once (the line
// and the FIN together, as `nc -N` or a script does) is seen to go: the
// line is done and the character goes link-dead, though the client still
// reads and so no write to it ever fails. A reader that took a short read
// for an empty socket would wait for good.
func TestHalfClose_LastLineThenGoneIsSeen(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()
	a := servertest.Dial(t, addr)
	a.Create("Aria", "aria-pass")
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := servertest.Wrap(t, raw)
	c.Create("Cade", "cade-pass")
	a.Expect("Cade has entered the world.")
	for round := range 5 {
		if round > 0 { // again, from a fresh login
			raw, err = net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			c = servertest.Wrap(t, raw)
			c.Login("Cade", "cade-pass")
		}
		a.Skip()
		if err := c.Write([]byte("say so long\r\n")); err != nil {
			t.Fatal(err)
		}
		if err := raw.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		a.Expect("Cade says, 'so long'")
		deadline := time.Now().Add(30 * time.Second) // bounds a hang only
		for {
			out := a.DoExpect("who", "in the world")
			if strings.Contains(out, "Cade") && strings.Contains(out, "(link-dead)") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: Cade not shown link-dead after the last line and a close: %q", round, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
		raw.Close()
	}
}
