package gate

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/net/telnet"
)

// pipeSession is a session on one end of an in-memory connection, as the
// gate makes one for a telnet client, without a world: enough for its
// writer. The other end is the client's.
func pipeSession(t *testing.T, cfg Config) (*Session, net.Conn) {
	t.Helper()
	g := &Gate{cfg: cfg, log: slog.New(slog.DiscardHandler)}
	server, client := net.Pipe()
	s := newSession(g, 1)
	s.c = newTelnetConn(server, telnet.Config{MaxLine: 4096, MaxSubneg: 8192}, s.raw)
	t.Cleanup(func() {
		client.Close()
		server.Close()
		_ = g.gr.Wait(context.Background())
	})
	return s, client
}

// readUntil reads from c until want has arrived and returns everything read.
func readUntil(t *testing.T, c net.Conn, want string) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(want)) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read %q, then %v; waiting for %q", got, err, want)
		}
	}
	return string(got)
}

// A burst of output queued faster than the writer takes it arrives in
// order, whole, in one write, with one prompt after it.
func TestWriter_BurstInOrderWithOnePrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, client := pipeSession(t, DefaultConfig())
		// Queue while a writer is "running", so that the next one takes
		// all of it at once, as a writer that fell behind does.
		s.writing.Store(true)
		for i := 1; i <= 5; i++ {
			line := "Bob says, '" + strings.Repeat("x", i) + "'\n> "
			if !s.Write([]byte(line), true) {
				t.Fatalf("Write %d refused", i)
			}
		}
		s.writing.Store(false)
		s.kick()
		want := "Bob says, 'x'\r\nBob says, 'xx'\r\nBob says, 'xxx'\r\nBob says, 'xxxx'\r\nBob says, 'xxxxx'\r\n\r\n> \xff\xf9"
		got := readUntil(t, client, "\xff\xf9")
		if got != want {
			t.Fatalf("the burst arrived as\n%q\nwant\n%q", got, want)
		}
		synctest.Wait()
		if bursts, lines := s.g.Output(); bursts != 1 || lines != 5 {
			t.Fatalf("%d bursts and %d lines, want 1 and 5", bursts, lines)
		}
		// The next line, with nobody having typed, starts on a fresh line
		// after the prompt.
		s.Write([]byte("Ann waves.\n> "), true)
		if got, want := readUntil(t, client, "\xff\xf9"), "\r\nAnn waves.\r\n\r\n> \xff\xf9"; got != want {
			t.Fatalf("after the prompt: %q, want %q", got, want)
		}
		// After the player typed a line, the answer needs no fresh line.
		s.typed.Store(true)
		s.Write([]byte("You wave.\n> "), true)
		if got, want := readUntil(t, client, "\xff\xf9"), "You wave.\r\n\r\n> \xff\xf9"; got != want {
			t.Fatalf("the answer to a typed line: %q, want %q", got, want)
		}
	})
}

// A lone reply goes out as soon as it is queued: no timer stands between a
// command's answer and the player. In the bubble the clock only moves when
// every goroutine waits, so a reply that waited on a timer would show as
// time passed.
func TestWriter_LoneReplyAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, client := pipeSession(t, DefaultConfig())
		start := time.Now()
		s.Write([]byte("You say, 'hi'\n> "), true)
		got := readUntil(t, client, "\xff\xf9")
		if !strings.HasPrefix(got, "You say, 'hi'\r\n") {
			t.Fatalf("got %q", got)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("the reply took %v of the clock: it waited for a timer", d)
		}
		synctest.Wait()
		if s.writing.Load() {
			t.Fatal("a writer goroutine is still running with nothing queued")
		}
	})
}

// A client that stops reading, with less queued than the output limit, is
// disconnected once a write has waited the write timeout.
func TestWriter_StoppedReaderIsCutAtTheWriteTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.WriteTimeoutSecs = 30
		s, client := pipeSession(t, cfg)
		start := time.Now()
		// The client reads nothing; a pipe holds nothing unread, so the
		// write blocks.
		s.Write([]byte("You say, 'hi'\n> "), true)
		synctest.Wait()
		select {
		case <-s.done:
			t.Fatal("the connection closed before the write timeout")
		default:
		}
		time.Sleep(time.Duration(cfg.WriteTimeoutSecs) * time.Second)
		synctest.Wait()
		select {
		case <-s.done:
		default:
			t.Fatal("the connection is still open after the write timeout")
		}
		if time.Since(start) > time.Duration(cfg.WriteTimeoutSecs)*time.Second {
			t.Fatalf("cut after %v, want within the write timeout %ds", time.Since(start), cfg.WriteTimeoutSecs)
		}
		if _, err := io.ReadAll(client); err != nil {
			t.Fatalf("reading what was left: %v", err)
		}
	})
}

// A client that stops reading while output keeps coming is cut the moment
// its queue passes the output limit, not a write timeout later, and
// nothing that queues output for it waits meanwhile: Write returns at
// once and the queue stops at its limit.
func TestWriter_OverflowCutsAtOnceWithoutStallingWriters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.OutputLimitKiB = 16
		cfg.WriteTimeoutSecs = 30
		s, client := pipeSession(t, cfg)
		start := time.Now()
		line := []byte(strings.Repeat("y", 99) + "\n> ")
		writes := 0
		for s.Write(line, true) {
			writes++
			if writes > 1000 {
				t.Fatal("the queue never filled")
			}
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("queueing output for a stuck client took %v", d)
		}
		if !s.Closed() {
			t.Fatal("an overflowing session is not closed")
		}
		s.Write(line, true) // more after the cut: refused, not counted again
		if s.g.Overflows() != 1 {
			t.Fatalf("overflows %d, want 1", s.g.Overflows())
		}
		synctest.Wait()
		select {
		case <-s.done:
		default:
			t.Fatal("an overflowing connection is still open; it waits for the write timeout")
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("cut after %v of the clock, want at once", d)
		}
		if _, err := io.ReadAll(client); err != nil {
			t.Fatalf("reading what was left: %v", err)
		}
	})
}

// A writer that emptied one session's queue serves the next session that
// writes instead of a new goroutine starting, and goes home when nothing
// comes within writerIdle, or when the gate is waited for at shutdown.
func TestWriter_IdleWriterServesTheNextSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := New(nil, DefaultConfig(), slog.New(slog.DiscardHandler))
		g.met = nil // sessions of no front: nothing to count
		var sess []*Session
		var clients []net.Conn
		for i := range 3 {
			server, client := net.Pipe()
			s := newSession(g, uint64(i+1))
			s.c = newTelnetConn(server, telnet.Config{MaxLine: 4096, MaxSubneg: 8192}, s.raw)
			sess, clients = append(sess, s), append(clients, client)
			defer server.Close()
			defer client.Close()
		}
		write := func(i int) {
			sess[i].Write([]byte("You say, 'hi'\n> "), true)
			readUntil(t, clients[i], "\xff\xf9")
			synctest.Wait()
		}
		write(0)
		write(1)
		write(2)
		if n := g.writersStarted.Load(); n != 1 {
			t.Fatalf("%d writer goroutines started for three bursts one after another, want 1", n)
		}
		if n := g.idleN.Load(); n != 1 {
			t.Fatalf("%d writers waiting, want 1", n)
		}
		time.Sleep(writerIdle + time.Millisecond)
		synctest.Wait()
		if n := g.idleN.Load(); n != 0 {
			t.Fatalf("%d writers still waiting after writerIdle", n)
		}
		write(0) // a new goroutine, which Wait sends home
		if n := g.writersStarted.Load(); n != 2 {
			t.Fatalf("%d writer goroutines started, want 2", n)
		}
		if err := g.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := g.idleN.Load(); n != 0 {
			t.Fatalf("%d writers waiting after Wait", n)
		}
	})
}
