package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name string
		data []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{7}, 50, 7},
		{"one value p99", []time.Duration{7}, 99, 7},
		{"two p50 is the lower", []time.Duration{1, 2}, 50, 1},
		{"two p51 is the upper", []time.Duration{1, 2}, 51, 2},
		{"1..100 p50", hundred, 50, 50 * time.Millisecond},
		{"1..100 p90", hundred, 90, 90 * time.Millisecond},
		{"1..100 p99", hundred, 99, 99 * time.Millisecond},
		{"1..100 p99.5", hundred, 99.5, 100 * time.Millisecond},
		{"1..100 p100", hundred, 100, 100 * time.Millisecond},
		{"1..100 p1", hundred, 1, time.Millisecond},
		{"1..100 tiny p", hundred, 0.001, time.Millisecond},
		{"ten p99 is the max", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 10},
		{"ten p90", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.data, tc.p); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHistogram_Buckets(t *testing.T) {
	prev := -1
	for v := int64(0); v < 1<<41; v = v + 1 + v/97 {
		i := histIndex(v)
		if i < prev {
			t.Fatalf("histIndex(%d) = %d, below histIndex of a smaller value (%d)", v, i, prev)
		}
		prev = i
		if v >= 1<<histMaxBits {
			if i != histBuckets-1 {
				t.Fatalf("histIndex(%d) = %d, want the last bucket", v, i)
			}
			continue
		}
		mid := histValue(i)
		if rel := math.Abs(float64(mid-v)) / float64(max(v, 1)); rel > 1.0/histSub {
			t.Fatalf("value %d in bucket %d reads back as %d (%.2f%% off)", v, i, mid, rel*100)
		}
	}
}

func TestHistogram_MatchesPercentile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h histogram
	data := make([]time.Duration, 20000)
	for i := range data {
		// Log-normal around 500µs with a long tail, like round trips.
		d := time.Duration(math.Exp(rng.NormFloat64()*1.2) * float64(500*time.Microsecond))
		data[i] = d
		h.record(d)
	}
	slices.Sort(data)
	for _, p := range []float64{1, 50, 90, 99, 99.9, 100} {
		want := percentile(data, p)
		got := h.quantile(p)
		if rel := math.Abs(float64(got-want)) / float64(want); rel > 1.0/histSub {
			t.Errorf("p%v: histogram %v, exact %v (%.2f%% off)", p, got, want, rel*100)
		}
	}
	if got, want := h.quantile(100), data[len(data)-1]; got != want {
		t.Errorf("max: got %v, want exactly %v", got, want)
	}
	if got := h.latency().Count; got != len(data) {
		t.Errorf("count: got %d, want %d", got, len(data))
	}
	var empty histogram
	if got := empty.latency(); got != (Latency{}) {
		t.Errorf("empty histogram: got %+v, want zero", got)
	}
}

func TestMs(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{45 * time.Microsecond, "0.045ms"},
		{400 * time.Microsecond, "0.4ms"},
		{3100 * time.Microsecond, "3.1ms"},
		{12 * time.Millisecond, "12ms"},
		{12340 * time.Microsecond, "12.3ms"},
		{1234 * time.Millisecond, "1234ms"},
	} {
		if got := ms(tc.d); got != tc.want {
			t.Errorf("ms(%v): got %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestSummary_Text(t *testing.T) {
	s := &Summary{
		Addr: "127.0.0.1:4000", Bots: 1000, Every: 2 * time.Second, Measured: 60 * time.Second,
		Attempted: 1000, Connected: 1000, LoggedIn: 1000,
		Login: Latency{Count: 1000, P50: 3100 * time.Microsecond, P99: 12 * time.Millisecond, Max: 40 * time.Millisecond},
		Sent:  30012, Answered: 30012, PerSec: 500.2, TargetRate: 500,
		RoundTrip:   Latency{Count: 30012, P50: 400 * time.Microsecond, P90: 900 * time.Microsecond, P99: 2100 * time.Microsecond, Max: 9800 * time.Microsecond},
		Unsolicited: 1234, Scenario: "crowd",
	}
	want := `loadbot: crowd, 1000 bots -> 127.0.0.1:4000 over telnet, one command every 2s (±20%), 60s measured
connections: 1000/1000 made, 0 login failures, login p50 3.1ms p99 12ms max 40ms
commands: 30012 sent, 30012 answered, 0 timeouts, 500.2/s (target 500.0/s)
round trip: p50 0.4ms p90 0.9ms p99 2.1ms max 9.8ms
unsolicited prompts: 1234; disconnects: 0
`
	if got := s.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	s.ConnFailures, s.Connected = 2, 998
	s.Failures = []FailureReason{{Reason: "connect: connection refused", Count: 2}}
	if got := s.Text(); !strings.Contains(got, "998/1000 made (2 failed)") || !strings.Contains(got, "2 x connect: connection refused") {
		t.Errorf("failures missing:\n%s", got)
	}

	s.Quits, s.NoFarewell = 998, 1
	s.Farewell = Latency{Count: 997, P50: 300 * time.Millisecond, P99: 900 * time.Millisecond, Max: 1200 * time.Millisecond}
	s.Server = &Server{PID: 42, CPU: 0.93, RSSBase: 14 << 20, RSSPlay: 114 << 20, RSSQuit: 100 << 20, RSSEnd: 90 << 20, RSSPeak: 120 << 20, PerPlayer: 100 << 10,
		AnonPlay: 80 << 20, AnonQuit: 70 << 20,
		Lateness: []ZoneLateness{{Zone: "emberfall", Worst: 12 * time.Millisecond, P99: 5 * time.Millisecond, Pulses: 240},
			{Zone: "ashridge", Worst: 3 * time.Millisecond, P99: math.MaxInt64, Pulses: 200}}}
	got := s.Text()
	for _, want := range []string{
		"quit: 998 bots quit at once; farewell p50 300ms p99 900ms last 1200ms; 1 without one",
		"server pid 42: CPU 93% of one core over the window (the load tool: 0%)",
		"server RSS: 14.0 MiB before, 114.0 MiB in play (100.0 KiB per player), 100.0 MiB at most from the quit on, 90.0 MiB at the end; 120.0 MiB at the peak",
		"server RSS less mapped files (heap, stacks): 80.0 MiB in play, 70.0 MiB at most from the quit on",
		"pulse lateness (worst zones first): emberfall worst 12ms p99 <= 5ms of 240;",
		// A p99 in the histogram's +Inf bucket has no bound to print.
		" ashridge worst 3ms p99 past the histogram's last bucket, of 200;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}

	// -json carries what the text does: the series and the bad clients too.
	s.Series = []SeriesSummary{{Name: "mint", Latency: Latency{Count: 9, P99: 20 * time.Millisecond}, Refused: 2}}
	s.Disruptions = &DisruptionReport{Burst: 60, BurstAnswered: 60, BurstInOrder: true, BurstLast: 54 * time.Millisecond}
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"series":[{"name":"mint","round_trip":{"count":9`, `"refused":2}`, `"burst_answered":60`, `"burst_last_ms":54`, `"burst_in_order":true`, `"rss_anon_play_bytes":83886080`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}
