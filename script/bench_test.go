package script

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFire measures one trigger call through the chokepoint: the
// deadline context, the protected call, the state check; the shared_
// cases count their work in a process's share, as every zone's VM does.
func BenchmarkFire(b *testing.B) {
	for _, bc := range []struct {
		name, src string
		share     bool
	}{
		{"empty_greet", `function on_greet(actor) end`, false},
		{"typical_greet", `function on_greet(actor) self:say("Welcome, " .. actor:name() .. "!") end`, false},
		{"shared_empty_greet", `function on_greet(actor) end`, true},
		{"shared_typical_greet", `function on_greet(actor) self:say("Welcome, " .. actor:name() .. "!") end`, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := newFakeHost("ember")
			vm := New(h, DefaultConfig())
			defer vm.Close()
			if bc.share {
				vm.UseShare(NewShare(DefaultConfig(), 100*time.Millisecond))
			}
			c, err := Compile(bc.src, "bench.toml", 1, "bench")
			if err != nil {
				b.Fatal(err)
			}
			if err := vm.Attach(char(2), c); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				vm.Fire(char(2), "on_greet", char(1))
				if len(h.calls) > 1024 {
					h.calls = h.calls[:0]
				}
			}
			b.StopTimer()
			// A stall of the machine (GC, the scheduler) past the 5 ms
			// deadline shows up here as a timeout; count, do not fail.
			b.ReportMetric(float64(len(h.reports)), "reports")
		})
	}
}

// BenchmarkPulse fires on_tick on 500 scripted entities, as one zone
// pulse with every mob scripted would; ns/op is per pulse.
func BenchmarkPulse(b *testing.B) {
	h := newFakeHost("ember")
	vm := New(h, DefaultConfig())
	defer vm.Close()
	c, err := Compile(`
function on_tick()
  self.state.ticks = (self.state.ticks or 0) + 1
  if self.state.ticks % 10 == 0 and mud.random(4) == 1 then
    self:emote("scratches.")
  end
end`, "bench.toml", 1, "bench:tick")
	if err != nil {
		b.Fatal(err)
	}
	const n = 500
	for i := 0; i < n; i++ {
		id := char(uint64(1000 + i))
		h.chars[id.RID] = &fakeChar{name: fmt.Sprint("mob", i), short: "a mob", room: "ember:hall"}
		if err := vm.Attach(id, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < n; j++ {
			vm.Fire(char(uint64(1000+j)), "on_tick")
		}
		h.calls = h.calls[:0]
	}
	b.StopTimer()
	b.ReportMetric(float64(len(h.reports)), "reports")
	b.ReportMetric(float64(vm.Stats().MemBytes), "vm-bytes")
}

// BenchmarkWork runs scripts of typical kinds to their budget's worth of
// work and reports the time per unit of a call's budget: how the default
// budgets (max_instructions, pulse_instructions) translate into time on
// the machine at hand.
func BenchmarkWork(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"arithmetic_loop", `function on_tick() local x = 0 for i = 1, 20000 do x = x + i * 2 end self.state.x = x end`},
		{"table_and_calls", `function on_tick() local t = {} for i = 1, 2000 do t[#t + 1] = math.floor(i / 3) end self.state.n = #t end`},
		{"strings", `function on_tick() local s = "" for i = 1, 500 do s = string.sub(s .. tostring(i), -64) end self.state.s = s end`},
		{"handles", `function on_tick() for i = 1, 1000 do local r = self:room() local n = self:name() end end`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := newFakeHost("ember")
			cfg := DefaultConfig()
			cfg.MaxInstructions = 100000000
			cfg.PulseInstructions = cfg.MaxInstructions
			vm := New(h, cfg)
			defer vm.Close()
			c, err := Compile(bc.src, "bench.toml", 1, "bench")
			if err != nil {
				b.Fatal(err)
			}
			if err := vm.Attach(char(2), c); err != nil {
				b.Fatal(err)
			}
			before := vm.Stats().Work
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				vm.Fire(char(2), "on_tick")
			}
			b.StopTimer()
			work := vm.Stats().Work - before
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(work), "ns/unit")
			b.ReportMetric(float64(work)/float64(b.N), "units/op")
			b.ReportMetric(float64(len(h.reports)), "reports")
		})
	}
}
