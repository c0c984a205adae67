package script

import (
	"sync/atomic"
	"time"
)

// Share is the process's account of script work. Every zone's VM adds the
// work of its calls to it, window by window (a pulse each), so that a
// process with many heavy zones does not give them the whole machine:
// once the window's work passes the process's budget
// (Config.ProcessInstructions), every VM that has already done more than
// a light zone's share in its own pulse (lightWork) treats its pulse as
// spent, and its on_tick triggers and mud.after timers wait. A zone whose
// scripts are light keeps running them, and every zone's players keep
// their CPU.
//
// The count is approximate at a window's edge: work added by one VM while
// another resets the window may be lost. It only decides when timed work
// waits, never whether a call is stopped.
//
// A Share is safe for use by many goroutines; every method is lock-free.
type Share struct {
	limit  int64            // work one window may hold
	window time.Duration    // the window's length
	now    func() time.Time // the clock, if not the real one (tests)

	at   atomic.Int64 // index of the current window
	used atomic.Int64 // work added in it
}

// lightWork is how much a VM may do in its own pulse and still run timed
// work once the process's share is spent: a zone with a few small
// on_tick scripts is never made to wait by the heavy ones.
const lightWork = 20000

// NewShare returns the account of a process whose VMs run under cfg, in
// windows of one pulse.
func NewShare(cfg Config, pulse time.Duration) *Share {
	return &Share{limit: int64(max(cfg.ProcessInstructions, cfg.PulseInstructions)), window: pulse}
}

// addAt counts n units of work done by a call that ended at t, the
// caller's own reading of the clock: a call already reads the time when
// it ends (for its statistics), and a second reading here was most of
// what the share cost a call.
func (s *Share) addAt(n int64, t time.Time) {
	s.roll(t)
	s.used.Add(n)
}

// spent reports whether the current window's work has reached the limit.
func (s *Share) spent() bool {
	s.roll(time.Time{})
	return s.used.Load() >= s.limit
}

// Used returns the work counted in the current window.
func (s *Share) Used() int64 {
	s.roll(time.Time{})
	return s.used.Load()
}

// roll starts a new window once the clock has passed the current one;
// t is the time now if the caller has read it, or zero.
func (s *Share) roll(t time.Time) {
	switch {
	case s.now != nil:
		t = s.now()
	case t.IsZero():
		t = time.Now()
	}
	w := t.UnixNano() / int64(s.window)
	if old := s.at.Load(); old != w && s.at.CompareAndSwap(old, w) {
		s.used.Store(0)
	}
}
