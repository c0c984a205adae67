package gate

// Overflows is how many times a session's output queue overflowed, for
// tests that must know a session was closed that way.
func (g *Gate) Overflows() uint64 { return g.overflows.Load() }
