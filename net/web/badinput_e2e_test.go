package web_test

import (
	"bytes"
	"context"
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

// A message over max_message_kib closes that connection (1009); a message
// in fragments under the limit is one message; nobody else is affected.
func TestMessage_OverTheLimitAndFragmented(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Web.MaxMessageKiB = 4
	srv := servertest.Start(t, cfg)
	other := newGMCP(t, srv.WebAddr())
	other.Create("Bystander", "bystander-pass")

	w := newGMCP(t, srv.WebAddr())
	w.Create("Fragment", "fragment-pass")
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	wr, err := w.c.Writer(ctx, websocket.MessageBinary)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"sa", "y in ", "pieces\n"} {
		if _, err := wr.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	w.Expect("You say, 'in pieces'")

	w.SendRaw(websocket.MessageBinary, bytes.Repeat([]byte("a"), 5<<10))
	if err := w.WaitClosed(); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("a 5 KiB message closed the connection with %v, want 1009", err)
	}
	other.DoExpect("look", "Exits:")
}

// What a page types is text, whatever its bytes: telnet's IAC sequences,
// invalid UTF-8 and an escape reach the game as text (U+FFFD for the
// each run of bytes that are not UTF-8; control characters dropped), never as telnet
// commands or colour, and a telnet player in the room sees text.
func TestTyped_IACAndGarbageAreText(t *testing.T) {
	srv := servertest.Start(t, nil)
	tp := servertest.Dial(t, srv.TelnetAddr())
	tp.Create("Listener", "listener-pass")
	w := newGMCP(t, srv.WebAddr())
	w.Create("Typist", "typist-pass")

	tp.Skip()
	w.Skip()
	before := len(tp.Raw())
	// IAC WILL ECHO, IAC SB ... IAC SE, an escape, a lone 0xFE.
	w.SendRaw(websocket.MessageBinary, []byte("say a\xff\xfb\x01b\xff\xfa\x18\x01\xff\xf0c\x1b[31md\xfee\n"))
	got := w.Expect("e'")
	if !strings.Contains(got, "You say, 'a\uFFFDb\uFFFD\uFFFDc[31md\uFFFDe'") {
		t.Fatalf("the typed bytes came back as %q", got)
	}
	tp.Expect("Typist says, 'a")
	tp.Expect("e'")
	heard := tp.Raw()[before:]
	for _, cmd := range [][]byte{{255, 251, 1}, {255, 250}, {0x1b, '[', '3', '1'}} {
		if bytes.Contains(heard, cmd) {
			t.Fatalf("the telnet player got % x from what was typed: % x", cmd, heard)
		}
	}
	// A character that is not ASCII but is UTF-8 arrives as it is.
	w.DoExpect("say \u00ff caf\u00e9", "You say, '\u00ff caf\u00e9'")
	// Binary garbage is a line of nonsense, and the session goes on.
	w.SendRaw(websocket.MessageBinary, []byte{0x00, 0xff, 0x80, 0x81, 0x07, 0xc3})
	w.DoExpect("look", "Exits:")
}

// GMCP from the client that does not read (bad JSON, not UTF-8, no
// package) is ignored, and the session goes on answering GMCP and
// commands.
func TestGMCP_BadMessagesFromTheClient(t *testing.T) {
	srv := servertest.Start(t, nil)
	w := newGMCP(t, srv.WebAddr())
	w.Create("Garbler", "garbler-pass")
	for _, m := range [][]byte{
		[]byte("Core.Supports.Set [not json"),
		[]byte(`Core.Supports.Set {"a":1}`),
		[]byte("Char.Vitals {"),
		[]byte("Core.Hello \xff\xfe"),
		[]byte("\xff\xfe\xfd"),
		[]byte(""),
		[]byte(" leading space"),
		[]byte(`Client.Size {"width":"wide"}`),
		[]byte(`Client.Resume {"token":"late"}`),
		bytes.Repeat([]byte("P"), 200),
	} {
		w.SendRaw(websocket.MessageText, m)
	}
	w.SendGMCP("Core.Ping")
	w.ExpectGMCP("Core.Ping")
	w.DoExpect("look", "Exits:")
	// A good Core.Supports still works after the bad ones.
	w.SendGMCP(`Core.Supports.Set ["Room 1"]`)
	w.Send("look")
	w.ExpectGMCP("Room.Info")
}

// A client that never reads its output is cut when its queue fills; its
// character goes link-dead, and the player beside it is not held up.
func TestClientThatNeverReads_IsCut(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.OutputLimitKiB = 16
	cfg.Gate.WriteTimeoutSecs = 600 // the overflow, not the write timeout, cuts it
	srv := servertest.Start(t, cfg)

	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096) // fills sooner
		}
		return c, err
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+srv.WebAddr()+web.Path, &websocket.DialOptions{HTTPClient: hc, Subprotocols: []string{web.ProtoGMCP}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	// The login read in step, then no more reads.
	var seen strings.Builder
	readUntil := func(want string) {
		t.Helper()
		for !strings.Contains(seen.String(), want) {
			typ, p, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %q: %v; got %q", want, err, seen.String())
			}
			if typ == websocket.MessageBinary {
				seen.Write(p)
			}
		}
		seen.Reset()
	}
	send := func(line string) {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageBinary, []byte(line+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	readUntil("name")
	send("Sleeper")
	readUntil("(y/n)")
	send("y")
	readUntil("password")
	send("sleeper-pass")
	readUntil("again")
	send("sleeper-pass")
	readUntil("Exits:")

	talk := servertest.Dial(t, srv.TelnetAddr())
	talk.Create("Talker", "talker-pass")
	long := strings.Repeat("chatter ", 110)
	for i := 0; srv.Gate().Connections() > 1; i++ {
		for j := range 4 {
			talk.Send(fmt.Sprintf("say %d.%d %s", i, j, long))
		}
		talk.Expect(fmt.Sprintf("You say, '%d.3 ", i))
		if i > 2000 {
			t.Fatal("the sleeper was never cut")
		}
	}
	deadline := time.Now().Add(servertest.ExpectTimeout)
	for {
		out := talk.DoExpect("who", "in the world.")
		if strings.Contains(out, "Sleeper") && strings.Contains(out, "(link-dead)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Sleeper is not link-dead after the cut:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Connections from one address meet the per-address cap, web and telnet
// together; the refused upgrade gets the reason (503) before it is an
// upgrade, and a freed place can be taken again.
func TestPerAddressLimit(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	cfg.Gate.MaxConnsPerIP = 3
	srv := servertest.Start(t, cfg)
	var open []*wsClient
	for range 2 {
		w := newGMCP(t, srv.WebAddr())
		w.Expect("name")
		open = append(open, w)
	}
	tel := servertest.Dial(t, srv.TelnetAddr())
	tel.Expect("name")
	for i := range 20 { // an upgrade flood from one address
		_, resp, err := tryDial(srv.WebAddr(), nil, web.ProtoGMCP)
		if err == nil {
			t.Fatalf("upgrade %d past the cap was let in", i)
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("upgrade %d past the cap: %v, want 503", i, resp)
		}
		if i == 0 {
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), "Too many connections") {
				t.Fatalf("the refusal says %q", b)
			}
		}
	}
	refused := servertest.Dial(t, srv.TelnetAddr())
	refused.Expect("Too many connections")
	if n := srv.Gate().Connections(); n != 3 {
		t.Fatalf("%d connections counted, want 3", n)
	}
	_ = open[0].c.CloseNow()
	open[0].WaitClosed()
	for deadline := time.Now().Add(servertest.ExpectTimeout); srv.Gate().Connections() != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still counted after one closed", srv.Gate().Connections())
		}
		time.Sleep(20 * time.Millisecond)
	}
	w := newGMCP(t, srv.WebAddr())
	w.Expect("name")
}
