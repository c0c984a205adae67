// Package script is the Lua sandbox builders' scripts run in. Each zone
// owns one VM (gopher-lua, one LState), created with no standard library
// opened and an allow-list of safe functions; every call into Lua goes
// through one chokepoint with a budget of work, protection and accounting;
// a breaker switches off a script that keeps failing; and every size a
// script can grow is capped.
//
// The package knows its zone only through the Host interface. Lua never
// holds a Go pointer: a handle is a (VM, ID) pair, resolved through the Host
// on every use, so a handle to a dead entity or one from another zone does
// nothing.
//
// Builders are semi-trusted: the sandbox assumes a script may be hostile
// and bounds what it can cost (work per call, work per zone per pulse,
// memory per call through the budget and the string caps, memory kept
// between calls through the state estimate), but the Host still validates
// every ID and act.
//
// Work is counted, not timed (meter.go): gopher-lua asks its context
// before every VM instruction, and each ask counts one unit; calls of the
// sandbox's Go functions, library functions that loop (pattern matching,
// sort), strings built by the library and errors caught by pcall add
// their own units. A count depends only on what the script does, so a
// trivial call never fails because the machine was busy, and a test sets
// the budget it needs. The limits, in gopher-lua v1.1.2:
//   - One call: Config.MaxInstructions units, nested triggers included;
//     pcall cannot swallow the stop, since the next instruction raises
//     again. A wall-clock hang guard (Config.DeadlineMs) is the last net
//     for work the count does not see: it stops a call that made no
//     progress over a whole interval, never one a busy machine only slows.
//   - One zone's pulse: Config.PulseInstructions units over all its calls
//     (StartPulse, OverBudget). Once spent, the zone defers on_tick
//     (Tick) and the VM defers mud.after timers to the next pulse; the
//     zone reports the heaviest scripts (TakeHeaviest).
//   - The triggers of players' actions in one zone's pulse:
//     Config.TriggerInstructions (FireTrigger, TriggersOverBudget); the
//     zone defers the rest to later pulses.
//   - The whole process's pulse: Config.ProcessInstructions over every
//     VM (Share); once spent, VMs past a light zone's work defer their
//     timed work too, so heavy zones yield to light ones.
//   - A script that keeps failing: its breaker keeps a decaying failure
//     score and switches it off at Config.BreakerThreshold (breaker.go).
//   - One instruction that builds a string: every `..` is compiled into a
//     call of a guard that refuses a result over Config.MaxStringBytes
//     before allocating it (see Compile); string.rep, format, gsub,
//     upper, lower and table.concat check the same cap.
//   - One instruction that grows a table: gopher-lua's MaxArrayIndex is
//     lowered process-wide (sandbox.go), so t[k] = v pads at most 1 MiB.
//   - Data kept between calls: estimated after every call (size.go) and
//     capped by Config.MaxStateBytes.
//   - Source: Compile refuses more than 1 MiB, and nesting deeper than
//     200 levels before the parser sees it (nesting.go), and lints what
//     it compiles (lint.go): `zonemud check` refuses calls of globals the
//     sandbox lacks, trigger names that are not triggers and method names
//     nothing has.
//
// Goroutines: none of its own. A VM belongs to its zone's goroutine and is
// only ever called from it; the one timer a VM owns (meter.go) fires on
// a runtime timer goroutine and only closes a channel. Compiled and Cache
// are safe to share between goroutines.
//
// This package must not import zone, world or the network packages.
package script
