package zone

import "time"

// PulseInterval is the Diku pulse: the zone's clock ticks four times a second.
const PulseInterval = 250 * time.Millisecond

// pulseTask is one scheduled callback.
type pulseTask struct {
	due    uint64 // pulse at which it fires next
	period uint64 // 0 for a one-shot
	fn     func()
	dead   bool // cancelled, or a one-shot that has fired
	// idle marks a periodic callback with nothing to do in an empty zone
	// (a checkpoint, the idle sweep): it does not wake a dormant zone,
	// and a waking zone moves it past the pulses it slept through
	// instead of running it for each.
	idle bool
}

// pulseHandle cancels a scheduled callback. The zero handle is inert.
type pulseHandle struct{ t *pulseTask }

// cancel stops the callback from firing again. Cancelling during the tick in
// which it is due, before it has fired, stops it firing in that tick.
func (h pulseHandle) cancel() {
	if h.t != nil {
		h.t.dead = true
	}
}

// whileEmpty marks the callback idle (pulseTask.idle) and returns the
// handle.
func (h pulseHandle) whileEmpty() pulseHandle {
	if h.t != nil {
		h.t.idle = true
	}
	return h
}

// active reports whether the callback may still fire.
func (h pulseHandle) active() bool { return h.t != nil && !h.t.dead }

// pulses is the zone's scheduler: a flat slice scanned each tick, in
// registration order. A heap is not worth it until one zone holds thousands
// of timers; a scan of a few hundred pointers is cheaper than its upkeep.
// Zone goroutine only.
type pulses struct {
	now   uint64
	tasks []*pulseTask // registration order
	due   []*pulseTask // scratch for tick, reused so a steady tick allocates nothing
	// fault, if set, is called with a callback's panic value; the tick goes
	// on with the next callback.
	fault func(v any)
}

// every runs fn every n pulses (n >= 1), first n pulses from now.
func (p *pulses) every(n uint64, fn func()) pulseHandle {
	if n < 1 {
		n = 1
	}
	t := &pulseTask{due: p.now + n, period: n, fn: fn}
	p.tasks = append(p.tasks, t)
	return pulseHandle{t}
}

// after runs fn once, n pulses from now (n >= 1).
func (p *pulses) after(n uint64, fn func()) pulseHandle {
	if n < 1 {
		n = 1
	}
	t := &pulseTask{due: p.now + n, fn: fn}
	p.tasks = append(p.tasks, t)
	return pulseHandle{t}
}

// tick advances the clock one pulse and fires what is due, in registration
// order. The due list is taken before any callback runs, so callbacks that
// schedule more callbacks are merged into the task list for later ticks and
// never lost, and a callback cancelled by an earlier one in the same tick
// does not fire.
func (p *pulses) tick() {
	p.now++
	due := p.due[:0]
	keep := p.tasks[:0]
	for _, t := range p.tasks {
		if t.dead {
			continue
		}
		if t.due <= p.now {
			due = append(due, t)
			if t.period > 0 {
				t.due = p.now + t.period
				keep = append(keep, t)
			}
			continue
		}
		keep = append(keep, t)
	}
	clear(p.tasks[len(keep):])
	p.tasks = keep
	p.due = due
	for i, t := range due {
		due[i] = nil
		if t.dead {
			continue
		}
		if t.period == 0 {
			t.dead = true
		}
		p.fire(t.fn)
	}
}

func (p *pulses) fire(fn func()) {
	if p.fault != nil {
		defer func() {
			if v := recover(); v != nil {
				p.fault(v)
			}
		}()
	}
	fn()
}

// nextDue reports the earliest pulse at which anything fires.
func (p *pulses) nextDue() (uint64, bool) {
	var next uint64
	found := false
	for _, t := range p.tasks {
		if !t.dead && (!found || t.due < next) {
			next, found = t.due, true
		}
	}
	return next, found
}

// nextWake reports the earliest pulse at which a callback that is not
// idle fires: the pulse a dormant zone must wake for.
func (p *pulses) nextWake() (uint64, bool) {
	var next uint64
	found := false
	for _, t := range p.tasks {
		if !t.dead && !t.idle && (!found || t.due < next) {
			next, found = t.due, true
		}
	}
	return next, found
}

// skipIdle moves every idle periodic callback due at or before target to
// its first pulse after target, keeping its phase, without running it.
func (p *pulses) skipIdle(target uint64) {
	for _, t := range p.tasks {
		if t.idle && !t.dead && t.period > 0 && t.due <= target {
			t.due += ((target-t.due)/t.period + 1) * t.period
		}
	}
}

// catchUp advances the clock to target as if every pulse in between had
// ticked, firing each due callback at its pulse, but skipping the empty
// pulses between them. A dormant zone uses it when it wakes.
func (p *pulses) catchUp(target uint64, each func()) {
	for p.now < target {
		next, ok := p.nextDue()
		if !ok || next > target {
			p.now = target
			return
		}
		if next > p.now+1 {
			p.now = next - 1
		}
		p.tick()
		if each != nil {
			each()
		}
	}
}

// len is the number of live callbacks.
func (p *pulses) len() int {
	n := 0
	for _, t := range p.tasks {
		if !t.dead {
			n++
		}
	}
	return n
}

// taskKey names a keyed task: an entity and what the task is for, so that
// different kinds of work on one entity never replace each other.
type taskKey struct {
	id   uint64
	kind string
}

type keyedTask struct {
	key taskKey
	due uint64
	fn  func()
}

// taskQueue is the keyed task queue of the room runtime: work scheduled for
// later on the zone goroutine, drained by the pulse. Schedule appends
// independent work; ScheduleReplacing replaces any pending task with the same
// key, so a rapid double pull of a lever resolves once. Zone goroutine only.
type taskQueue struct {
	tasks []keyedTask
	due   []func() // scratch, reused
}

// Schedule runs fn after n pulses. It is never replaced or cancelled.
func (q *taskQueue) Schedule(now, n uint64, fn func()) {
	q.tasks = append(q.tasks, keyedTask{due: now + max(n, 1), fn: fn})
}

// ScheduleReplacing runs fn after n pulses, replacing a pending task with
// the same key. The replacement takes the old task's place in line.
func (q *taskQueue) ScheduleReplacing(key taskKey, now, n uint64, fn func()) {
	t := keyedTask{key: key, due: now + max(n, 1), fn: fn}
	if key != (taskKey{}) {
		for i := range q.tasks {
			if q.tasks[i].key == key {
				q.tasks[i] = t
				return
			}
		}
	}
	q.tasks = append(q.tasks, t)
}

// runDue runs, in order, every task due at or before now. Tasks scheduled by
// a running task wait for a later pulse.
func (q *taskQueue) runDue(now uint64, fire func(func())) {
	if len(q.tasks) == 0 {
		return
	}
	due := q.due[:0]
	keep := q.tasks[:0]
	for _, t := range q.tasks {
		if t.due <= now {
			due = append(due, t.fn)
			continue
		}
		keep = append(keep, t)
	}
	clear(q.tasks[len(keep):])
	q.tasks = keep
	q.due = due
	for i, fn := range due {
		due[i] = nil
		fire(fn)
	}
}

func (q *taskQueue) nextDue() (uint64, bool) {
	var next uint64
	for i, t := range q.tasks {
		if i == 0 || t.due < next {
			next = t.due
		}
	}
	return next, len(q.tasks) > 0
}
