package web_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"zonemud/net/web"
	"zonemud/server/servertest"
)

// hangBound is how long a test waits for the server to act before it
// calls the server hung: generous, for a loaded machine; the server's own
// bounds in these tests are a second.
const hangBound = 60 * time.Second

// readToEnd reads c until the server ends it and returns what it sent;
// it fails the test if the server neither closes nor resets it within
// hangBound.
func readToEnd(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(hangBound))
	var b strings.Builder
	_, err := io.Copy(&b, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server still held the connection after %v; it sent %q", hangBound, b.String())
	}
	return b.String()
}

func rawDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, servertest.ExpectTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// An upgrade whose header trickles in (slowloris) is dropped when
// web.header_secs runs out, however long the whole-request bound is, and
// a kept-alive connection with no request in it is closed after
// web.idle_secs; the game goes on for everyone else.
func TestSlowHeader_IsDropped(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.HeaderSecs = 1
	cfg.Web.ReadSecs = 3600 // so only the header's bound can drop it
	cfg.Web.IdleSecs = 1
	srv := servertest.Start(t, cfg)

	c := rawDial(t, srv.WebAddr())
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n", web.Path, srv.WebAddr())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // one header line every 100 ms, never the blank line
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := fmt.Fprintf(c, "X-Slow-%d: a\r\n", i); err != nil {
				return
			}
		}
	}()
	if got := readToEnd(t, c); strings.Contains(got, "101") {
		t.Fatalf("a header that never ended was upgraded: %q", got)
	}
	close(stop)
	wg.Wait()

	// Idle: a page load kept alive, then nothing.
	k := rawDial(t, srv.WebAddr())
	fmt.Fprintf(k, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", srv.WebAddr())
	resp, err := http.ReadResponse(bufio.NewReader(k), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("the page: %s (close %v), want 200 kept alive", resp.Status, resp.Close)
	}
	readToEnd(t, k)

	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("name")
	w := newGMCP(t, srv.WebAddr())
	w.Expect("name")
}

// A header over web.max_header_kib is refused with 431, not read on.
func TestHeaderOverTheLimit_Is431(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.MaxHeaderKiB = 1
	srv := servertest.Start(t, cfg)
	c := rawDial(t, srv.WebAddr())
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\n\r\n", web.Path, srv.WebAddr(), strings.Repeat("a", 16<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("a 16 KiB header over a 1 KiB limit: %s, want 431", resp.Status)
	}
}

// An upgrade flood from one address meets web.upgrades_per_min: past the
// bucket, 429 with Retry-After, at once and for every one of them; the
// refused ones hold no place at the gate, the connections already open
// stay, and the address can still load the page and play over telnet.
func TestUpgradeFlood_Is429(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	// One a minute: the bucket fills again only a minute on, far longer
	// than the flood takes even on a loaded machine.
	cfg.Web.UpgradesPerMin = 1
	cfg.Web.MaxConnsPerIP = 1000 // the listener's cap is the next test's
	srv := servertest.Start(t, cfg)
	open := []*wsClient{newGMCP(t, srv.WebAddr())}
	open[0].Expect("name")
	const flood = 200
	codes := make([]int, flood)
	retry := make([]string, flood)
	var wg sync.WaitGroup
	for i := range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, resp, err := tryDial(srv.WebAddr(), nil, web.ProtoGMCP)
			if err == nil {
				_ = c.CloseNow()
				codes[i] = http.StatusSwitchingProtocols
				return
			}
			if resp != nil {
				codes[i], retry[i] = resp.StatusCode, resp.Header.Get("Retry-After")
			}
		}()
	}
	wg.Wait()
	for i := range flood {
		if codes[i] != http.StatusTooManyRequests {
			t.Fatalf("upgrade %d of the flood: status %d, want 429", i, codes[i])
		}
		if n, err := strconv.Atoi(retry[i]); err != nil || n < 1 || n > 60 {
			t.Fatalf("upgrade %d of the flood: Retry-After %q, want 1 to 60 seconds", i, retry[i])
		}
	}
	if n := srv.Gate().Connections(); n != 1 {
		t.Fatalf("%d connections counted at the gate after the flood, want the one open", n)
	}
	for _, w := range open {
		w.Send("")
		w.Expect("name")
	}
	resp, err := http.Get("http://" + srv.WebAddr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the page during the flood: %s", resp.Status)
	}
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("name")
}

// One address holds at most web.max_conns_per_ip TCP connections to the
// web listener, open requests and WebSockets together: one past it is
// answered 503 as soon as its request is in (no hang) and closed, a
// WebSocket dial past it reads 503 too, and a freed place can be taken.
func TestConnsPerAddress_AtTheListener(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	cfg.Web.MaxConnsPerIP = 3
	cfg.Web.HeaderSecs = 600 // the idle connections below stay unless the cap is wrong
	srv := servertest.Start(t, cfg)

	ws := newGMCP(t, srv.WebAddr())
	ws.Expect("name")
	idle := []net.Conn{rawDial(t, srv.WebAddr()), rawDial(t, srv.WebAddr())}
	// The two idle ones hold their places once the server has taken
	// them: a page load now is the fourth.
	var got string
	for deadline := time.Now().Add(hangBound); ; {
		c := rawDial(t, srv.WebAddr())
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", srv.WebAddr())
		got = readToEnd(t, c)
		if strings.HasPrefix(got, "HTTP/1.1 503") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a fourth connection was never refused; it read %q", got)
		}
	}
	if !strings.Contains(got, "Too many connections") || !strings.Contains(got, "Retry-After:") {
		t.Fatalf("the refusal reads %q", got)
	}
	_, resp, err := tryDial(srv.WebAddr(), nil, web.ProtoGMCP)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a WebSocket past the cap: %v %v, want 503", err, resp)
	}
	ws.Send("")
	ws.Expect("name")
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("name")

	_ = idle[0].Close()
	for deadline := time.Now().Add(hangBound); ; {
		c, resp, err := tryDial(srv.WebAddr(), nil, web.ProtoGMCP)
		if err == nil {
			_ = c.CloseNow()
			break
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after one closed: %v %v", err, resp)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A thousand WebSockets asked for from one address, fifty at a time,
// with the shipped limits: the gate's max_conns_per_ip are let in, every
// other one is refused at once with 429 or 503 (none hangs, none is
// upgraded past the caps), and a player from another address still gets
// in.
func TestThousandWebSocketsFromOneAddress(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	srv := servertest.Start(t, cfg)
	const n, at = 1000, 50
	var (
		mu      sync.Mutex
		codes   = map[int]int{}
		open    []*websocket.Conn
		sem     = make(chan struct{}, at)
		wg      sync.WaitGroup
		refused int
	)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, resp, err := tryDial(srv.WebAddr(), nil, web.ProtoGMCP)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				open = append(open, c)
			case resp != nil:
				codes[resp.StatusCode]++
				refused++
			default:
				codes[0]++
			}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range open {
			_ = c.CloseNow()
		}
	})
	if len(open) != cfg.Gate.MaxConnsPerIP {
		t.Errorf("%d upgraded, want the gate's cap of %d", len(open), cfg.Gate.MaxConnsPerIP)
	}
	if refused+len(open) != n || codes[http.StatusTooManyRequests]+codes[http.StatusServiceUnavailable] != refused {
		t.Errorf("of %d: %d upgraded, refusals by status %v (0: no answer)", n, len(open), codes)
	}
	if codes[http.StatusTooManyRequests] == 0 {
		t.Errorf("the upgrade rate never refused one: %v", codes)
	}
	other, _, err := dialFrom(t, "127.0.0.2", srv.WebAddr())
	if err != nil {
		t.Fatalf("a player from another address: %v", err)
	}
	t.Cleanup(func() { _ = other.CloseNow() })
	wrapWS(t, other).Expect("name")
	// The cap is the gate's, shared with telnet: loopback's telnet is
	// refused with the reason, not hung.
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("Too many connections")
}
