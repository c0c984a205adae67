package server_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// Bad input on one connection gets a refusal or a clean disconnect, and
// never affects anyone else: a bystander keeps getting answers throughout.
func TestBadInput_OneConnectionNeverHurtsAnother(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()
	by := servertest.Dial(t, addr)
	by.Create("Watcher", "watch-pass")
	n := 0
	alive := func(t *testing.T, step string) {
		t.Helper()
		n++
		want := fmt.Sprintf("You say, 'still here %d'", n)
		by.Send(fmt.Sprintf("say still here %d", n))
		if _, ok := by.Try(want, 15*time.Second); !ok {
			t.Fatalf("after %s the bystander got no answer", step)
		}
	}

	t.Run("line over the cap", func(t *testing.T) {
		c := servertest.Dial(t, addr)
		c.Create("Longline", "long-pass")
		c.Send(strings.Repeat("x", 10000))
		c.Expect("too long (more than 4096 bytes) and was ignored")
		c.Send("look")
		c.Expect("Exits:")
		alive(t, "a long line")
	})

	t.Run("binary garbage", func(t *testing.T) {
		c := servertest.Dial(t, addr)
		c.Create("Garbage", "garb-pass")
		rng := rand.New(rand.NewPCG(1, 2))
		junk := make([]byte, 64<<10)
		for i := range junk {
			junk[i] = byte(rng.UintN(256))
		}
		_ = c.Write(junk)
		// End whatever state the junk left the parser in, then talk.
		_ = c.Write([]byte{255, 240, '\r', '\n'})
		out, ok := c.Try("> ", 15*time.Second)
		if !ok && !c.WaitClosed(time.Second) {
			t.Fatalf("garbage neither answered nor disconnected: %q", out)
		}
		alive(t, "binary garbage")
	})

	t.Run("lone IAC", func(t *testing.T) {
		c := servertest.Dial(t, addr)
		c.Create("Loneiac", "lone-pass")
		_ = c.Write([]byte{255})
		c.Send("")
		c.Skip()
		c.Send("look")
		c.Expect("Exits:")
		alive(t, "a lone IAC")
	})

	t.Run("endless subnegotiation", func(t *testing.T) {
		c := servertest.Dial(t, addr)
		c.Create("Endless", "endl-pass")
		_ = c.Write([]byte{255, 250, 201})
		chunk := bytes.Repeat([]byte("Core.Hello {\"x\":1}"), 1000)
		for i := 0; i < 60; i++ { // about a megabyte, never closed
			if c.Write(chunk) != nil {
				break
			}
		}
		alive(t, "an endless subnegotiation")
		_ = c.Write([]byte{255, 240})
		c.Skip()
		c.Send("look")
		c.Expect("Exits:")
	})

	t.Run("control characters in speech reach no one raw", func(t *testing.T) {
		c := servertest.Dial(t, addr)
		c.Create("Escaper", "esc-pass")
		by.Skip()
		c.Send("say \x1b[2J\x1b]0;owned\x07 {R}red{x} hi")
		got := by.Expect("hi'")
		raw := by.Raw()
		if bytes.Contains(raw, []byte("\x1b[2J")) || bytes.Contains(raw, []byte("\x1b]0;")) {
			t.Fatalf("raw escape sequences reached another player: %q", got)
		}
		if !strings.Contains(got, "{R}red{x}") {
			t.Fatalf("markup typed by a player should show as typed, not colour: %q", got)
		}
	})
}

// Thousands of connections opened and dropped at once cost nothing lasting:
// the server stays up, a real player can still log in and play, and every
// connection is accounted for afterwards.
func TestBadInput_ManyConnectionsOpenedAndDropped(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()
	n := 10000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
		// Client and server ends share this process's descriptors.
		if max := int(lim.Cur)/2 - 500; max < n {
			n = max
		}
	}
	if testing.Short() {
		n = min(n, 1000)
	}
	t.Logf("opening %d connections at once", n)
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += 32 {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
					continue
				}
				conns[i] = c
			}
		}(w)
	}
	wg.Wait()
	if failed > n/10 {
		t.Fatalf("%d of %d connections failed", failed, n)
	}
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	p := servertest.Dial(t, addr)
	p.Create("Survivor", "surv-pass")
	if out := p.Do("look"); !strings.Contains(out, "Exits:") {
		t.Fatalf("server unusable after the flood: %q", out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for srv.Gate().Connections() > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after the flood was dropped", srv.Gate().Connections())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A client that never reads its output is cut off; it never slows the
// zone or anyone else.
func TestBadInput_ClientThatNeverReads(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.OutputLimitKiB = 16
	cfg.Gate.WriteTimeoutSecs = 2
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()

	// The sleeper logs in, then stops reading: its socket buffers fill and
	// its queue behind them.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	sl := servertest.Wrap(t, raw)
	sl.Create("Sleeper", "sleep-pass")
	sl.StopReading()

	talker := servertest.Dial(t, addr)
	talker.Create("Talker", "talk-pass")
	long := strings.Repeat("words ", 150)
	start := time.Now()
	for i := 0; srv.Gate().Connections() > 1; i++ {
		// Each say waits for its own echo: the talker is answered at
		// full speed the whole time the sleeper's output backs up.
		want := fmt.Sprintf("You say, '%d %s", i, long[:20])
		talker.Send(fmt.Sprintf("say %d %s", i, long))
		if _, ok := talker.Try(want, 15*time.Second); !ok {
			t.Fatalf("the talker stopped getting answers after %d says", i)
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("the sleeper was never cut off after %d says; %d connections open", i, srv.Gate().Connections())
		}
	}
	t.Logf("sleeper cut off after %v", time.Since(start))
	// The sleeper's character is link-dead now, not lost.
	talker.DoExpect("who", "Sleeper")
}

// Telnet streams built to hurt: each connection gets a clean refusal or
// disconnect, and a bystander is answered throughout.
func TestBadInput_HostileTelnetStreams(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()
	by := servertest.Dial(t, addr)
	by.Create("Observer", "obs-pass")
	n := 0
	alive := func(step string) {
		t.Helper()
		n++
		want := fmt.Sprintf("You say, 'still %d'", n)
		by.Send(fmt.Sprintf("say still %d", n))
		if _, ok := by.Try(want, 15*time.Second); !ok {
			t.Fatalf("after %s the bystander got no answer", step)
		}
	}
	const iac, sb, se = 255, 250, 240
	every := []byte{}
	for opt := 0; opt < 256; opt++ {
		every = append(every, iac, 251, byte(opt), iac, 253, byte(opt))
	}
	streams := map[string][]byte{
		"ends inside IAC SB":    {iac, sb, 31, 0, 80},
		"nested SB":             {iac, sb, 201, 'a', iac, sb, 201, 'b', iac, se, iac, se},
		"every option at once":  every,
		"NAWS 0x0":              {iac, 251, 31, iac, sb, 31, 0, 0, 0, 0, iac, se},
		"NAWS 65535x65535":      {iac, 251, 31, iac, sb, 31, 255, 255, 255, 255, 255, 255, 255, 255, iac, se},
		"TTYPE of 10 KB":        append(append([]byte{iac, 251, 24, iac, sb, 24, 0}, bytes.Repeat([]byte("X"), 10<<10)...), iac, se),
		"GMCP that is not JSON": append(append([]byte{iac, 253, 201, iac, sb, 201}, "Core.Supports.Set {{{not json"...), iac, se),
		// JSON nested as deep as a subnegotiation may carry: encoding/json
		// reads it in linear time and refuses it past 10,000 levels.
		"GMCP arrays nested 8,000 deep": append(append([]byte{iac, 253, 201, iac, sb, 201}, "Core.Supports.Set "+strings.Repeat("[", 8000)...), iac, se),
		"GMCP objects nested deep":      append(append([]byte{iac, 253, 201, iac, sb, 201}, "Core.Hello "+strings.Repeat(`{"a":`, 1600)...), iac, se),
		"lone IAC at the end":           {'l', 'o', 'o', 'k', iac},
		"IAC IAC in a name line":        {'A', iac, iac, 'b', '\r', '\n'},
	}
	for name, stream := range streams {
		c := servertest.Dial(t, addr)
		c.Expect("name")
		_ = c.Write(stream)
		_ = c.Write([]byte("\r\n"))
		if _, ok := c.Try("name", 15*time.Second); !ok && !c.WaitClosed(15*time.Second) {
			t.Fatalf("%s: neither a prompt nor a disconnect: %q", name, c.Since())
		}
		alive(name)
		c.Close()
	}
	// A client may still log in after a bad start.
	c := servertest.Dial(t, addr)
	_ = c.Write([]byte{iac, sb, 24, 1, 2, 3})
	_ = c.Write([]byte{iac, se})
	c.Create("Recovered", "recov-pass")
	if srv.World().Zone("emberfall").Faults() != 0 {
		t.Fatal("a hostile stream caused a fault")
	}
}
