package script

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A call's budget is a count of its work, so these tests decide their
// outcomes by counts the test sets, never by the clock.

func TestBudget_StopsACallAtItsCount(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxInstructions = 10000
	w := newWorld(t, "ember", cfg)
	// A numeric for loop is one instruction a round.
	w.attach(char(2), "ember:mob:counter", `
function on_tick(n)
  for i = 1, n do end
  return true
end`)
	if !w.vm.Fire(char(2), "on_tick", 9000) {
		t.Fatalf("9,000 rounds under a budget of 10,000: Fire = false; reports %v", w.host.reports)
	}
	if w.vm.Fire(char(2), "on_tick", 11000) {
		t.Fatal("11,000 rounds under a budget of 10,000: Fire = true")
	}
	if r := w.lastReport(); r.msg != "test.toml:12: script timed out: over its budget of 10000 instructions" {
		t.Fatalf("report %q, want the budget with the loop's line", r.msg)
	}
	// The budget is per call: the next call starts afresh.
	if !w.vm.Fire(char(2), "on_tick", 9000) {
		t.Fatalf("a second call of 9,000 rounds: Fire = false; reports %v", w.host.reports)
	}
	if s := w.vm.Stats(); s.Timeouts != 1 {
		t.Errorf("Timeouts = %d, want 1", s.Timeouts)
	}
}

func TestBudget_LibraryWorkIsCharged(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxInstructions = 20000
	for _, tc := range []struct{ name, body string }{
		// Each is a handful of instructions whose library call does the
		// work of far more than 20,000.
		{"backtracking pattern", `string.find(string.rep("a", 60000), ".-.-.-b")`},
		{"sort", `local t = {} for i = 1, 3000 do t[i] = -i end table.sort(t) table.sort(t, function(a, b) return a > b end)`},
		{"string building", `local s = string.rep("x", 1000000) s = s:upper() s = s:lower() s = s:upper() s = s:lower() s = s:upper() s = s:lower()`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "ember", cfg)
			w.fireBody(tc.body)
			if r := w.lastReport(); !strings.Contains(r.msg, "over its budget of 20000 instructions") &&
				!strings.Contains(r.msg, "stopped: over the call's budget") {
				t.Fatalf("report %q, want the budget", r.msg)
			}
			w.healthy()
		})
	}
}

// stallHost's Log waits, as a Go binding stuck in something the count
// cannot see would, until the VM's hang guard has fired.
type stallHost struct{ *fakeHost }

func (h stallHost) Log(script, text string) {
	h.fakeHost.Log(script, text)
	for end := time.Now().Add(time.Minute); !h.vm.meter.hung() && time.Now().Before(end); {
		runtime.Gosched()
	}
}

func TestBudget_HangGuardStopsWhatTheCountCannotSee(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.vm.deadline = time.Millisecond // the real timer; the test waits for it, never measures it
	w.vm.host = stallHost{w.host}
	w.attach(char(2), "ember:mob:stuck", "function on_tick()\n  print('waiting')\n  local x = 0\n  while true do x = x + 1 end\nend")
	if w.vm.Fire(char(2), "on_tick") {
		t.Fatal("Fire = true, want the call stopped")
	}
	if r := w.lastReport(); !strings.Contains(r.msg, "still running after 1ms (the hang guard)") {
		t.Fatalf("report %q, want the hang guard", r.msg)
	}
	// The next call gets a fresh guard.
	w.vm.deadline = time.Hour
	w.vm.host = w.host
	w.healthy()
}

// TestBreaker_CannotBeDodged fires scripts that fail on a fixed share of
// their calls, as the hostile one that timed out on one call in five and
// was never switched off.
func TestBreaker_CannotBeDodged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		every   int
		fail    string
		offBy   int // switched off within this many calls; 0: never
		timeout bool
	}{
		{"a timeout in one call of five", 5, "while true do end", 15, true},
		{"a timeout in one call of twelve", 12, "while true do end", 60, true},
		{"an error in one call of five", 5, "error('now and then')", 50, false},
		{"an error in one call of ten is tolerated", 10, "error('now and then')", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "ember", DefaultConfig())
			w.attach(char(2), "ember:mob:flaky", fmt.Sprintf(`
function on_tick()
  self.state.n = (self.state.n or 0) + 1
  if self.state.n %% %d == 0 then %s end
end`, tc.every, tc.fail))
			calls := 0
			for ; calls < 2000 && w.vm.Has(char(2), "on_tick"); calls++ {
				w.vm.Fire(char(2), "on_tick")
			}
			s := w.vm.Stats()
			switch {
			case tc.offBy == 0 && s.ScriptsOff != 0:
				t.Fatalf("switched off after %d calls, want it left on", calls)
			case tc.offBy != 0 && (s.ScriptsOff != 1 || calls > tc.offBy):
				t.Fatalf("ScriptsOff = %d after %d calls, want 1 within %d", s.ScriptsOff, calls, tc.offBy)
			}
			if tc.timeout && s.Timeouts == 0 || !tc.timeout && s.Errors == 0 {
				t.Fatalf("stats %+v: the script did not fail as designed", s)
			}
		})
	}
}

func TestBudget_PulseDefersTimers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxInstructions = 10000
	cfg.PulseInstructions = 15000
	w := newWorld(t, "ember", cfg)
	w.attach(char(3), "ember:mob:heavy", `function on_tick() for i = 1, 9000 do end end`)
	w.attach(char(2), "ember:mob:waiter", `function on_greet() mud.after(1, function() self:say("on time") end) end`)
	w.vm.StartPulse()
	w.vm.Fire(char(2), "on_greet", char(1))
	w.vm.Fire(char(3), "on_tick")
	w.vm.Fire(char(3), "on_tick")
	if !w.vm.OverBudget() {
		t.Fatalf("PulseWork = %d after two calls of 9,000 rounds, want over 15,000", w.vm.PulseWork())
	}
	// The pulse's budget is spent: the timer waits.
	w.host.advance(1)
	if w.host.called("Say") || w.vm.Stats().Deferred != 1 {
		t.Fatalf("calls %v, Deferred %d: want the timer put off once", w.host.calls, w.vm.Stats().Deferred)
	}
	w.vm.StartPulse()
	w.host.advance(1)
	w.wantCalls(0, "Say char:2 on time")
	w.noReports()
}

func TestBudget_TakeHeaviest(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:light", `function on_tick() for i = 1, 10 do end end`)
	w.attach(char(3), "ember:mob:heavy", `function on_tick() for i = 1, 5000 do end end`)
	w.attach(room("ember:hall"), "ember:room:idle", `function on_enter() end`)
	w.vm.TakeHeaviest(3) // forget the chunks' work
	for i := 0; i < 3; i++ {
		w.vm.Fire(char(2), "on_tick")
		w.vm.Fire(char(3), "on_tick")
	}
	got := w.vm.TakeHeaviest(5)
	if len(got) != 2 || got[0].Key != "ember:mob:heavy" || got[1].Key != "ember:mob:light" {
		t.Fatalf("heaviest %+v, want heavy then light, not the idle room", got)
	}
	if got[0].Work < 15000 || got[0].Work > 15100 || got[0].File != "test.toml" || got[0].Line != 10 {
		t.Fatalf("heavy %+v, want about 15,000 units at test.toml:10", got[0])
	}
	if again := w.vm.TakeHeaviest(5); len(again) != 0 {
		t.Fatalf("second take %+v, want the counts started afresh", again)
	}
}
