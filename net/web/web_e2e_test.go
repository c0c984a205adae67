package web_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"zonemud/net/web"
	"zonemud/server/servertest"
)

// The gmcp subprotocol: negotiated by name, the login dialogue as on
// telnet with the password question between Client.Echo off and on, GMCP
// both ways as "Package json" text messages, and a resume token once in
// the world.
func TestGMCP_LoginAndFrames(t *testing.T) {
	srv := servertest.Start(t, nil)
	c := dialWS(t, srv.WebAddr(), nil, "chat.example", web.ProtoGMCP)
	if got := c.Subprotocol(); got != web.ProtoGMCP {
		t.Fatalf("negotiated %q, want %s", got, web.ProtoGMCP)
	}
	w := wrapWS(t, c)
	w.SendGMCP(`Core.Hello {"client":"test","version":"1"}`)
	w.SendGMCP(`Core.Supports.Set ["Char 1","Room 1"]`)
	w.Create("Webby", "webby-pass")
	msgs := strings.Join(w.GMCP(), "\n")
	off, on := strings.Index(msgs, `Client.Echo {"on":false}`), strings.Index(msgs, `Client.Echo {"on":true}`)
	if off < 0 || on < off {
		t.Fatalf("want Client.Echo off then on around the password; text messages:\n%s", msgs)
	}
	if tok := token(t, w.ExpectGMCP("Client.Resume")); len(tok) < 40 {
		t.Fatalf("a resume token of %d characters", len(tok))
	}
	w.Skip()
	w.Send("look")
	w.Expect("Exits:")
	if info := w.ExpectGMCP("Room.Info"); !strings.Contains(info, `"exits"`) && !strings.Contains(info, `"name"`) {
		t.Fatalf("Room.Info payload %q", info)
	}
	// The client's GMCP reaches the gate: Core.Ping is answered.
	w.SendGMCP("Core.Ping")
	w.ExpectGMCP("Core.Ping")
	// The session is counted under its own front.
	found := false
	for _, si := range srv.Gate().Sessions() {
		if si.Name == "Webby" {
			found = si.Front == "web" && si.Client == "web"
		}
	}
	if !found {
		t.Fatalf("Webby's session is not front web, client web: %+v", srv.Gate().Sessions())
	}
	w.Send("quit")
	w.Expect("Farewell")
	if err := w.WaitClosed(); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("quit closed the connection with %v, want a normal close", err)
	}
}

// The telnet subprotocol carries the telnet stream exactly as the telnet
// port does: the server's option offers come first, and a scripted telnet
// client plays through it.
func TestTelnet_Stream(t *testing.T) {
	srv := servertest.Start(t, nil)
	c := dialWS(t, srv.WebAddr(), nil, web.ProtoTelnet)
	if got := c.Subprotocol(); got != web.ProtoTelnet {
		t.Fatalf("negotiated %q, want %s", got, web.ProtoTelnet)
	}
	nc := websocket.NetConn(context.Background(), c, websocket.MessageBinary)
	p := servertest.Wrap(t, nc)
	p.Create("Tunnel", "tunnel-pass")
	raw := p.Raw()
	for _, want := range [][]byte{{255, 251, 201}, {255, 253, 31}, {255, 253, 24}} { // WILL GMCP, DO NAWS, DO TTYPE
		if !bytes.Contains(raw, want) {
			t.Fatalf("the stream lacks the telnet negotiation % x; got % x", want, raw[:min(len(raw), 64)])
		}
	}
	p.DoExpect("look", "Exits:")
	for _, si := range srv.Gate().Sessions() {
		if si.Name == "Tunnel" && si.Front != "web" {
			t.Fatalf("the telnet-over-WebSocket session is front %q, want web", si.Front)
		}
	}
	p.Quit()
}

// A telnet player and a web player in one room each see the other speak.
func TestTelnetAndWebPlayers_SeeEachOther(t *testing.T) {
	srv := servertest.Start(t, nil)
	tp := servertest.Dial(t, srv.TelnetAddr())
	tp.Create("Telly", "telly-pass")
	wp := newGMCP(t, srv.WebAddr())
	wp.Create("Browsa", "browsa-pass")
	tp.DoExpect("look", "Browsa")
	wp.DoExpect("look", "Telly")

	tp.Send("say hello from the terminal")
	wp.Expect("Telly says, 'hello from the terminal'")
	wp.Send("say hello from the browser")
	tp.Expect("Browsa says, 'hello from the browser'")
}

// A request that is not a WebSocket gets a line saying what the address
// is; one that offers neither subprotocol is refused before the upgrade;
// the page is served at /.
func TestRefusals_BeforeTheUpgrade(t *testing.T) {
	srv := servertest.Start(t, nil)
	base := "http://" + srv.WebAddr()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(web.Path); code != http.StatusUpgradeRequired || !strings.Contains(body, "WebSocket") {
		t.Fatalf("GET /ws without an upgrade: %d %q", code, body)
	}
	if code, body := get("/"); code != http.StatusOK || !strings.Contains(body, "<html") {
		t.Fatalf("GET /: %d %q", code, body)
	}
	_, resp, err := tryDial(srv.WebAddr(), nil, "chat.example")
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a dial with no known subprotocol: err %v, resp %v", err, resp)
	}
	if n := srv.Gate().Connections(); n != 0 {
		t.Fatalf("%d connections counted after refusals", n)
	}
}

// A page from another site is refused; one the allow-list names, or the
// page's own host, is let in.
func TestOrigin_AllowList(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.Origins = []string{"play.example.org"}
	srv := servertest.Start(t, cfg)
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"http://evil.example.com", false},
		{"https://play.example.org.evil.example.com", false},
		{"https://play.example.org", true},
		{"http://" + srv.WebAddr(), true},
	} {
		c, resp, err := tryDial(srv.WebAddr(), http.Header{"Origin": {tc.origin}}, web.ProtoGMCP)
		switch {
		case tc.ok && err != nil:
			t.Errorf("Origin %s refused: %v", tc.origin, err)
		case !tc.ok && err == nil:
			t.Errorf("Origin %s let in", tc.origin)
		case !tc.ok && (resp == nil || resp.StatusCode != http.StatusForbidden):
			t.Errorf("Origin %s: %v, want 403", tc.origin, resp)
		}
		if c != nil {
			w := wrapWS(t, c)
			w.Expect("name")
			_ = c.CloseNow()
		}
	}
}
