package gate

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// Abuse limits: connections per address; a login throttle per address
// whose delay grows with each failure and decays with time, and which
// shuts the address out at max_login_failures; and a cap on password tries
// per account (accounts.go). Every password or key try, by telnet, TLS or
// SSH, goes through one decision (startTry) before any hash is computed.

// maxTracked bounds the throttle's memory whatever an attacker sends.
const maxTracked = 100000

// ipKey is the address a limit counts under: an IPv4 address, or the
// IPv6 block of ipv6_prefix bits (a /64 by default) it lies in, since one
// subscriber is handed a whole /64 and could otherwise be a fresh address
// to every per-address limit 2^64 times over. Every limit that counts an
// address (connections, the shut-out, the clean-address allowance of the
// account cap, the mint rate) counts this key. Loopback is exempt unless
// the admin says otherwise: a proxy in front (or the load tool) makes
// every player look like 127.0.0.1.
func (g *Gate) ipKey(addr net.Addr) string { return ipKey(g.cfg, addr) }

// ipKey is the key the per-address limits of cfg count addr under.
func ipKey(cfg Config, addr net.Addr) string {
	var ip netip.Addr
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	default:
		ap, err := netip.ParseAddrPort(addr.String())
		if err != nil {
			return addr.String()
		}
		ip = ap.Addr()
	}
	if !ip.IsValid() {
		return addr.String()
	}
	ip = ip.Unmap()
	if ip.IsLoopback() && !cfg.LimitLoopback {
		return ""
	}
	return addrKey(ip, cfg.IPv6Prefix)
}

// addrKey is ip as the per-address limits count it: itself for IPv4, its
// block of bits for IPv6 (ip already unmapped).
func addrKey(ip netip.Addr, bits int) string {
	if ip.Is4() || bits <= 0 || bits >= 128 {
		return ip.String()
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		return ip.String()
	}
	return p.String()
}

// AddrCount counts open connections by address key (Gate.AddressKey): the
// gate's, the holder's and the web listener's per-address caps. The zero
// value is ready; an empty key is never counted or refused.
type AddrCount struct {
	mu sync.Mutex
	n  map[string]int // guarded by mu
}

// Add counts one more connection of key unless key already has limit.
func (p *AddrCount) Add(key string, limit int) bool {
	if key == "" {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == nil {
		p.n = map[string]int{}
	}
	if p.n[key] >= limit {
		return false
	}
	p.n[key]++
	return true
}

// Done ends one connection of key that Add counted.
func (p *AddrCount) Done(key string) {
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

// throttle remembers login failures by key (an address or an account).
type throttle struct {
	mu sync.Mutex
	m  map[string]*strikes // guarded by mu
}

type strikes struct {
	n    float64
	last time.Time
}

// halfLife is how fast failures are forgiven.
const halfLife = 5 * time.Minute

func (t *throttle) decayed(s *strikes, now time.Time) float64 {
	age := now.Sub(s.last)
	n := s.n
	for age >= halfLife && n > 0.01 {
		n /= 2
		age -= halfLife
	}
	return n
}

// count is the failures still held against key.
func (t *throttle) count(key string) float64 {
	if key == "" {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.m[key]
	if s == nil {
		return 0
	}
	return t.decayed(s, time.Now())
}

// fail records a failure against key and returns the failures held
// against it before this one: one step, so two tries at once from one
// address cannot both find it clean.
func (t *throttle) fail(key string) (before float64) {
	if key == "" {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.m == nil {
		t.m = map[string]*strikes{}
	}
	if len(t.m) >= maxTracked {
		for k, s := range t.m {
			if t.decayed(s, now) < 1 {
				delete(t.m, k)
			}
		}
		if len(t.m) >= maxTracked {
			return float64(maxTracked) // memory stays bounded; such an address is never clean
		}
	}
	s := t.m[key]
	if s == nil {
		s = &strikes{}
		t.m[key] = s
	}
	before = t.decayed(s, now)
	s.n = before + 1
	s.last = now
	return before
}

// refund takes back one failure recorded against key: a try is counted
// as failed when it starts, so parallel tries from one address see each
// other, and refunded if it succeeds.
func (t *throttle) refund(key string) {
	if key == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.m[key]; s != nil {
		now := time.Now()
		s.n = max(0, t.decayed(s, now)-1)
		s.last = now
	}
}

// delayFor is how long to wait before answering a password attempt: nothing
// for the first few failures, then doubling, up to 8 seconds.
func delayFor(n float64) time.Duration {
	if n < 3 {
		return 0
	}
	d := 250 * time.Millisecond
	for i := 3.0; i < n && d < 8*time.Second; i++ {
		d *= 2
	}
	return min(d, 8*time.Second)
}
