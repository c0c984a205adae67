//go:build unix

package gate

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// readLines runs readEach on s's connection until want lines have come,
// sending each line's text on got.
func readLines(s *Session, want int, got chan<- string) (stopped bool, err error) {
	n := 0
	return s.c.(*telnetConn).readEach(func(ev *event) bool {
		if ev.kind != evLine {
			return false
		}
		got <- ev.text
		n++
		return n == want
	})
}

// In play a telnet session on TCP is read without the read that finds the
// socket empty; every line still arrives, whether it was waiting before
// play began, came alone after a wait, came right behind another in a
// packet of its own, came cut in two, or came in a burst bigger than one
// read takes.
func TestReadEach_EveryLineArrives(t *testing.T) {
	s, _, _, client := tcpSession(t)
	if !s.c.(*telnetConn).readsEach() {
		t.Fatal("a telnet session on TCP does not read in play through readEach")
	}
	var want []string
	send := func(p string) {
		t.Helper()
		if _, err := io.WriteString(client, p); err != nil {
			t.Fatal(err)
		}
	}
	// Waiting before play begins.
	send("before one\r\nbefore two\r\n")
	want = append(want, "before one", "before two")
	// A burst of several reads' worth.
	var burst strings.Builder
	for i := range 200 {
		fmt.Fprintf(&burst, "burst line %03d of a burst bigger than one read\r\n", i)
		want = append(want, fmt.Sprintf("burst line %03d of a burst bigger than one read", i))
	}
	got := make(chan string, 1000)
	done := make(chan error, 1)
	go func() {
		stopped, err := readLines(s, len(want)+400, got) // the burst and what follows: 100 rounds of 4 lines
		if !stopped && err == nil {
			err = errors.New("readEach ended neither stopped nor with an error")
		}
		done <- err
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l := <-got: // a line sent before the last one stopped it
			return l
		default:
		}
		select {
		case l := <-got:
			return l
		case err := <-done:
			t.Fatalf("%s: reading ended: %v", what, err)
		case <-time.After(20 * time.Second): // bounds a hang only
			t.Fatalf("%s: no line came", what)
		}
		return ""
	}
	for i := range 2 {
		if l := next("waiting before play"); l != want[i] {
			t.Fatalf("got %q, want %q", l, want[i])
		}
	}
	send(burst.String())
	for i := 2; i < len(want); i++ {
		if l := next("the burst"); l != want[i] {
			t.Fatalf("got %q, want %q", l, want[i])
		}
	}
	// One at a time, each after the last was read, as a player types;
	// pairs in packets of their own, back to back; lines cut in two.
	for i := range 100 {
		send(fmt.Sprintf("alone %d\r\n", i))
		if l, w := next("a lone line"), fmt.Sprintf("alone %d", i); l != w {
			t.Fatalf("got %q, want %q", l, w)
		}
		send(fmt.Sprintf("first of pair %d\r\n", i))
		send(fmt.Sprintf("second of pair %d\r\n", i))
		for _, w := range []string{fmt.Sprintf("first of pair %d", i), fmt.Sprintf("second of pair %d", i)} {
			if l := next("a pair"); l != w {
				t.Fatalf("got %q, want %q", l, w)
			}
		}
		send(fmt.Sprintf("cut %d in", i))
		time.Sleep(time.Millisecond / 4) // so the halves tend to arrive apart; any order of arrival must do
		send(" two\r\n")
		if l, w := next("a line cut in two"), fmt.Sprintf("cut %d in two", i); l != w {
			t.Fatalf("got %q, want %q", l, w)
		}
	}
	// The last line stopped it: it says so, with no error.
	if err := <-done; err != nil {
		t.Fatalf("reading ended with %v after handle stopped it", err)
	}
}

// The client's end of the connection ends readEach with an error (not a
// stop), after the lines it sent; so does the server closing the
// connection while readEach waits.
func TestReadEach_EndsWithTheConnection(t *testing.T) {
	for _, who := range []string{"client", "server"} {
		t.Run(who, func(t *testing.T) {
			s, _, server, client := tcpSession(t)
			got := make(chan string, 10)
			done := make(chan error, 1)
			go func() {
				stopped, err := readLines(s, 100, got)
				if stopped {
					err = errors.New("stopped")
				}
				done <- err
			}()
			if _, err := io.WriteString(client, "last words\r\n"); err != nil {
				t.Fatal(err)
			}
			if l := <-got; l != "last words" {
				t.Fatalf("got %q", l)
			}
			if who == "client" {
				client.Close()
			} else {
				server.Close()
			}
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("readEach ended with no error")
				}
			case <-time.After(20 * time.Second): // bounds a hang only
				t.Fatal("readEach did not end when the connection did")
			}
		})
	}
}
