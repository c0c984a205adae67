// Package script is the Lua sandbox builders' scripts run in. Each zone
// owns one VM (gopher-lua, one LState), created with no standard library
// opened and an allow-list of safe functions; every call into Lua goes
// through one chokepoint with a deadline, protection and accounting; a
// breaker switches off a script that keeps failing; and every size a script
// can grow is capped.
//
// The package knows its zone only through the Host interface. Lua never
// holds a Go pointer: a handle is a (VM, ID) pair, resolved through the Host
// on every use, so a handle to a dead entity or one from another zone does
// nothing.
//
// Builders are semi-trusted: the sandbox assumes a script may be hostile
// and bounds what it can cost (time per call, memory per call through the
// deadline and the string caps, memory kept between calls through the
// state estimate), but the Host still validates every ID and act.
//
// How each cost is bounded, in gopher-lua v1.1.2, which checks the
// deadline only between VM instructions:
//   - Lua code: the deadline (Config.DeadlineMs), checked before every
//     instruction; pcall cannot swallow it, since the next instruction
//     raises again.
//   - One instruction that builds a string: every `..` is compiled into a
//     call of a guard that refuses a result over Config.MaxStringBytes
//     before allocating it (see Compile); string.rep, format, gsub,
//     upper, lower and table.concat check the same cap.
//   - One instruction that grows a table: gopher-lua's MaxArrayIndex is
//     lowered process-wide (sandbox.go), so t[k] = v pads at most 1 MiB.
//   - One library call that loops: the pattern functions and table.sort
//     run on code of this package that checks the deadline as it goes.
//   - Data kept between calls: estimated after every call (size.go) and
//     capped by Config.MaxStateBytes.
//
// Goroutines: none of its own. A VM belongs to its zone's goroutine and is
// only ever called from it; the one timer a VM owns (deadline.go) fires on
// a runtime timer goroutine and only closes a channel. Compiled and Cache
// are safe to share between goroutines.
//
// This package must not import zone, world or the network packages.
package script
