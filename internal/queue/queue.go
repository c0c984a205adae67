// Package queue is the one queue between goroutines that the server uses
// where a channel does not fit: many producers, one consumer, pushes that
// never block, and a consumer that takes everything queued at once.
//
// A zone's mailbox (other zones and the world writing to a zone), a
// session's output (zones writing to a connection) and the saver's work
// list are all this type. It follows the ipQueue of nats-server: a slice
// under a mutex, a capacity-1 signal channel that a consumer selects on,
// and the drained slice handed back for reuse so that steady traffic
// allocates nothing.
//
// Goroutines: any number may push; one consumer pops. The package starts
// none.
package queue

import (
	"errors"
	"sync"
)

var (
	// ErrClosed is returned by a push to a closed queue.
	ErrClosed = errors.New("queue: closed")
	// ErrFull is returned by a push that would pass the queue's limit.
	ErrFull = errors.New("queue: full")
)

// Options are a queue's limits. The zero value is an unbounded queue that
// keeps drained slices of any size for reuse.
type Options[T any] struct {
	// Limit is the most elements the queue holds; a push past it fails
	// with ErrFull and queues nothing. 0 is no limit.
	Limit int
	// KeepCap is the largest capacity of a drained slice kept for reuse;
	// a bigger one (a burst's) is let go, so an idle queue stays small.
	// 0 keeps any; a negative value keeps none.
	KeepCap int
	// Pool, if set, is where drained slices go instead, shared with other
	// queues: an empty queue then holds no slice at all, and takes one
	// from the pool when something is pushed.
	Pool *Pool[T]
}

// Pool shares drained slices between queues. The zero value is ready.
type Pool[T any] struct {
	p sync.Pool
	// holders are the emptied *[]T that slices went into the pool in:
	// one is reused for the next put, so a put allocates nothing.
	holders sync.Pool
	// MaxCap is the largest capacity kept; 0 keeps any.
	MaxCap int
}

func (p *Pool[T]) get() []T {
	v, ok := p.p.Get().(*[]T)
	if !ok {
		return nil
	}
	s := (*v)[:0]
	*v = nil
	p.holders.Put(v)
	return s
}

func (p *Pool[T]) put(s []T) {
	if cap(s) == 0 || (p.MaxCap > 0 && cap(s) > p.MaxCap) {
		return
	}
	h, _ := p.holders.Get().(*[]T)
	if h == nil {
		h = new([]T)
	}
	*h = s[:0]
	p.p.Put(h)
}

// Queue is a multi-producer, single-consumer queue of T.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T  // guarded by mu
	spare  []T  // guarded by mu: a drained slice handed back by Recycle
	closed bool // guarded by mu

	signal chan struct{} // capacity 1: something was queued since the last receive
	opt    Options[T]    // immutable after New
}

// New returns an empty queue.
func New[T any](opt Options[T]) *Queue[T] {
	return &Queue[T]{signal: make(chan struct{}, 1), opt: opt}
}

// Push queues v. It never blocks. It fails with ErrClosed after Close, and
// with ErrFull if the queue holds its limit already.
func (q *Queue[T]) Push(v T) error {
	q.mu.Lock()
	if err := q.roomLocked(1); err != nil {
		q.mu.Unlock()
		return err
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.notify()
	return nil
}

// Append queues every element of parts, in order, as one unit: all of them
// or, past the limit or after Close, none. It never blocks.
func (q *Queue[T]) Append(parts ...[]T) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	q.mu.Lock()
	if err := q.roomLocked(n); err != nil {
		q.mu.Unlock()
		return err
	}
	for _, p := range parts {
		q.items = append(q.items, p...)
	}
	q.mu.Unlock()
	q.notify()
	return nil
}

// Close queues the elements of last, whatever the limit, and refuses every
// later push; what is queued stays for the consumer to Pop. It reports
// false, queueing nothing, if the queue was closed already.
func (q *Queue[T]) Close(last ...[]T) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.closed = true
	for _, p := range last {
		q.takeSpareLocked()
		q.items = append(q.items, p...)
	}
	q.mu.Unlock()
	q.notify()
	return true
}

func (q *Queue[T]) roomLocked(n int) error {
	if q.closed {
		return ErrClosed
	}
	if q.opt.Limit > 0 && len(q.items)+n > q.opt.Limit {
		return ErrFull
	}
	q.takeSpareLocked()
	return nil
}

// takeSpareLocked starts an empty queue on the spare slice, or one from
// the pool, if there is one.
func (q *Queue[T]) takeSpareLocked() {
	if q.items != nil {
		return
	}
	if q.spare != nil {
		q.items, q.spare = q.spare, nil
	} else if q.opt.Pool != nil {
		q.items = q.opt.Pool.get()
	}
}

func (q *Queue[T]) notify() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Signal is ready to receive once something was queued since the last
// receive. A consumer selects on it, then Pops; a receive with nothing to
// pop is possible (the consumer popped it already) and harmless.
func (q *Queue[T]) Signal() <-chan struct{} { return q.signal }

// Pop takes everything queued, in order, or nil if nothing is. The
// consumer owns the slice until it hands it back with Recycle.
func (q *Queue[T]) Pop() []T {
	q.mu.Lock()
	s := q.items
	q.items = nil
	q.mu.Unlock()
	return s
}

// Recycle hands back a slice that Pop returned, once its elements are
// handled, so that the next pushes reuse it. Its elements are cleared
// first, so that the queue keeps nothing they point to alive.
func (q *Queue[T]) Recycle(s []T) {
	if cap(s) == 0 {
		return
	}
	if q.opt.Pool != nil {
		clear(s)
		q.opt.Pool.put(s)
		return
	}
	if q.opt.KeepCap < 0 || (q.opt.KeepCap > 0 && cap(s) > q.opt.KeepCap) {
		return
	}
	clear(s)
	q.mu.Lock()
	if q.spare == nil {
		q.spare = s[:0]
	}
	q.mu.Unlock()
}

// Len is the number of elements queued.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Closed reports whether Close was called.
func (q *Queue[T]) Closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}
