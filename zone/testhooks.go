package zone

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The bridges a test binary has into the zone, for this package's tests
// and for the whole-server tests in server/ alike: a command that panics,
// arrivals made to fault, the command table read, and the tell limit
// changed. Like the owner check they act only in a test binary
// (testing.Testing): a server built for players has no crashme, and the
// ForTest calls that change the game panic outside a test.
// Test-only bridges that need no whole server stay in export_test.go.

// mustTest panics when a bridge that changes the game is called outside a
// test binary.
func mustTest() {
	if !testing.Testing() {
		panic("zone: a ForTest bridge called outside a test binary")
	}
}

func init() {
	if !testing.Testing() {
		return
	}
	testHookArrival = func(z *Zone, late bool) {
		if v, ok := arrivalFaults.Load(z); ok {
			if f := v.(*arrivalFault); f.late == late && f.n.Add(-1) >= 0 {
				panic("an arrival fault injected by a test")
			}
		}
	}
	// A command that panics, so end-to-end tests can check that a fault in
	// one handler costs only that session.
	commands = append(commands, command{
		name:   "crashme",
		fn:     func(z *Zone, c *Char, args string) { panic("crashme: injected by a test") },
		usage:  "crashme\n  Panics (tests only).",
		exact:  true,
		hidden: true,
	})
}

var arrivalFaults sync.Map // *Zone -> *arrivalFault

type arrivalFault struct {
	n    atomic.Int32
	late bool
}

// FaultArrivalsForTest makes the next n arrivals in the zone panic: before
// the character is taken in, or once it is bound to its session (late). A
// fault never strands a character or hands it back twice.
func (z *Zone) FaultArrivalsForTest(n int32, late bool) {
	mustTest()
	f := &arrivalFault{late: late}
	f.n.Store(n)
	arrivalFaults.Store(z, f)
}

// MoveIntoForTest moves a player this zone holds into room of dest, on
// the zone's goroutine, as a walk through an instance entrance will.
func (z *Zone) MoveIntoForTest(name string, dest *Zone, room string) bool {
	mustTest()
	return z.Heartbeat(0, func() {
		if c := z.players[name]; c != nil {
			z.transferOut(c, dest, room, "")
		}
	})
}

// PrivilegedCommand is a command above a player's role.
type PrivilegedCommand struct{ Name, Role, Usage string }

// PrivilegedCommandsForTest lists every command above a player's role.
func PrivilegedCommandsForTest() []PrivilegedCommand {
	var out []PrivilegedCommand
	for _, c := range commands {
		if c.role > rolePlayer {
			out = append(out, PrivilegedCommand{Name: c.name, Role: c.role.String(), Usage: c.usage})
		}
	}
	return out
}

// CommandNamesForTest is every command's name, in the table's order.
func CommandNamesForTest() []string {
	var out []string
	for _, c := range commands {
		if !c.hidden {
			out = append(out, c.name)
		}
	}
	return out
}

// AsyncCommandsForTest names every command marked async: answered off the
// zone's goroutine, with its prompt held for the answer.
func AsyncCommandsForTest() []string {
	var out []string
	for _, c := range commands {
		if c.async {
			out = append(out, c.name)
		}
	}
	return out
}

// AnswerWaitForTest is how long a held prompt waits for its answer.
const AnswerWaitForTest = answerWait

// SetTellRateForTest sets the tell flood limit for the zones a test is
// about to start, and puts it back when the test ends (register it before
// the server, so it is put back after the server stops).
func SetTellRateForTest(t testing.TB, n int, per time.Duration) {
	mustTest()
	oldN, oldPer := tellRate, tellPer
	tellRate, tellPer = n, per
	t.Cleanup(func() { tellRate, tellPer = oldN, oldPer })
}
