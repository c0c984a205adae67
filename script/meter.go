package script

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errBudget is the error of a call stopped by its instruction budget.
var errBudget = errors.New("script: instruction budget exceeded")

// closedChan is returned by meter.Done once a call is over its budget.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// hangCheckMask sets how often Done looks at the hang guard: every 64
// instructions. A hung call is noticed at most that many instructions late.
const hangCheckMask = 63

// meter is the context.Context of every outermost call, reused from call
// to call. It holds the two limits of a call:
//
//   - the budget, a count of work: gopher-lua asks Done before every VM
//     instruction, and each ask counts one; library functions that loop
//     or build large strings add their own work (charge). The count
//     depends only on what the script does, never on how busy the machine
//     is, so a trivial call never fails because its goroutine was
//     descheduled, and a test can set a budget it controls.
//   - the hang guard, wall-clock time (Config.DeadlineMs): the last net
//     for work the count does not see. It stops a call only once the
//     call has made no progress for a whole interval: a call whose count
//     moved is running, however slowly a busy machine lets it, and its
//     budget bounds it; and a timer that fires late says the process
//     itself is short of CPU, so the guard looks again rather than
//     blaming the script. Only a call stuck in one instruction or one Go
//     function while the machine is free is stopped. Its timer's function
//     runs on a timer goroutine and only closes a channel; a late timer
//     from an earlier call finds the new call's deadline still ahead and
//     does nothing.
//
// Done returns nil (never ready) between the hang guard's looks, so the
// common path is an increment and two compares.
type meter struct {
	used  int64 // zone goroutine only: work of the current outermost call
	limit int64 // zone goroutine only: the call stops once used passes it

	// seen is used as of the last hang check (every hangCheckMask+1
	// units, and at every charge): the progress the hang guard reads
	// from its timer goroutine.
	seen atomic.Int64

	timer *time.Timer  // immutable after newMeter
	done  atomic.Value // chan struct{}: closed when the armed deadline passes

	mu    sync.Mutex
	at    time.Time     // guarded by mu: the armed deadline
	dur   time.Duration // guarded by mu: the guard's interval
	last  int64         // guarded by mu: seen at the previous look
	armed bool          // guarded by mu
	err   error         // guarded by mu: context.DeadlineExceeded once passed
}

// lateTimer is how late the guard's timer may fire and still be taken as
// a sign that the machine had CPU to give: a later one means the process
// was starved, and the guard looks again instead of stopping the call.
const lateTimer = 50 * time.Millisecond

func newMeter() *meter {
	m := &meter{}
	m.done.Store(make(chan struct{}))
	m.timer = time.AfterFunc(time.Hour, m.expire)
	m.timer.Stop()
	return m
}

// arm starts a call, begun at now, with a budget of limit and a hang
// guard of dur (none if dur is 0). Zone goroutine only.
func (m *meter) arm(limit int64, dur time.Duration, now time.Time) {
	m.used, m.limit = 0, limit
	m.seen.Store(0)
	m.mu.Lock()
	m.last, m.dur = 0, dur
	if m.err != nil { // the last call ran out: its channel is closed
		m.done.Store(make(chan struct{}))
		m.err = nil
	}
	m.armed = dur > 0
	if m.armed {
		m.at = now.Add(dur)
	}
	m.mu.Unlock()
	if dur > 0 {
		m.timer.Reset(dur)
	}
}

// disarm ends the call. Zone goroutine only.
func (m *meter) disarm() {
	m.timer.Stop()
	m.mu.Lock()
	m.armed = false
	m.mu.Unlock()
}

// stop releases the timer for good.
func (m *meter) stop() { m.disarm() }

func (m *meter) expire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if !m.armed || m.err != nil || now.Before(m.at) {
		return // a stale timer of an earlier call
	}
	seen := m.seen.Load()
	if seen != m.last || now.Sub(m.at) > lateTimer {
		// The call did work in this interval, or the process was too
		// busy to tell: look again an interval from now.
		m.last = seen
		m.at = now.Add(m.dur)
		m.timer.Reset(m.dur)
		return
	}
	m.hang()
}

// hang stops the armed call as the hang guard does. Called with mu held.
func (m *meter) hang() {
	m.err = context.DeadlineExceeded
	close(m.done.Load().(chan struct{}))
}

// charge adds n units of work done outside the VM's instruction loop
// and reports whether the call must stop (its budget is spent, or the
// hang guard has fired). Zone goroutine only.
func (m *meter) charge(n int64) (stop bool) {
	m.used += n
	m.seen.Store(m.used)
	return m.used > m.limit || m.hung()
}

// over reports whether the call ran past its budget.
func (m *meter) over() bool { return m.used > m.limit }

// hung reports whether the hang guard has fired for the armed call.
func (m *meter) hung() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err != nil
}

// Deadline implements context.Context.
func (m *meter) Deadline() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.at, m.armed
}

// Done implements context.Context; gopher-lua calls it before every
// instruction. Zone goroutine only, which the VM guarantees: a VM is only
// ever run by its zone's goroutine.
func (m *meter) Done() <-chan struct{} {
	m.used++
	if m.used > m.limit {
		return closedChan
	}
	if m.used&hangCheckMask != 0 {
		return nil
	}
	m.seen.Store(m.used)
	return m.done.Load().(chan struct{})
}

// Err implements context.Context.
func (m *meter) Err() error {
	if m.used > m.limit {
		return errBudget
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Value implements context.Context.
func (m *meter) Value(any) any { return nil }
