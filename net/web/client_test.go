package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"zonemud/net/web"
	"zonemud/server/servertest"
)

// wsClient is a scripted client of gmcp.mudstandards.org: a reader keeps
// the text of every binary message (colour codes stripped) and every text
// message, and a test waits for what it expects.
type wsClient struct {
	t testing.TB
	c *websocket.Conn

	mu     sync.Mutex
	cond   *sync.Cond
	text   strings.Builder // binary messages, colour stripped
	mark   int
	gmcp   []string // text messages, in order
	gmark  int
	closed error // why the connection ended, once it has
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// dialWS opens a connection with the given subprotocols and headers; it
// fails the test if the upgrade fails.
func dialWS(t testing.TB, addr string, header http.Header, protos ...string) *websocket.Conn {
	t.Helper()
	c, resp, err := tryDial(addr, header, protos...)
	if err != nil {
		body := ""
		if resp != nil {
			body = resp.Status
		}
		t.Fatalf("dial %s: %v %s", addr, err, body)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

func tryDial(addr string, header http.Header, protos ...string) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	return websocket.Dial(ctx, "ws://"+addr+web.Path, &websocket.DialOptions{Subprotocols: protos, HTTPHeader: header})
}

// newGMCP dials addr on gmcp.mudstandards.org and starts reading.
func newGMCP(t testing.TB, addr string) *wsClient {
	t.Helper()
	return wrapWS(t, dialWS(t, addr, nil, web.ProtoGMCP))
}

func wrapWS(t testing.TB, c *websocket.Conn) *wsClient {
	w := &wsClient{t: t, c: c}
	w.cond = sync.NewCond(&w.mu)
	go w.read()
	return w
}

func (w *wsClient) read() {
	for {
		typ, p, err := w.c.Read(context.Background())
		w.mu.Lock()
		if err != nil {
			w.closed = err
			w.cond.Broadcast()
			w.mu.Unlock()
			return
		}
		if typ == websocket.MessageBinary {
			w.text.WriteString(strings.ReplaceAll(sgr.ReplaceAllString(string(p), ""), "\r\n", "\n"))
		} else {
			w.gmcp = append(w.gmcp, string(p))
		}
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// waitFor waits until ok, called under the lock, says yes, or the
// connection ends, or ExpectTimeout passes (a bound on a hang).
func (w *wsClient) waitFor(what string, ok func() bool) error {
	deadline := time.Now().Add(servertest.ExpectTimeout)
	timer := time.AfterFunc(servertest.ExpectTimeout, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	for !ok() {
		if w.closed != nil {
			return fmt.Errorf("connection closed (%v) waiting for %s; text since the last match:\n%s", w.closed, what, w.text.String()[w.mark:])
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s; text since the last match:\n%s", what, w.text.String()[w.mark:])
		}
		w.cond.Wait()
	}
	return nil
}

// Expect waits for want in the text since the last match and moves past it.
func (w *wsClient) Expect(want string) string {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var got string
	err := w.waitFor(fmt.Sprintf("%q", want), func() bool {
		s := w.text.String()[w.mark:]
		i := strings.Index(s, want)
		if i < 0 {
			return false
		}
		got = s[:i+len(want)]
		w.mark += i + len(want)
		return true
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return got
}

// ExpectGMCP waits for a text message whose package is pkg, after the last
// one matched, and returns its payload.
func (w *wsClient) ExpectGMCP(pkg string) string {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var got string
	err := w.waitFor("GMCP "+pkg, func() bool {
		for i := w.gmark; i < len(w.gmcp); i++ {
			p, data, _ := strings.Cut(w.gmcp[i], " ")
			if p == pkg {
				got, w.gmark = data, i+1
				return true
			}
		}
		return false
	})
	if err != nil {
		w.t.Fatalf("%v; text messages: %q", err, w.gmcp)
	}
	return got
}

// GMCP is every text message read so far.
func (w *wsClient) GMCP() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.gmcp...)
}

// WaitClosed waits for the connection to end and returns how.
func (w *wsClient) WaitClosed() error {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.waitFor("the close", func() bool { return w.closed != nil })
	if w.closed == nil {
		w.t.Fatal("the connection stayed open")
	}
	return w.closed
}

// Skip moves past all text read so far.
func (w *wsClient) Skip() {
	w.mu.Lock()
	w.mark = w.text.Len()
	w.mu.Unlock()
}

// Send sends a typed line as a binary message.
func (w *wsClient) Send(line string) {
	w.t.Helper()
	w.SendRaw(websocket.MessageBinary, []byte(line+"\n"))
}

// SendGMCP sends a text message.
func (w *wsClient) SendGMCP(msg string) {
	w.t.Helper()
	w.SendRaw(websocket.MessageText, []byte(msg))
}

func (w *wsClient) SendRaw(typ websocket.MessageType, p []byte) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.ExpectTimeout)
	defer cancel()
	if err := w.c.Write(ctx, typ, p); err != nil {
		w.t.Fatalf("send %q: %v", p, err)
	}
}

// DoExpect sends a command and waits for want.
func (w *wsClient) DoExpect(cmd, want string) string {
	w.t.Helper()
	w.Skip()
	w.Send(cmd)
	return w.Expect(want)
}

// Create makes a new character and waits for its first prompt in the
// world.
func (w *wsClient) Create(name, password string) {
	w.t.Helper()
	w.Expect("name")
	w.Send(name)
	w.Expect("(y/n)")
	w.Send("y")
	w.Expect("password")
	w.Send(password)
	w.Expect("again")
	w.Send(password)
	w.Expect("Exits:")
	w.Expect("> ")
}

// Login logs an existing character in.
func (w *wsClient) Login(name, password string) {
	w.t.Helper()
	w.Expect("name")
	w.Send(name)
	w.Expect("password")
	w.Send(password)
	w.Expect("Exits:")
	w.Expect("> ")
}

// token is the payload's token of a Client.Resume message.
func token(t testing.TB, payload string) string {
	t.Helper()
	const pre = `{"token":"`
	if !strings.HasPrefix(payload, pre) || !strings.HasSuffix(payload, `"}`) {
		t.Fatalf("Client.Resume payload %q", payload)
	}
	return payload[len(pre) : len(payload)-2]
}
