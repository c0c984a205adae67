package web_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"zonemud/net/web"
	"zonemud/server/servertest"
)

// dialFrom opens a gmcp connection from a local address of its own
// (127.0.0.2 and the like), or skips the test where the machine cannot.
func dialFrom(t *testing.T, from, addr string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	if c, err := d.Dial("tcp", addr); err != nil {
		t.Skipf("this machine cannot dial from %s: %v", from, err)
	} else {
		c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	return websocket.Dial(ctx, "ws://"+addr+web.Path, &websocket.DialOptions{
		Subprotocols: []string{web.ProtoGMCP},
		HTTPClient:   &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}},
	})
}

// A ban by address reaches the web front as it does telnet: the web
// player it catches is told and closed, and a new upgrade from the
// address is refused before it is one (503, saying so); a ban by name
// refuses that character's login over the web.
func TestBan_WebPlayers(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	c, _, err := dialFrom(t, "127.0.0.2", srv.WebAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	bob := wrapWS(t, c)
	bob.Create("Bob", "secret-bob")
	carl := newGMCP(t, srv.WebAddr())
	carl.Create("Carl", "secret-carl")

	ada.DoExpect("ban 127.0.0.2 7d bots", "Banned 127.0.0.2/32 until")
	bob.Expect("You are banned from this world until")
	if err := bob.WaitClosed(); err == nil {
		t.Fatal("the banned web player's connection did not end")
	}
	_, resp, err := dialFrom(t, "127.0.0.2", srv.WebAddr())
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("an upgrade from the banned address: %v %v, want 503", err, resp)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "banned") {
		t.Fatalf("the refusal says %q", b)
	}

	carl.Send("quit")
	carl.Expect("Farewell")
	ada.DoExpect("ban carl 2h cheating", "Banned Carl until")
	again := newGMCP(t, srv.WebAddr())
	again.Expect("name")
	again.Send("Carl")
	again.Expect("banned")
	// Everyone else plays on.
	ada.DoExpect("look", "Exits:")
}

// A login from telnet as a character a web page is playing takes it
// over: the page is told and closed normally (1000, nothing to resume),
// and the telnet player is in the character where it stood.
func TestTakeover_WebByTelnet(t *testing.T) {
	srv := servertest.Start(t, nil)
	w := newGMCP(t, srv.WebAddr())
	w.Create("Tilly", "secret-tilly")
	w.DoExpect("north", "Exits:")
	w.Skip()
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("name")
	tel.Send("Tilly")
	tel.Expect("password")
	tel.Send("secret-tilly")
	tel.Expect("Exits:")
	w.Expect("another connection")
	if err := w.WaitClosed(); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("the page taken over closed with %v, want a normal close", err)
	}
	tel.DoExpect("south", "Exits:")
}

// upgradeRaw makes a WebSocket upgrade by hand on a plain socket and
// returns the socket once the 101 is read: from then on nothing reads it,
// so pings go unanswered.
func upgradeRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c := rawDial(t, addr)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
		web.Path, addr, web.ProtoGMCP)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("the upgrade: %s", resp.Status)
	}
	return c
}

// A connection that never answers a ping is closed after the next round
// (web.ping_secs), long before the login's own timeout; a client that
// reads (and so answers) stays through the same rounds and plays on.
func TestPing_UnansweredIsClosed(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.PingSecs = 10            // a pong has ten seconds even on a loaded machine
	cfg.Gate.LoginTimeoutSecs = 3600 // only the pings can close the silent one
	srv := servertest.Start(t, cfg)
	live := newGMCP(t, srv.WebAddr())
	live.Expect("name")
	silent := upgradeRaw(t, srv.WebAddr())
	readToEnd(t, silent) // the bytes only: no frame is parsed, no pong sent
	live.Send("Pingo")
	live.Expect("(y/n)")
}

// With web.tls the page and its WebSocket are served over TLS (https://,
// wss://) with the TLS port's certificate; plain HTTP to it gets nothing.
func TestTLS_HTTPSAndWSS(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.TLS = true
	srv := servertest.Start(t, cfg)
	if !strings.HasPrefix(srv.WebURL(), "https://") {
		t.Fatalf("the URL logged is %q, want https://", srv.WebURL())
	}
	hc := &http.Client{
		Timeout: servertest.ExpectTimeout,
		// The self-signed pair the server made in its data_dir.
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	resp, err := hc.Get("https://" + srv.WebAddr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Fatalf("the page over https: %s", resp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "wss://"+srv.WebAddr()+web.Path, &websocket.DialOptions{
		Subprotocols: []string{web.ProtoGMCP}, HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	w := wrapWS(t, c)
	w.Create("Secura", "secret-secura")
	plain := &http.Client{Timeout: servertest.ExpectTimeout}
	if resp, err := plain.Get("http://" + srv.WebAddr() + "/"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP to the TLS listener served the page")
		}
	}
}

// A web login is counted under its own front in the metrics, beside
// telnet's.
func TestMetrics_WebFront(t *testing.T) {
	srv := servertest.Start(t, nil)
	w := newGMCP(t, srv.WebAddr())
	w.Create("Metra", "secret-metra")
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Create("Telly", "secret-telly")
	resp, err := (&http.Client{Timeout: servertest.ExpectTimeout}).Get("http://" + srv.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`zonemud_logins_total{front="web"} 1`, `zonemud_logins_total{front="telnet"} 1`} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("the metrics lack %s", want)
		}
	}
	if !strings.Contains(string(b), `zonemud_sessions{client="web",front="web"} 1`) && !strings.Contains(string(b), `zonemud_sessions{front="web",client="web"} 1`) {
		t.Errorf("the metrics count no web session:\n%s", grepLines(string(b), "zonemud_sessions"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The login throttle holds over the web as over telnet: wrong passwords
// end the connection, and an address past max_login_failures is shut out
// of the web front (503, saying why) and of telnet alike.
func TestLoginThrottle_OverWeb(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	cfg.Gate.MaxBadPasswords = 2
	cfg.Gate.MaxLoginFailures = 2
	srv := servertest.Start(t, cfg)
	c, _, err := dialFrom(t, "127.0.0.2", srv.WebAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	w := wrapWS(t, c)
	w.Create("Thrott", "secret-thrott")
	w.Send("quit")
	w.Expect("Farewell")

	c, _, err = dialFrom(t, "127.0.0.2", srv.WebAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	w = wrapWS(t, c)
	w.Expect("name")
	w.Send("Thrott")
	for range 2 {
		w.Expect("password")
		w.Send("not-the-password")
	}
	w.Expect("Too many wrong passwords")
	w.WaitClosed()
	var resp *http.Response
	for deadline := time.Now().Add(hangBound); ; {
		var c *websocket.Conn
		c, resp, err = dialFrom(t, "127.0.0.2", srv.WebAddr())
		if err != nil {
			break
		}
		// The failures may still be on their way to the throttle.
		_ = c.CloseNow()
		if time.Now().After(deadline) {
			t.Fatal("the address was never shut out")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("an upgrade from the shut-out address: %v %v, want 503", err, resp)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "Too many failed logins") {
		t.Fatalf("the refusal says %q", b)
	}
	// Another address plays on.
	other := newGMCP(t, srv.WebAddr())
	other.Expect("name")
}
