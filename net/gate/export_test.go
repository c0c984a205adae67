package gate

import "net"

// Overflows is how many times a session's output queue overflowed, for
// tests that must know a session was closed that way.
func (g *Gate) Overflows() uint64 { return g.overflows.Load() }

// AdmitForTest admits a connection from addr as an accept loop does, and
// returns the refusal, or "" and the release of the admitted connection.
func (g *Gate) AdmitForTest(addr net.Addr) (why string, release func()) {
	if why := g.admit(addr); why != "" {
		return why, nil
	}
	return "", func() {
		g.conns.Add(-1)
		g.byIP.Done(g.ipKey(addr))
	}
}

// IPKeyForTest is the key the per-address limits count addr under.
func (g *Gate) IPKeyForTest(addr net.Addr) string { return g.ipKey(addr) }

// NewForTest is a gate with cfg and no world, for its pure parts.
func NewForTest(cfg Config) *Gate { return &Gate{cfg: cfg} }
