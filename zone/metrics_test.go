package zone_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zonemud/world"
	"zonemud/zone"
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

// flushCounts reads zonemud_zone_flushes_total from reg, by cause.
func flushCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "zonemud_zone_flushes_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "cause" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// Every flush of a player's waiting output is counted by its cause in
// zonemud_zone_flushes_total: the census an admin, and the load tool, read
// to see what a workload's writes are for. A say is the talker's answer
// and the hearer's talk; an arrival is news to those who had output in the
// last second, told when the second is up; in a crowded room talk is
// gathered for the room's gap.
func TestZone_FlushesAreCountedByCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		met := zone.NewMetrics(nil)
		reg.MustRegister(met)
		w, _ := benchWorld(t)
		set := w.Content()
		cfg := zone.DefaultConfig()
		cfg.Dormant = false
		cfg.CrowdSize = 3 // a fourth player makes the room a crowd
		z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1, Metrics: met})
		z.BootForTest()
		talker := arrive(t, z, "Talker")
		hearer := arrive(t, z, "Hearer")
		time.Sleep(2 * time.Second)
		talker.take()
		hearer.take()
		before := flushCounts(t, reg)
		since := func() map[string]float64 {
			now := flushCounts(t, reg)
			d := map[string]float64{}
			for k, v := range now {
				if v != before[k] {
					d[k] = v - before[k]
				}
			}
			before = now
			return d
		}
		want := func(what string, d map[string]float64, cause string, n float64) {
			t.Helper()
			if len(d) != 1 || d[cause] != n {
				t.Fatalf("%s: flushes counted %v, want %s %v and nothing else", what, d, cause, n)
			}
		}

		z.QueueInputForTest(talker, 1, "say hello")
		z.BatchForTest()
		if d := since(); len(d) != 2 || d["answer"] != 1 || d["talk"] != 1 {
			t.Fatalf("a say in a quiet room: flushes counted %v, want the talker's answer 1 and the hearer's talk 1", d)
		}
		if got := hearer.take(); len(got) != 1 {
			t.Fatalf("the hearer got %d writes for one say, want 1", len(got))
		}
		talker.take()

		time.Sleep(200 * time.Millisecond)
		z.Arrive(&zone.CharRecord{Name: "Latecomer", Level: 1}, newWriteSession(), "", "")
		z.DrainWithGapForTest()
		since() // the latecomer's own arrival
		time.Sleep(time.Second)
		z.BatchForTest()
		want("an arrival a second later", since(), "news", 2)
		if got := hearer.take(); len(got) != 1 || !strings.Contains(got[0], "Latecomer") {
			t.Fatalf("the hearer got %q, want the arrival in one write", got)
		}

		arrive(t, z, "Fourth") // the room is a crowd now
		time.Sleep(2 * time.Second)
		z.BatchForTest()
		since()
		talker.take()
		hearer.take()
		z.QueueInputForTest(talker, 2, "say one")
		z.BatchForTest()
		time.Sleep(10 * time.Millisecond)
		z.QueueInputForTest(talker, 3, "say two")
		z.BatchForTest()
		if got := hearer.take(); len(got) != 1 || strings.Contains(got[0], "two") {
			t.Fatalf("in a crowd the hearer got %q, want the first say at once and the second held for the gap", got)
		}
		time.Sleep(time.Second)
		z.BatchForTest()
		if got := hearer.take(); len(got) != 1 || !strings.Contains(got[0], "two") {
			t.Fatalf("after the gap the hearer got %q, want the second say", got)
		}
		if d := since(); d["answer"] != 2 || d["gathered"] != 6 || len(d) != 2 {
			t.Fatalf("two says in a crowd: flushes counted %v, want the talker's 2 answers and 6 gathered (3 hearers at once, 3 after the gap)", d)
		}
	})
}
