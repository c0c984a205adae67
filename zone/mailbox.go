package zone

import "sync"

// mailbox is the zone's unbounded queue for traffic from other zones and
// from the world. A push never blocks, so two zones sending to each other
// can never deadlock the way two full channels would. The zone drains it
// whole on every wake-up and before every inbox message, which keeps
// causal order: anything pushed before a session was pointed at this zone
// is handled before that session's next input.
type mailbox struct {
	mu     sync.Mutex
	q      []msg         // guarded by mu
	spare  []msg         // guarded by mu: the drained slice, reused
	signal chan struct{} // capacity 1: something is queued
	closed bool          // guarded by mu: the zone has stopped taking mail
}

func newMailbox() mailbox {
	return mailbox{signal: make(chan struct{}, 1)}
}

// push queues m and wakes the zone. It reports false, queueing nothing,
// once the zone has stopped: a sender handing over a character must then
// keep it. Safe for concurrent use.
func (b *mailbox) push(m msg) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.q = append(b.q, m)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
	return true
}

// close refuses every later push, and returns what was still queued.
func (b *mailbox) close() []msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	q := b.q
	b.q = nil
	return q
}

// take returns everything queued; the caller hands the slice back with
// recycle once it has handled it.
func (b *mailbox) take() []msg {
	b.mu.Lock()
	q := b.q
	b.q = b.spare[:0]
	b.spare = nil
	b.mu.Unlock()
	return q
}

func (b *mailbox) recycle(q []msg) {
	clear(q)
	if cap(q) > 1024 {
		return // let a burst's big slice go
	}
	b.mu.Lock()
	if b.spare == nil {
		b.spare = q[:0]
	}
	b.mu.Unlock()
}

func (b *mailbox) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}
