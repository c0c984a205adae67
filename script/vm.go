package script

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// maxNestedCalls bounds re-entry: a script's act can make the zone fire
// another trigger at once (a damage that kills fires on_death), which can
// act again. Each level costs Go stack, so the chain is cut here.
const maxNestedCalls = 8

// maxReportBytes caps a failure message passed to Host.Report.
const maxReportBytes = 1024

// VM is one zone's Lua state and the scripts attached to its entities. It
// is driven only from the zone's goroutine; no method is safe for
// concurrent use.
type VM struct {
	host     Host          // immutable after New
	cfg      Config        // immutable after New
	deadline time.Duration // immutable after New: the hang guard of one call

	// Everything below: zone goroutine only.
	ls         *lua.LState
	meter      *meter                   // the context of every outermost call
	builtins   *lua.LTable              // the frozen globals every env falls back to
	envMeta    *lua.LTable              // metatable of every entity env
	handleMeta *lua.LTable              // metatable of every handle
	methods    *lua.LTable              // handle methods by name
	concat     *lua.LFunction           // the hidden `..`
	frozen     map[*lua.LTable]struct{} // builtin tables no script may change
	entities   map[ID]*entity           // attached scripts
	handles    map[ID]*lua.LUserData    // handle cache, so == is cheap
	timers     map[int64]*timer         // live mud.after timers
	nextTimer  int64                    // last timer id issued
	spawned    map[ID]struct{}          // live entities charged to mud.spawn
	breakers   map[*Compiled]*breaker   // per compiled script
	frames     [maxNestedCalls]frame    // calls in progress, innermost last
	depth      int                      // frames in use
	pulseUsed  int64                    // work of every call since StartPulse
	trigUsed   int64                    // work of player-triggered calls since StartPulse
	share      *Share                   // the process's account, or nil
	yielded    bool                     // timed work waited for the process's share this pulse
	sizer      sizer                    // reused by the state check
	stats      Stats                    // counters; the gauges are filled in by Stats
	closed     bool
}

// entity is one attached script: its environment and what it owns.
type entity struct {
	id       ID
	c        *Compiled
	env      *lua.LTable
	state    *lua.LTable
	timers   map[int64]struct{}
	mem      int  // estimated bytes of its data after its last call
	attached bool // false once detached; a running call may still hold it
}

// frame is one call in progress.
type frame struct {
	ent    *entity
	spawns int
	logs   int
}

// timer is one pending mud.after.
type timer struct {
	owner  *entity
	fn     *lua.LFunction
	cancel func()
}

// Stats is a snapshot of a VM's counters and gauges.
type Stats struct {
	Calls    uint64 // calls into Lua
	Errors   uint64 // calls that raised an error (timeouts excluded)
	Timeouts uint64 // calls stopped by their budget or the hang guard
	Work     uint64 // instructions (and library work) of every call
	Deferred uint64 // times an on_tick round or a mud.after timer was put off: the pulse budget was spent
	Overruns uint64 // pulses whose budget was spent
	// TriggersOver counts player-triggered calls (on_enter, on_greet,
	// on_speech, on_leave, on_command) not run when they were fired
	// because the pulse's trigger budget was spent: the zone defers them,
	// or for on_command goes on without the scripts.
	TriggersOver uint64
	Yielded      uint64 // pulses in which timed work waited for the process's share
	StateOver    uint64 // state checks that found an entity's data over the cap
	// Time is the wall time spent in outermost calls, nested ones
	// included: what the zone's goroutine gave to Lua.
	Time       time.Duration
	ScriptsOff int // scripts switched off by their breaker
	Entities   int // entities with a script attached
	Timers     int // live mud.after timers
	Spawned    int // live entities charged to mud.spawn
	// MemBytes estimates the VM's Lua memory: the scripts' data as
	// measured after each call (see sizer), plus handles, timers, the
	// builtins and the value stack at its configured initial size.
	MemBytes int64
}

// New returns a VM for one zone. cfg must pass Validate; New panics on an
// invalid Config, which is a wiring bug.
func New(h Host, cfg Config) *VM {
	if err := cfg.Validate(); err != nil {
		panic("script: New with invalid config: " + err.Error())
	}
	vm := &VM{
		host:     h,
		cfg:      cfg,
		deadline: time.Duration(cfg.DeadlineMs) * time.Millisecond,
		frozen:   make(map[*lua.LTable]struct{}),
		entities: make(map[ID]*entity),
		handles:  make(map[ID]*lua.LUserData),
		timers:   make(map[int64]*timer),
		spawned:  make(map[ID]struct{}),
		breakers: make(map[*Compiled]*breaker),
	}
	vm.sizer.seen = make(map[any]struct{})
	vm.sizer.entry = vm.sizer.visit
	vm.meter = newMeter()
	vm.open()
	return vm
}

// Close cancels every timer and releases the Lua state. The VM does
// nothing afterwards.
func (vm *VM) Close() {
	if vm.closed {
		return
	}
	for _, t := range vm.timers {
		if t.cancel != nil {
			t.cancel()
		}
	}
	vm.timers = map[int64]*timer{}
	vm.entities = map[ID]*entity{}
	vm.handles = map[ID]*lua.LUserData{}
	vm.closed = true
	vm.meter.stop()
	vm.ls.Close()
}

// Attach gives an entity its script: the compiled chunk runs once in a
// fresh environment of the entity's own, so the trigger functions it
// defines belong to that entity, with `self` the entity's handle and
// self.state an empty table. on_spawn then fires if the script defines
// it. A script already attached to id is detached first (its timers
// cancelled; a spawn charge stays with the entity). Attach returns
// ErrSwitchedOff for a script its breaker has switched off, and ErrFailed
// when the chunk failed (the failure has been reported).
func (vm *VM) Attach(id ID, c *Compiled) error {
	if vm.closed {
		return ErrClosed
	}
	if c == nil {
		return errors.New("script: Attach with a nil script")
	}
	if old, ok := vm.entities[id]; ok {
		vm.detach(old) // a spawned entity keeps its spawn charge
	}
	b := vm.breakerFor(c)
	if b.off {
		return fmt.Errorf("%w: %s", ErrSwitchedOff, c.key)
	}
	b.users++
	L := vm.ls
	env := L.NewTable()
	env.RawSetString("self", vm.handle(id))
	env.RawSetString("_G", env)
	env.Metatable = vm.envMeta
	e := &entity{id: id, c: c, env: env, state: L.NewTable(), attached: true}
	vm.entities[id] = e
	chunk := L.NewFunctionFromProto(c.proto)
	chunk.Env = env
	if _, ok := vm.call(e, chunk, vm.concat); !ok {
		vm.detach(e)
		return fmt.Errorf("%w: %s", ErrFailed, c.key)
	}
	if !e.attached { // detached by the state check, or by a nested act
		return fmt.Errorf("%w: %s", ErrFailed, c.key)
	}
	if fn, ok := env.RawGetString("on_spawn").(*lua.LFunction); ok {
		vm.call(e, fn)
	}
	return nil
}

// Detach drops the entity's script: its environment, its timers and its
// spawn charge. It is safe to call for an entity with no script, and from
// inside a call (a script that purges itself).
func (vm *VM) Detach(id ID) {
	if e, ok := vm.entities[id]; ok {
		vm.detach(e)
	}
	delete(vm.spawned, id)
}

func (vm *VM) detach(e *entity) {
	if !e.attached {
		return
	}
	e.attached = false
	if vm.entities[e.id] == e {
		delete(vm.entities, e.id)
	}
	for tid := range e.timers {
		if t, ok := vm.timers[tid]; ok {
			delete(vm.timers, tid)
			if t.cancel != nil {
				t.cancel()
			}
		}
	}
	e.timers = nil
	if b, ok := vm.breakers[e.c]; ok {
		b.users--
		// A switched-off breaker outlives its last user, so a repop of
		// the same prototype stays off, until Retire.
		if b.users <= 0 && !b.off {
			delete(vm.breakers, e.c)
		}
	}
}

// Retire forgets the breakers of scripts no entity runs any more that the
// running content no longer has (live reports whether it does): once a
// script switched off is replaced by a fixed version and every entity
// runs that, the old one no longer counts as switched off.
func (vm *VM) Retire(live func(*Compiled) bool) {
	for c, b := range vm.breakers {
		if b.users <= 0 && !live(c) {
			delete(vm.breakers, c)
		}
	}
}

// Forget tells the VM an entity is gone from the zone: its script is
// detached, its spawn charge released, and every handle to it resolves to
// nil from now on, even if the same ID names something again.
func (vm *VM) Forget(id ID) {
	vm.Detach(id)
	if ud, ok := vm.handles[id]; ok {
		if h, ok := ud.Value.(*handle); ok {
			h.dead = true
		}
		delete(vm.handles, id)
	}
}

// Script is the compiled script attached to id, or nil.
func (vm *VM) Script(id ID) *Compiled {
	if e, ok := vm.entities[id]; ok {
		return e.c
	}
	return nil
}

// SwitchedOff reports whether the script attached to id has been switched
// off by its breaker.
func (vm *VM) SwitchedOff(id ID) bool {
	e, ok := vm.entities[id]
	if !ok {
		return false
	}
	b := vm.breakers[e.c]
	return b != nil && b.off
}

// Has reports whether the entity's script defines trigger and is not
// switched off.
func (vm *VM) Has(id ID, trigger string) bool {
	e, ok := vm.entities[id]
	if !ok {
		return false
	}
	if _, ok := e.env.RawGetString(trigger).(*lua.LFunction); !ok {
		return false
	}
	b := vm.breakers[e.c]
	return b == nil || !b.off
}

// Fire calls a trigger of an entity's script: on_enter(actor),
// on_leave(actor, dir), on_greet(actor), on_speech(actor, text),
// on_command(actor, verb, args), on_death(killer), on_tick(). Arguments
// are IDs (passed as handles), strings, integers, floats or bools. Fire
// reports whether the call succeeded and returned a true value, which is
// how on_command says it handled the command. It never panics; a failure
// is reported through Host.Report.
func (vm *VM) Fire(id ID, trigger string, args ...any) (handled bool) {
	if vm.closed {
		return false
	}
	e, ok := vm.entities[id]
	if !ok {
		return false
	}
	fn, ok := e.env.RawGetString(trigger).(*lua.LFunction)
	if !ok {
		return false
	}
	var buf [4]lua.LValue
	largs := buf[:0]
	for _, a := range args {
		largs = append(largs, vm.value(a))
	}
	ret, ok := vm.call(e, fn, largs...)
	return ok && lua.LVAsBool(ret)
}

// value converts a Fire argument to Lua.
func (vm *VM) value(a any) lua.LValue {
	switch v := a.(type) {
	case ID:
		return vm.handle(v)
	case string:
		return lua.LString(v)
	case int:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case uint64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	default:
		return lua.LNil
	}
}

// Stats returns the VM's counters and gauges.
func (vm *VM) Stats() Stats {
	s := vm.stats
	s.Entities = len(vm.entities)
	s.Timers = len(vm.timers)
	s.Spawned = len(vm.spawned)
	for _, b := range vm.breakers {
		if b.off {
			s.ScriptsOff++
		}
	}
	mem := int64(vm.cfg.RegistrySize)*16 + builtinsBytes
	for _, e := range vm.entities {
		mem += int64(e.mem) + entityBytes
	}
	mem += int64(len(vm.handles)) * handleBytes
	mem += int64(len(vm.timers)) * timerBytes
	s.MemBytes = mem
	return s
}

// StartPulse begins a zone pulse: the work of calls from now on counts
// against Config.PulseInstructions afresh. It reports whether the pulse
// that ends spent its whole budget.
func (vm *VM) StartPulse() (overran bool) {
	overran = vm.pulseUsed >= int64(vm.cfg.PulseInstructions)
	if overran {
		vm.stats.Overruns++
	} else if vm.yielded {
		vm.stats.Yielded++
	}
	vm.pulseUsed, vm.trigUsed, vm.yielded = 0, 0, false
	return overran
}

// UseShare makes the VM count its work in the process's account and
// yield to light zones once the process's share is spent. Zone goroutine
// only; the world gives every zone's VM the same Share.
func (vm *VM) UseShare(s *Share) { vm.share = s }

// yielding reports whether this VM's timed work waits for the process:
// its share is spent and this VM is not a light one.
func (vm *VM) yielding() bool {
	if vm.share != nil && vm.pulseUsed >= lightWork && vm.share.spent() {
		vm.yielded = true
		return true
	}
	return false
}

// FireTrigger fires a trigger a player's action caused (on_enter,
// on_greet, on_speech, on_leave, on_command) under the zone's trigger
// budget (Config.TriggerInstructions per pulse): ran is false, and
// nothing is called, once this pulse's player-triggered calls have spent
// it; the zone then defers the trigger to a later pulse. handled is what
// Fire reports.
func (vm *VM) FireTrigger(id ID, trigger string, args ...any) (handled, ran bool) {
	if vm.TriggersOverBudget() {
		vm.stats.TriggersOver++
		return false, false
	}
	before := vm.pulseUsed
	handled = vm.Fire(id, trigger, args...)
	vm.trigUsed += vm.pulseUsed - before
	return handled, true
}

// TriggersOverBudget reports whether this pulse's trigger budget is spent.
func (vm *VM) TriggersOverBudget() bool {
	return vm.trigUsed >= int64(vm.cfg.TriggerInstructions)
}

// Tick fires the entity's on_tick, unless this pulse's budget is spent:
// then it counts the trigger as deferred and reports false, and the zone
// fires it in a later pulse.
func (vm *VM) Tick(id ID) (ran bool) {
	if vm.OverBudget() {
		vm.stats.Deferred++
		return false
	}
	vm.Fire(id, "on_tick")
	return true
}

// PulseWork is the work of every call since StartPulse, in the units of
// Config.PulseInstructions.
func (vm *VM) PulseWork() int64 { return vm.pulseUsed }

// OverBudget reports whether this pulse's budget is spent. The zone then
// defers on_tick triggers; the VM defers mud.after timers itself.
func (vm *VM) OverBudget() bool {
	return vm.pulseUsed >= int64(vm.cfg.PulseInstructions) || vm.yielding()
}

// ScriptWork is one script's share of a zone's script work.
type ScriptWork struct {
	Key  string // the script's identity ("emberfall:mob:priestess")
	File string // its area file
	Line int    // the area-file line it starts on
	Work int64  // instructions and library work
}

// TakeHeaviest returns the n scripts that did the most work since the
// previous TakeHeaviest (or since they were attached), heaviest first, and
// starts every script's count afresh.
func (vm *VM) TakeHeaviest(n int) []ScriptWork {
	var out []ScriptWork
	for c, b := range vm.breakers {
		if b.used > 0 {
			out = append(out, ScriptWork{Key: c.key, File: c.file, Line: c.lineOffset, Work: b.used})
		}
		b.used = 0
	}
	slices.SortFunc(out, func(a, b ScriptWork) int {
		if a.Work != b.Work {
			return cmp.Compare(b.Work, a.Work)
		}
		return strings.Compare(a.Key, b.Key)
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Fixed costs in the memory estimate, in bytes: the heap growth measured
// (runtime.MemStats after GC) around creating VMs, handles and timers on
// gopher-lua v1.1.2, rounded. They only need to be of the right order.
const (
	builtinsBytes = 104 << 10 // the Lua state, libraries, proxies, metatables
	entityBytes   = 1024      // entity struct, the chunk's closure, map entries
	handleBytes   = 192       // userdata, handle struct, cache entry
	timerBytes    = 256       // timer struct, map entries, the host's closure
)

// cur returns the innermost call in progress, or nil.
func (vm *VM) cur() *frame {
	if vm.depth == 0 {
		return nil
	}
	return &vm.frames[vm.depth-1]
}

// call is the one way into Lua. It runs fn as entity e under the call's
// budget and hang guard (meter), protected, restores the value stack,
// converts a failure into a "file:line: message" report, charges the
// script's breaker and checks the size of the entity's data afterwards. A
// nested call (a trigger fired by an act of another script) shares the
// outer call's budget, and its work is the outer script's.
func (vm *VM) call(e *entity, fn lua.LValue, args ...lua.LValue) (ret lua.LValue, ok bool) {
	if vm.closed || !e.attached {
		return lua.LNil, false
	}
	b := vm.breakerFor(e.c)
	if b.off {
		return lua.LNil, false
	}
	if vm.depth >= maxNestedCalls {
		vm.failed(e, b, fmt.Sprintf("%s:%d: triggers nested more than %d deep", e.c.file, e.c.lineOffset, maxNestedCalls), weightError)
		return lua.LNil, false
	}
	L := vm.ls
	outer := vm.depth == 0
	var start time.Time
	if outer {
		start = time.Now()
		vm.meter.arm(int64(vm.cfg.MaxInstructions), vm.deadline, start)
		L.SetContext(vm.meter)
	}
	vm.frames[vm.depth] = frame{ent: e}
	vm.depth++
	base := L.GetTop()
	err := vm.pcall(fn, args)
	stopped := err != nil && (vm.meter.over() || vm.meter.hung())
	if err == nil {
		ret = L.Get(-1)
	}
	L.SetTop(base)
	vm.depth--
	vm.frames[vm.depth] = frame{}
	if outer {
		end := time.Now()
		vm.stats.Time += end.Sub(start)
		vm.meter.disarm()
		L.RemoveContext()
		used := min(vm.meter.used, vm.meter.limit+1)
		vm.pulseUsed += used
		if vm.share != nil {
			vm.share.addAt(used, end)
		}
		vm.stats.Work += uint64(used)
		b.used += used
	}
	vm.stats.Calls++
	ok = err == nil
	if err != nil {
		if stopped {
			vm.stats.Timeouts++
		} else {
			vm.stats.Errors++
		}
		// A nested call cut short by the outer call's budget is not its
		// own fault; the outer script is charged when it returns.
		w := weightError
		switch {
		case stopped && !outer:
			w = 0
		case stopped:
			w = weightTimeout
		}
		vm.failed(e, b, vm.message(e.c, err, stopped), w)
	}
	if vm.checkState(e, b) && ok {
		b.record(0)
	}
	return ret, ok
}

// pcall runs fn protected. gopher-lua's PCall already turns Lua errors
// and Go panics inside bindings into an error; the recover here is the
// last net for a panic in the machinery around it.
func (vm *VM) pcall(fn lua.LValue, args []lua.LValue) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return vm.ls.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, args...)
}

// failed reports a failure of e's script and charges its breaker with
// weight (0: not its fault).
func (vm *VM) failed(e *entity, b *breaker, msg string, weight float64) {
	vm.host.Report(e.c.key, msg)
	if weight == 0 {
		return
	}
	if b.record(weight) {
		vm.host.Report(e.c.key, fmt.Sprintf("%s:%d: script switched off: it fails too often (a failure score of %d, where each failure weighs half as much %d calls later); it runs again once its source is reloaded",
			e.c.file, e.c.lineOffset, vm.cfg.BreakerThreshold, vm.cfg.BreakerWindowCalls))
	}
}

// message turns a call's error into "file:line: message" with the
// area-file line where the script failed.
func (vm *VM) message(c *Compiled, err error, stopped bool) string {
	text := err.Error()
	trace := ""
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		trace = ae.StackTrace
		switch obj := ae.Object.(type) {
		case lua.LString:
			text = string(obj)
		case nil:
		default:
			text = "error object is a " + obj.Type().String() + " value"
		}
	}
	pos, rest := splitPosition(text, c.file)
	if pos == "" {
		pos = tracePosition(trace, c.file)
	}
	if pos == "" {
		pos = c.file + ":" + strconv.Itoa(c.lineOffset)
	}
	switch {
	case stopped && vm.meter.over():
		rest = fmt.Sprintf("script timed out: over its budget of %d instructions", vm.cfg.MaxInstructions)
	case stopped:
		rest = fmt.Sprintf("script timed out: still running after %s (the hang guard)", vm.deadline)
	}
	msg := pos + ": " + rest
	if len(msg) > maxReportBytes {
		msg = capText(msg, maxReportBytes) + "..."
	}
	return msg
}

// splitPosition splits "file:123: text" into "file:123" and "text".
func splitPosition(s, file string) (pos, rest string) {
	if !strings.HasPrefix(s, file+":") {
		return "", s
	}
	i := len(file) + 1
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i || j >= len(s) || s[j] != ':' {
		return "", s
	}
	return s[:j], strings.TrimSpace(s[j+1:])
}

// tracePosition finds the first "file:123:" of the script's own file in a
// gopher-lua stack traceback.
func tracePosition(trace, file string) string {
	for {
		i := strings.Index(trace, file+":")
		if i < 0 {
			return ""
		}
		if pos, _ := splitPosition(trace[i:], file); pos != "" {
			return pos
		}
		trace = trace[i+len(file)+1:]
	}
}
