package zone_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zonemud/world"
)

// Seed 002-10: every tick's duration is recorded, per template, where an
// admin scraping /metrics reads it (zonemud_pulse_duration_seconds). The
// test reads the series the world registers, as a scrape does, while a
// zone ticks: the count follows the pulses and the time spent is not nil.
func TestZone_EveryPulseIsTimedInTheMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := startAwakeWorld(t, func(w *world.World) {
		if err := w.Register(reg); err != nil {
			t.Fatal(err)
		}
	})
	z := w.Zone("ashridge")
	if z == nil {
		t.Fatal("ashridge is not hosted")
	}
	timed := func() (count uint64, sum float64) {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() != "zonemud_pulse_duration_seconds" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "template" && l.GetValue() == "ashridge" {
						return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
					}
				}
			}
		}
		return 0, 0
	}
	const bound = 30 * time.Second
	waitPulses := func(n uint64) {
		from := z.Pulses()
		for deadline := time.Now().Add(bound); z.Pulses() < from+n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("ashridge ticked %d times in %v, want %d", z.Pulses()-from, bound, n)
			}
		}
	}
	waitPulses(1)
	c1, s1 := timed()
	p1 := z.Pulses()
	waitPulses(5)
	c2, s2 := timed()
	p2 := z.Pulses()
	if c2 <= c1 {
		t.Fatalf("ashridge ticked %d times, but its pulse series counted %d then %d: its ticks are not timed", p2-p1, c1, c2)
	}
	if c2-c1 > p2-p1+1 {
		t.Fatalf("the series counted %d pulses while ashridge ticked %d", c2-c1, p2-p1)
	}
	if s2 <= s1 {
		t.Fatalf("the series' time went from %g s to %g s over %d pulses: the duration is not recorded", s1, s2, c2-c1)
	}
}
