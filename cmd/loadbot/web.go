package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The web front's path and the subprotocol the built-in page speaks
// (net/web): typed text and game text in binary messages, GMCP in text
// messages, which a bot does not read.
const (
	webPath  = "/ws"
	webProto = "gmcp.mudstandards.org"
)

// webReadLimit bounds one message from the server: a look in a room of a
// thousand players is long, but not this long.
const webReadLimit = 4 << 20

// wsLink is a web bot's link: a WebSocket on gmcp.mudstandards.org, as the
// built-in page opens it. Reads return the game text of binary messages
// (UTF-8 with ANSI colour, no telnet bytes: a prompt is a message that
// does not end its line, so the bot finds it by its "> " as over SSH);
// text messages (GMCP) are dropped.
type wsLink struct {
	c       *websocket.Conn
	pending []byte // reader only: the rest of the last binary message

	mu    sync.Mutex
	timer *time.Timer // guarded by mu: closes the link at the deadline
	once  sync.Once
}

// dialWeb opens a WebSocket to addr's web front, bounded by deadline.
func dialWeb(ctx context.Context, addr string, deadline time.Time) (*wsLink, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	d := &net.Dialer{}
	c, _, err := websocket.Dial(ctx, "ws://"+addr+webPath, &websocket.DialOptions{
		Subprotocols: []string{webProto},
		// One connection per bot, never shared, as a browser tab's.
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}},
	})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(webReadLimit)
	return &wsLink{c: c}, nil
}

func (l *wsLink) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		typ, msg, err := l.c.Read(context.Background())
		if err != nil {
			return 0, err
		}
		if typ == websocket.MessageBinary {
			l.pending = msg
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// Write sends p as one binary message: one or more typed lines.
func (l *wsLink) Write(p []byte) (int, error) {
	if err := l.c.Write(context.Background(), websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (l *wsLink) Close() error {
	l.once.Do(func() {
		l.mu.Lock()
		if l.timer != nil {
			l.timer.Stop()
		}
		l.mu.Unlock()
		_ = l.c.CloseNow()
	})
	return nil
}

// SetDeadline closes the link at t: a WebSocket read cut short by its
// context closes the connection anyway, so this is the honest bound.
func (l *wsLink) SetDeadline(t time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if !t.IsZero() {
		l.timer = time.AfterFunc(time.Until(t), func() { l.Close() })
	}
	return nil
}

// SetReadDeadline is ignored, as on SSH: reads end when the link closes.
func (l *wsLink) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline bounds a write only by closing the link (quit's use).
func (l *wsLink) SetWriteDeadline(t time.Time) error { return l.SetDeadline(t) }
