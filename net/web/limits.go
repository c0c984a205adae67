package web

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"zonemud/internal/logev"
)

// The listener's own bounds, beside the gate's: open TCP connections per
// address (capListener) and upgrades per address per minute (bucket). Both
// count the gate's address key, so an IPv6 /64 counts once and loopback
// is exempt as the gate's limits exempt it.

// maxTracked bounds the rate limiter's memory whatever an attacker sends.
const maxTracked = 100000

// bucket is a token bucket per address key: burst tokens, refilled evenly
// over per.
type bucket struct {
	burst float64
	per   time.Duration
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*tokens // guarded by mu
}

type tokens struct {
	n    float64
	last time.Time
}

func newBucket(burst int, per time.Duration, now func() time.Time) *bucket {
	return &bucket{burst: float64(burst), per: per, now: now, m: map[string]*tokens{}}
}

// take spends a token of key and returns 0, or returns how long until
// one is there ("" is exempt).
func (b *bucket) take(key string) time.Duration {
	if key == "" {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	rate := b.burst / float64(b.per) // tokens a nanosecond
	t := b.m[key]
	if t == nil {
		if len(b.m) >= maxTracked {
			b.prune(now, rate)
		}
		t = &tokens{n: b.burst, last: now}
		b.m[key] = t
	}
	t.n = min(b.burst, t.n+float64(now.Sub(t.last))*rate)
	t.last = now
	if t.n < 1 {
		return time.Duration((1 - t.n) / rate)
	}
	t.n--
	return 0
}

// prune forgets the keys whose bucket is full again (they owe nothing),
// and if that frees nothing, all of them: memory stays bounded and the
// worst an attacker gains is a fresh bucket.
func (b *bucket) prune(now time.Time, rate float64) {
	for k, t := range b.m {
		if t.n+float64(now.Sub(t.last))*rate >= b.burst {
			delete(b.m, k)
		}
	}
	if len(b.m) >= maxTracked {
		clear(b.m)
	}
}

// busy is the answer to a connection past the per-address cap, so the
// client reads a status, not a hang.
var busy = func() []byte {
	const body = "Too many connections from your address; please close one and try again.\n"
	return []byte("HTTP/1.1 503 Service Unavailable\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"Connection: close\r\n" +
		"Retry-After: 10\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"\r\n" + body)
}()

// capListener holds each address to MaxConnsPerIP open connections. A
// connection is counted from its accept until it is closed, by the HTTP
// server or, once upgraded, by its session.
type capListener struct {
	net.Listener
	s     *Server
	plain bool // no TLS under it: a refusal can be a readable 503
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := l.s.g.AddressKey(c.RemoteAddr())
		if l.s.open.Add(key, l.s.cfg.MaxConnsPerIP) {
			return &countedConn{Conn: c, done: func() { l.s.open.Done(key) }}, nil
		}
		l.s.log.Debug("web: a connection past the address's cap was refused", logev.ID(5003), logev.Remote(c.RemoteAddr().String()))
		go l.refuse(c)
	}
}

// refuseWait bounds how long a refused connection is read for its
// request, and maxRefusing how many are read at once: past it, a refused
// connection is closed without an answer.
const (
	refuseWait  = 2 * time.Second
	maxRefusing = 256
)

// refuse answers a connection past the cap and closes it, off the accept
// loop. The 503 goes out once the request's header is in (within
// refuseWait): an answer written before the request would reach an HTTP
// client as an unsolicited response on a connection it has not used yet,
// which it drops, and its request on that connection would then fail
// with no status. A connection that sends no header in time is closed
// unanswered.
func (l *capListener) refuse(c net.Conn) {
	defer c.Close()
	if !l.plain {
		return
	}
	select {
	case l.s.refusing <- struct{}{}:
		defer func() { <-l.s.refusing }()
	default:
		return
	}
	_ = c.SetDeadline(time.Now().Add(refuseWait))
	if !readHeader(c, 64<<10) {
		return
	}
	_, _ = c.Write(busy)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	// What else the client sent is read and dropped before the close: a
	// close with unread bytes is a reset, which can reach the client
	// before the status does.
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// readHeader reads c until the blank line that ends a request's header,
// at most limit bytes; it reports whether it saw one.
func readHeader(c net.Conn, limit int) bool {
	br := bufio.NewReaderSize(io.LimitReader(c, int64(limit)), 1024)
	partial := false // the last read ended inside a long line
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			partial = true
			continue
		case err != nil:
			return false
		}
		if !partial && len(bytes.TrimRight(line, "\r\n")) == 0 {
			return true
		}
		partial = false
	}
}

// countedConn gives back its place once, at its first Close.
type countedConn struct {
	net.Conn
	once sync.Once
	done func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.done)
	return err
}
