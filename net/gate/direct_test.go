//go:build unix

package gate

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"zonemud/net/telnet"
)

// tcpSession is a session on one end of a loopback TCP connection, as the
// gate makes one for a telnet client, without a world. The other end is
// the client's.
func tcpSession(t *testing.T) (*Session, *Gate, *net.TCPConn, *net.TCPConn) {
	t.Helper()
	g := &Gate{cfg: DefaultConfig(), log: slog.New(slog.DiscardHandler)}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(g, 1)
	s.c = newTelnetConn(server, telnet.Config{MaxLine: 4096, MaxSubneg: 8192}, s.raw)
	t.Cleanup(func() {
		client.Close()
		server.Close()
		_ = g.gr.Wait(context.Background())
	})
	_ = client.SetDeadline(time.Now().Add(20 * time.Second)) // bounds a hang only
	return s, g, server.(*net.TCPConn), client.(*net.TCPConn)
}

// A burst for a telnet session on a TCP socket with no writer running is
// written by the goroutine that queued it, at once: no writer goroutine
// starts, and the session is left with none.
func TestWriter_BurstWrittenByTheCallerOnTCP(t *testing.T) {
	s, g, _, client := tcpSession(t)
	for i := range 3 {
		s.Write(fmt.Appendf(nil, "You say, 'hi %d'\n> ", i), true)
		got := readUntil(t, client, "\xff\xf9")
		if want := fmt.Sprintf("You say, 'hi %d'\r\n", i); !strings.Contains(got, want) {
			t.Fatalf("burst %d: got %q, want %q in it", i, got, want)
		}
		if s.writing.Load() {
			t.Fatalf("burst %d: the session still counts a writer running", i)
		}
	}
	if n := g.writersStarted.Load(); n != 0 {
		t.Fatalf("%d writer goroutines started for three bursts written at once, want none", n)
	}
	// A write that never waits needs no deadline: none is armed (each is
	// a timer in the runtime's heap, for every idle player).
	if !s.w.deadline.IsZero() {
		t.Fatalf("a write deadline is armed (%v) after bursts written at once", s.w.deadline)
	}
}

// What the socket does not take of a burst written by its caller is
// written by a writer goroutine, with nothing queued behind it to push it
// out, and before anything queued after it: a client that reads late gets
// every line, once, in order.
func TestWriter_WhatTheSocketDidNotTakeGoesFirst(t *testing.T) {
	s, g, server, client := tcpSession(t)
	_ = server.SetWriteBuffer(4096)
	_ = client.SetReadBuffer(4096)
	var big strings.Builder
	const lines = 4000
	for i := range lines {
		fmt.Fprintf(&big, "line %05d of the first burst\n", i)
	}
	s.Write([]byte(big.String()), false) // far more than the socket holds
	if !s.writing.Load() {
		t.Fatal("nothing left for a writer: the socket took the whole burst")
	}
	// All of it arrives with nothing queued behind it to push it out.
	got := readUntil(t, client, fmt.Sprintf("line %05d of the first burst\r\n", lines-1))
	s.Write([]byte("the second burst\n> "), true)
	got += readUntil(t, client, "\xff\xf9")
	want := strings.ReplaceAll(big.String(), "\n", "\r\n") + "the second burst\r\n"
	if !strings.HasPrefix(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("read %d bytes, differing from what was written at byte %d: %q", len(got), i, got[i:min(len(got), i+80)])
	}
	if n := g.writersStarted.Load(); n != 1 {
		t.Fatalf("%d writer goroutines started, want 1 for what the socket did not take", n)
	}
	// Once the writer is done, the next burst is written at once again.
	for s.writing.Load() {
		time.Sleep(time.Millisecond) // the writer's exit; bounded by the test's deadline
	}
	s.Write([]byte("the third\n> "), true)
	if got := readUntil(t, client, "\xff\xf9"); !strings.Contains(got, "the third\r\n") {
		t.Fatalf("got %q", got)
	}
	if n := g.writersStarted.Load(); n != 1 {
		t.Fatalf("%d writer goroutines started, want still 1", n)
	}
}

// The writer's write deadline goes with the writer: a client whose output
// a writer goroutine wrote once (it fell behind, or the socket was busy)
// and that then sat quiet for longer than the write timeout still gets its
// next line, written at once (a deadline left armed would have passed, and
// failed that write). The writer is started here for one short line, so
// that nothing in the test waits on how fast the machine writes.
func TestWriter_QuietAfterAWriterRanIsNotCut(t *testing.T) {
	s, g, _, client := tcpSession(t)
	g.cfg.WriteTimeoutSecs = 1
	if !s.writing.CompareAndSwap(false, true) {
		t.Fatal("a writer is running already")
	}
	s.hold(frameText, []byte("through a writer goroutine\n"))
	g.startWriter(s)
	readUntil(t, client, "through a writer goroutine\r\n")
	for s.writing.Load() {
		time.Sleep(time.Millisecond) // the writer's exit; bounded by the test's deadline
	}
	if n := g.writersStarted.Load(); n != 1 {
		t.Fatalf("%d writer goroutines started, want 1", n)
	}
	time.Sleep(time.Duration(g.cfg.WriteTimeoutSecs)*time.Second + 200*time.Millisecond)
	s.Write([]byte("still here\n> "), true)
	if got := readUntil(t, client, "\xff\xf9"); !strings.Contains(got, "still here\r\n") {
		t.Fatalf("got %q after a quiet spell", got)
	}
}

// A client on TCP that stops reading is cut at the write timeout: what
// the socket did not take of an inline burst goes to a writer goroutine,
// which arms the write deadline before it writes it (inline writes arm
// none), so the writer does not wait on the client for good.
func TestWriter_StoppedReaderOnTCPIsCutAtTheWriteTimeout(t *testing.T) {
	s, g, server, client := tcpSession(t)
	g.cfg.WriteTimeoutSecs = 1
	_ = server.SetWriteBuffer(65536)
	_ = client.SetReadBuffer(65536)
	var big strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&big, "line %04d of a burst the socket cannot hold\n", i)
	}
	s.Write([]byte(big.String()), false) // the client reads none of it
	if !s.writing.Load() {
		t.Fatal("nothing left for a writer: the socket took the whole burst")
	}
	select {
	case <-s.done:
	case <-time.After(20 * time.Second): // bounds a hang only
		t.Fatal("the connection is still open long after the write timeout")
	}
}

// A frame held for the next burst (GMCPBefore: a line's GMCP, the vitals
// at a prompt) is not written on its own: it waits, with no writer
// started, and goes out ahead of the Write that follows, in its burst.
func TestWriter_HeldFrameGoesWithTheNextWrite(t *testing.T) {
	s, g, _, client := tcpSession(t)
	frame := telnet.GMCPFrame("Comm.Channel.Text", []byte(`{"channel":"gossip","talker":"Aria","text":"hi"}`))
	s.hold(frameRaw, frame)
	if n := s.out.Len(); n == 0 || s.writing.Load() {
		t.Fatalf("after hold: %d bytes queued, writer running %v; want the frame waiting and no writer", n, s.writing.Load())
	}
	s.Write([]byte("[Gossip] Aria: hi\n> "), true)
	got := readUntil(t, client, "\xff\xf9")
	i, j := strings.Index(got, string(frame)), strings.Index(got, "[Gossip] Aria: hi\r\n")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("read %q; want the held frame, then the text", got)
	}
	if n := g.writersStarted.Load(); n != 0 {
		t.Fatalf("%d writer goroutines started; the burst should be written by its caller", n)
	}
}

// Which packages a client gets follows its Core.Supports messages, each
// answer kept only until the list changes: a package removed is no longer
// sent, one added is, and a parent covers its children.
func TestSession_GMCPWantsFollowTheClientsList(t *testing.T) {
	g := &Gate{cfg: DefaultConfig(), log: slog.New(slog.DiscardHandler)}
	s := newSession(g, 1)
	check := func(when string, want map[string]bool) {
		t.Helper()
		for pkg, w := range want {
			for range 2 { // the second answer is the kept one
				if got := s.wantsGMCP(pkg); got != w {
					t.Fatalf("%s: wants %s = %v, want %v", when, pkg, got, w)
				}
			}
		}
	}
	check("before any list", map[string]bool{"Char.Vitals": false})
	s.handleGMCP("Core.Supports.Set", []byte(`["Char 1", "Room 1"]`))
	check("after Set Char, Room", map[string]bool{"Char.Vitals": true, "Room.Info": true, "Comm.Channel.Text": false})
	s.handleGMCP("Core.Supports.Add", []byte(`["Comm 1"]`))
	check("after Add Comm", map[string]bool{"Char.Vitals": true, "Comm.Channel.Text": true})
	s.handleGMCP("Core.Supports.Remove", []byte(`["Char"]`))
	check("after Remove Char", map[string]bool{"Char.Vitals": false, "Room.Info": true, "Comm.Channel.Text": true})
	s.handleGMCP("Core.Supports.Set", []byte(`["Room.Info 1"]`))
	check("after Set Room.Info", map[string]bool{"Room.Info": true, "Room.Wrong": false, "Comm.Channel.Text": false})
}
