package web

import (
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

// perAddr counts open connections by address key.
type perAddr struct {
	mu sync.Mutex
	n  map[string]int // guarded by mu
}

func (p *perAddr) add(key string, limit int) bool {
	if key == "" {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[key] >= limit {
		return false
	}
	p.n[key]++
	return true
}

func (p *perAddr) done(key string) {
	if key == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[key] <= 1 {
		delete(p.n, key)
	} else {
		p.n[key]--
	}
}

// busy is the answer to a connection past the per-address cap: written
// before anything is read, so the client reads a status, not a hang.
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
		if l.s.open.add(key, l.s.cfg.MaxConnsPerIP) {
			return &countedConn{Conn: c, done: func() { l.s.open.done(key) }}, nil
		}
		l.s.log.Debug("web: a connection past the address's cap was refused", logev.ID(5003), logev.Remote(c.RemoteAddr().String()))
		go refuse(c, l.plain)
	}
}

// refuse answers a connection past the cap and closes it, off the accept
// loop: a client that never reads holds nothing but this goroutine, for a
// couple of seconds at most.
func refuse(c net.Conn, plain bool) {
	if plain {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write(busy)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		// What the client sent is read and dropped before the close: a
		// close with unread bytes is a reset, which can reach the client
		// before the status does.
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}
	_ = c.Close()
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
