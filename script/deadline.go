package script

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadline is the context.Context of every outermost call, reused from
// call to call: context.WithTimeout costs five allocations and a new
// timer per call, most of the price of an empty trigger. gopher-lua asks
// Done before every VM instruction, so Done is one atomic load.
//
// arm and disarm run on the zone goroutine; the timer's function runs on
// a timer goroutine and only closes the channel. A late timer from an
// earlier call finds the new call's deadline still ahead and does nothing.
type deadline struct {
	timer *time.Timer  // immutable after newDeadline
	done  atomic.Value // chan struct{}: closed when the armed deadline passes

	mu    sync.Mutex
	at    time.Time // guarded by mu: the armed deadline
	armed bool      // guarded by mu
	err   error     // guarded by mu: context.DeadlineExceeded once passed
}

func newDeadline() *deadline {
	d := &deadline{}
	d.done.Store(make(chan struct{}))
	d.timer = time.AfterFunc(time.Hour, d.expire)
	d.timer.Stop()
	return d
}

// arm starts a call of length dur. Zone goroutine only.
func (d *deadline) arm(dur time.Duration) {
	d.mu.Lock()
	if d.err != nil { // the last call ran out: its channel is closed
		d.done.Store(make(chan struct{}))
		d.err = nil
	}
	d.at = time.Now().Add(dur)
	d.armed = true
	d.mu.Unlock()
	d.timer.Reset(dur)
}

// disarm ends the call. Zone goroutine only.
func (d *deadline) disarm() {
	d.timer.Stop()
	d.mu.Lock()
	d.armed = false
	d.mu.Unlock()
}

// stop releases the timer for good.
func (d *deadline) stop() {
	d.disarm()
}

func (d *deadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.armed || d.err != nil || time.Now().Before(d.at) {
		return // a stale timer of an earlier call
	}
	d.err = context.DeadlineExceeded
	close(d.done.Load().(chan struct{}))
}

// Deadline implements context.Context.
func (d *deadline) Deadline() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.at, d.armed
}

// Done implements context.Context.
func (d *deadline) Done() <-chan struct{} {
	return d.done.Load().(chan struct{})
}

// Err implements context.Context.
func (d *deadline) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Value implements context.Context.
func (d *deadline) Value(any) any { return nil }
