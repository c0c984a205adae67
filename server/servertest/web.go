package servertest

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// DialWeb opens a WebSocket to the web front at addr (host:port) on the
// gmcp.mudstandards.org subprotocol, as the page does, and makes a Client
// of it: Send types a line (one binary message), Expect reads the game's
// text, and each GMCP message (a text message) reads as a line
// "<GMCP Package json>".
func DialWeb(t testing.TB, addr string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{Subprotocols: []string{"gmcp.mudstandards.org"}})
	if err != nil {
		t.Fatalf("WebSocket to %s: %v", addr, err)
	}
	c.SetReadLimit(1 << 20)
	return Wrap(t, &wsStream{c: c, addr: addr})
}

// SendGMCP sends a GMCP message (a text message) on a Client made by
// DialWeb.
func (c *Client) SendGMCP(pkg, json string) {
	c.t.Helper()
	ws, ok := c.conn.(*wsStream)
	if !ok {
		c.t.Fatal("SendGMCP on a client that is not a WebSocket")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ws.c.Write(ctx, websocket.MessageText, []byte(pkg+" "+json)); err != nil {
		c.t.Fatalf("GMCP %s: %v", pkg, err)
	}
}

// wsStream is a WebSocket as a net.Conn, for Wrap.
type wsStream struct {
	c    *websocket.Conn
	addr string
	rest []byte // reader only: what is left of the last message
	once sync.Once
}

func (s *wsStream) Read(p []byte) (int, error) {
	for len(s.rest) == 0 {
		typ, msg, err := s.c.Read(context.Background())
		if err != nil {
			return 0, err
		}
		if typ == websocket.MessageText {
			msg = append(append([]byte("<GMCP "), msg...), '>', '\n')
		}
		s.rest = msg
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *wsStream) Write(p []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.c.Write(ctx, websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (s *wsStream) Close() error {
	s.once.Do(func() { _ = s.c.CloseNow() })
	return nil
}
func (s *wsStream) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (s *wsStream) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (s *wsStream) SetDeadline(time.Time) error      { return nil }
func (s *wsStream) SetReadDeadline(time.Time) error  { return nil }
func (s *wsStream) SetWriteDeadline(time.Time) error { return nil }
