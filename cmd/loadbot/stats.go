package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value with at least p% of the values at
// or below it. It returns 0 for no data.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[rankIndex(uint64(len(sorted)), p)]
}

// rankIndex is the zero-based index of the nearest-rank p-th percentile of n
// values.
func rankIndex(n uint64, p float64) uint64 {
	r := math.Ceil(p / 100 * float64(n))
	if r < 1 {
		r = 1
	}
	if r > float64(n) {
		r = float64(n)
	}
	return uint64(r) - 1
}

// Histogram layout: values below histExact nanoseconds have a bucket each;
// above, every power of two is split into histSub buckets, so a bucket is at
// most 1/histSub (0.8%) of its value wide. Values from 2^histMaxBits ns
// (about 18 minutes) on share the last bucket.
const (
	histSubBits = 7
	histSub     = 1 << histSubBits // 128
	histExact   = 2 * histSub      // 256
	histMaxBits = 40
	histBuckets = histExact + (histMaxBits-histSubBits-1)*histSub
)

// histogram is a log-linear latency histogram that many goroutines record
// into without a lock. Every field is atomic. It is about 36 KB whatever the
// number of samples, so its cost does not grow with bots or run length;
// quantiles are within 0.8% of the exact value, and max is exact.
//
// One shared histogram (rather than shards) is enough: a record is three
// uncontended-in-practice atomic adds, and MUD command rates (thousands per
// second) are far below where cache-line traffic would show.
type histogram struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Uint64
	max    atomic.Int64
}

func histIndex(v int64) int {
	if v < histExact {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	e := bits.Len64(uint64(v)) - (histSubBits + 1) // v>>e is in [histSub, 2*histSub)
	i := histExact + (e-1)*histSub + int(v>>e) - histSub
	if i >= histBuckets {
		return histBuckets - 1
	}
	return i
}

// histValue is the middle of bucket i.
func histValue(i int) int64 {
	if i < histExact {
		return int64(i)
	}
	e := (i-histExact)/histSub + 1
	m := int64((i-histExact)%histSub + histSub)
	return m<<e + (int64(1)<<e)/2
}

func (h *histogram) record(d time.Duration) {
	v := int64(d)
	h.counts[histIndex(v)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

func (h *histogram) count() uint64 { return h.n.Load() }

// quantile returns the nearest-rank p-th percentile, like percentile, to
// within one bucket. Call it once recording has stopped.
func (h *histogram) quantile(p float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	maxv := h.max.Load()
	if p >= 100 {
		return time.Duration(maxv)
	}
	want := rankIndex(n, p) + 1
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= want {
			return time.Duration(min(histValue(i), maxv))
		}
	}
	return time.Duration(maxv)
}

// Latency summarises a set of durations.
type Latency struct {
	Count         int
	P50, P90, P99 time.Duration
	Max           time.Duration
}

func latencyOf(sorted []time.Duration) Latency {
	if len(sorted) == 0 {
		return Latency{}
	}
	return Latency{
		Count: len(sorted),
		P50:   percentile(sorted, 50),
		P90:   percentile(sorted, 90),
		P99:   percentile(sorted, 99),
		Max:   sorted[len(sorted)-1],
	}
}

func (h *histogram) latency() Latency {
	return Latency{
		Count: int(h.count()),
		P50:   h.quantile(50),
		P90:   h.quantile(90),
		P99:   h.quantile(99),
		Max:   h.quantile(100),
	}
}

// Summary is the result of a run.
type Summary struct {
	Addr     string
	Scenario string
	SSH      bool   // the bots logged in over SSH
	Front    string // "web" or "mixed" (Config.Front); "" is telnet
	GMCP     bool   // telnet bots asked for GMCP (Config.GMCP)
	WebAddr  string // with Front
	Bots     int
	Every    time.Duration
	Measured time.Duration // the measured window as it happened (shorter if interrupted)

	Attempted     int // connections tried
	Connected     int // connections made
	ConnFailures  int
	LoginFailures int
	LoggedIn      int
	Login         Latency // dial to first prompt, bots that logged in
	Failures      []FailureReason

	Sent         int64 // commands sent in the window
	Answered     int64 // of those, answered by a prompt
	Timeouts     int64 // of those, no prompt within the reply timeout
	Lost         int64 // of those, the connection dropped first
	Skipped      int64 // send times passed while the previous command was unanswered
	PerSec       float64
	TargetRate   float64 // commands per second the logged-in bots aim at
	RoundTrip    Latency
	Hear         bool    // says were stamped (Config.Hear)
	Heard        Latency // from a say sent to each other bot reading it
	Channel      float64 // fraction of commands sent on gossip (Config.Channel)
	ChannelHeard Latency // from a gossip line sent to each other bot reading it
	Unsolicited  int64   // prompts in the window that answered no command
	Disconnects  int     // connections the server dropped after login

	Walked    int64 // steps the bots walked away from the start room before the window
	ByKey     int   // SSH: bots the key logged in
	KeysAdded int   // SSH: bots that registered the key in game

	Quits      int     // bots that sent quit at the end
	NoFarewell int     // of those, ones the server did not close within the quit wait
	Farewell   Latency // from the quit storm's start to the server closing each connection

	Server *Server // nil without -pid and -metrics

	Disruptions *DisruptionReport // nil without -slow, -drop or -burst

	// Series are the commands counted on their own (Scenario.Series, and
	// each kind of command of a mix).
	Series []SeriesSummary

	// Mix is the weights of a mix (Config.Mix) by kind, nil without one;
	// Deaths, the times its bots were slain.
	Mix    []float64
	Deaths int64
	Kills  int64 // fights the bots saw end in their foe's death
}

// SeriesSummary is one command's own count over the window: the round
// trips of its successes, and its refusals.
type SeriesSummary struct {
	Name    string
	Latency Latency
	Refused int64
}

// FailureReason counts connection or login failures of one kind.
type FailureReason struct {
	Reason  string
	Count   int
	Example string // one server line or error, for a human to read
}

// Failed reports whether anything went wrong: a connection or login failure,
// a timeout, a lost command or a disconnect.
func (s *Summary) Failed() bool {
	return s.ConnFailures > 0 || s.LoginFailures > 0 || s.Timeouts > 0 || s.Lost > 0 || s.Disconnects > 0
}

// Text renders the summary for a human.
func (s *Summary) Text() string {
	var b strings.Builder
	via := "telnet"
	addr := s.Addr
	switch {
	case s.SSH:
		via = "ssh"
	case s.Front == "web":
		via, addr = "web (WebSocket, gmcp.mudstandards.org)", s.WebAddr
	case s.Front == "mixed":
		via, addr = "telnet and web, half each", s.Addr+" and "+s.WebAddr
	}
	if s.GMCP && !s.SSH {
		via = strings.Replace(via, "telnet", "telnet with GMCP", 1)
	}
	scen := s.Scenario
	if scen == "" {
		scen = "custom"
	}
	fmt.Fprintf(&b, "loadbot: %s, %d bots -> %s over %s, one command every %s (±20%%), %s measured\n",
		scen, s.Bots, addr, via, secs(s.Every), secs(s.Measured.Round(time.Millisecond)))
	fmt.Fprintf(&b, "connections: %d/%d made", s.Connected, s.Attempted)
	if s.ConnFailures > 0 {
		fmt.Fprintf(&b, " (%d failed)", s.ConnFailures)
	}
	fmt.Fprintf(&b, ", %d login failures, login p50 %s p99 %s max %s\n",
		s.LoginFailures, ms(s.Login.P50), ms(s.Login.P99), ms(s.Login.Max))
	for _, f := range s.Failures {
		fmt.Fprintf(&b, "  %d x %s", f.Count, f.Reason)
		if f.Example != "" {
			fmt.Fprintf(&b, " (e.g. %q)", f.Example)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "commands: %d sent, %d answered, %d timeouts, %.1f/s (target %.1f/s)",
		s.Sent, s.Answered, s.Timeouts, s.PerSec, s.TargetRate)
	if s.Lost > 0 {
		fmt.Fprintf(&b, ", %d lost to disconnects", s.Lost)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d sends skipped (previous command unanswered)", s.Skipped)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "round trip: p50 %s p90 %s p99 %s max %s\n",
		ms(s.RoundTrip.P50), ms(s.RoundTrip.P90), ms(s.RoundTrip.P99), ms(s.RoundTrip.Max))
	if s.Hear {
		fmt.Fprintf(&b, "heard: %d says read by others, p50 %s p90 %s p99 %s max %s\n",
			s.Heard.Count, ms(s.Heard.P50), ms(s.Heard.P90), ms(s.Heard.P99), ms(s.Heard.Max))
	}
	if s.Channel > 0 {
		fmt.Fprintf(&b, "channel: %.3g%% of commands on gossip; %d gossip lines read by others, p50 %s p90 %s p99 %s max %s\n",
			100*s.Channel, s.ChannelHeard.Count, ms(s.ChannelHeard.P50), ms(s.ChannelHeard.P90), ms(s.ChannelHeard.P99), ms(s.ChannelHeard.Max))
	}
	if s.Mix != nil {
		b.WriteString("mix:")
		for i, w := range s.Mix {
			fmt.Fprintf(&b, " %s=%g", mixNames[i], w)
		}
		fmt.Fprintf(&b, "; from login to quit %d kills, %d deaths\n", s.Kills, s.Deaths)
	}
	for _, sr := range s.Series {
		fmt.Fprintf(&b, "%s: %d answered, p50 %s p90 %s p99 %s max %s; %d refused\n",
			sr.Name, sr.Latency.Count, ms(sr.Latency.P50), ms(sr.Latency.P90), ms(sr.Latency.P99), ms(sr.Latency.Max), sr.Refused)
	}
	fmt.Fprintf(&b, "unsolicited prompts: %d; disconnects: %d\n", s.Unsolicited, s.Disconnects)
	if s.Walked > 0 {
		fmt.Fprintf(&b, "walk: %d steps away from the start room before measuring\n", s.Walked)
	}
	if s.SSH {
		fmt.Fprintf(&b, "ssh: %d logged in by key, %d registered the key in game\n", s.ByKey, s.KeysAdded)
	}
	if s.Quits > 0 {
		fmt.Fprintf(&b, "quit: %d bots quit at once; farewell p50 %s p99 %s last %s; %d without one\n",
			s.Quits, ms(s.Farewell.P50), ms(s.Farewell.P99), ms(s.Farewell.Max), s.NoFarewell)
	}
	if d := s.Disruptions; d != nil {
		b.WriteString(d.text())
	}
	if v := s.Server; v != nil {
		if v.PID != 0 {
			fmt.Fprintf(&b, "server pid %d: CPU %.0f%% of one core over the window (the load tool: %.0f%%)\n", v.PID, 100*v.CPU, 100*v.ToolCPU)
			fmt.Fprintf(&b, "server RSS: %s before, %s in play (%s per player), %s at most from the quit on, %s at the end; %s at the peak\n",
				mib(v.RSSBase), mib(v.RSSPlay), kib(v.PerPlayer), mib(v.RSSQuit), mib(v.RSSEnd), mib(v.RSSPeak))
			if v.AnonPlay > 0 && v.AnonQuit > 0 {
				fmt.Fprintf(&b, "server RSS less mapped files (heap, stacks): %s in play, %s at most from the quit on\n", mib(v.AnonPlay), mib(v.AnonQuit))
			}
		}
		if v.Writes >= 0 && v.Lines > 0 {
			fmt.Fprintf(&b, "server output: %d lines in %d writes over the window, %.3f writes per line\n",
				v.Lines, v.Writes, float64(v.Writes)/float64(v.Lines))
		}
		if len(v.Flushes) > 0 {
			b.WriteString(flushesText(v.Flushes))
		}
		if len(v.Lateness) > 0 {
			b.WriteString("pulse lateness (worst zones first):")
			for i, z := range v.Lateness {
				if i == 5 {
					fmt.Fprintf(&b, " and %d more", len(v.Lateness)-i)
					break
				}
				fmt.Fprintf(&b, " %s worst %s", z.Zone, ms(z.Worst))
				switch {
				case z.Pulses > 0 && z.P99 == math.MaxInt64:
					fmt.Fprintf(&b, " p99 past the histogram's last bucket, of %d", z.Pulses)
				case z.Pulses > 0:
					fmt.Fprintf(&b, " p99 <= %s of %d", ms(z.P99), z.Pulses)
				}
				b.WriteByte(';')
			}
			b.WriteByte('\n')
		}
		for _, e := range v.Errors {
			fmt.Fprintf(&b, "server watch: %s\n", e)
		}
	}
	return b.String()
}

// secs formats whole seconds as "60s" rather than "1m0s".
func secs(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// mib formats bytes in MiB.
func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// kib formats bytes in KiB.
func kib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB" }

// ms formats d in milliseconds with about three significant digits.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	var s string
	switch {
	case v >= 100:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 3, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "ms"
}

// jsonLatency is Latency in milliseconds, for scripts.
type jsonLatency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func (l Latency) json() jsonLatency {
	f := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return jsonLatency{Count: l.Count, P50: f(l.P50), P90: f(l.P90), P99: f(l.P99), Max: f(l.Max)}
}

// JSON renders the summary as one JSON object; durations are milliseconds.
func (s *Summary) JSON() ([]byte, error) {
	type reason struct {
		Reason  string `json:"reason"`
		Count   int    `json:"count"`
		Example string `json:"example,omitempty"`
	}
	reasons := make([]reason, 0, len(s.Failures))
	for _, f := range s.Failures {
		reasons = append(reasons, reason(f))
	}
	type zoneLate struct {
		Zone    string  `json:"zone"`
		WorstMS float64 `json:"worst_ms"`
		P99MS   float64 `json:"p99_ms,omitempty"`
		Pulses  int64   `json:"pulses,omitempty"`
	}
	type server struct {
		PID         int        `json:"pid,omitempty"`
		CPU         float64    `json:"cpu_cores"`
		ToolCPU     float64    `json:"tool_cpu_cores"`
		RSSBase     int64      `json:"rss_base_bytes"`
		RSSPlay     int64      `json:"rss_play_bytes"`
		RSSQuit     int64      `json:"rss_quit_bytes"`
		RSSEnd      int64      `json:"rss_end_bytes"`
		RSSPeak     int64      `json:"rss_peak_bytes"`
		PerPlayer   int64      `json:"rss_per_player_bytes"`
		AnonPlay    int64      `json:"rss_anon_play_bytes,omitempty"`
		AnonQuit    int64      `json:"rss_anon_quit_bytes,omitempty"`
		Lateness    []zoneLate `json:"pulse_lateness"`
		Writes      int64      `json:"writes"`
		Lines       int64      `json:"lines"`
		WatchErrors []string   `json:"errors,omitempty"`
	}
	var srv *server
	if v := s.Server; v != nil {
		srv = &server{PID: v.PID, CPU: v.CPU, ToolCPU: v.ToolCPU, RSSBase: v.RSSBase, RSSPlay: v.RSSPlay, RSSQuit: v.RSSQuit,
			RSSEnd: v.RSSEnd, RSSPeak: v.RSSPeak, PerPlayer: v.PerPlayer, AnonPlay: v.AnonPlay, AnonQuit: v.AnonQuit, WatchErrors: v.Errors, Writes: v.Writes, Lines: v.Lines}
		for _, z := range v.Lateness {
			f := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			srv.Lateness = append(srv.Lateness, zoneLate{z.Zone, f(z.Worst), f(z.P99), z.Pulses})
		}
	}
	type series struct {
		Name    string      `json:"name"`
		Latency jsonLatency `json:"round_trip"`
		Refused int64       `json:"refused"`
	}
	var sers []series
	for _, sr := range s.Series {
		sers = append(sers, series{sr.Name, sr.Latency.json(), sr.Refused})
	}
	type disruptions struct {
		Slow         int         `json:"slow"`
		SlowLoggedIn int         `json:"slow_logged_in"`
		SlowCut      int         `json:"slow_cut"`
		SlowCutAfter jsonLatency `json:"slow_cut_after"`
		Drop         int         `json:"drop"`
		DropLoggedIn int         `json:"drop_logged_in"`
		DropFailed   int         `json:"drop_failed"`
		DropLogins   jsonLatency `json:"drop_logins"`
		Burst        int         `json:"burst"`
		BurstAnswer  int         `json:"burst_answered"`
		BurstLastMS  float64     `json:"burst_last_ms"`
		BurstInOrder bool        `json:"burst_in_order"`
	}
	var dis *disruptions
	if d := s.Disruptions; d != nil {
		dis = &disruptions{d.Slow, d.SlowLoggedIn, d.SlowCut, d.SlowCutAfter.json(), d.Drop, d.DropLoggedIn, d.DropFailed,
			d.DropLogins.json(), d.Burst, d.BurstAnswered, float64(d.BurstLast) / float64(time.Millisecond), d.BurstInOrder}
	}
	var heard *jsonLatency
	if s.Hear {
		h := s.Heard.json()
		heard = &h
	}
	var heardCh *jsonLatency
	if s.Channel > 0 {
		h := s.ChannelHeard.json()
		heardCh = &h
	}
	return json.Marshal(struct {
		Addr          string       `json:"addr"`
		Scenario      string       `json:"scenario"`
		SSH           bool         `json:"ssh"`
		Bots          int          `json:"bots"`
		EveryMS       float64      `json:"every_ms"`
		MeasuredS     float64      `json:"measured_s"`
		Attempted     int          `json:"attempted"`
		Connected     int          `json:"connected"`
		ConnFailures  int          `json:"conn_failures"`
		LoginFailures int          `json:"login_failures"`
		LoggedIn      int          `json:"logged_in"`
		Login         jsonLatency  `json:"login"`
		Failures      []reason     `json:"failures"`
		Sent          int64        `json:"sent"`
		Answered      int64        `json:"answered"`
		Timeouts      int64        `json:"timeouts"`
		Lost          int64        `json:"lost"`
		Skipped       int64        `json:"skipped"`
		PerSec        float64      `json:"per_sec"`
		TargetRate    float64      `json:"target_per_sec"`
		RoundTrip     jsonLatency  `json:"round_trip"`
		Heard         *jsonLatency `json:"heard,omitempty"`
		Channel       float64      `json:"channel,omitempty"`
		ChannelHeard  *jsonLatency `json:"channel_heard,omitempty"`
		Unsolicited   int64        `json:"unsolicited_prompts"`
		Disconnects   int          `json:"disconnects"`
		Walked        int64        `json:"walked"`
		ByKey         int          `json:"by_key"`
		KeysAdded     int          `json:"keys_added"`
		Quits         int          `json:"quits"`
		NoFarewell    int          `json:"no_farewell"`
		Farewell      jsonLatency  `json:"farewell"`
		Series        []series     `json:"series,omitempty"`
		Mix           []float64    `json:"mix,omitempty"`
		Deaths        int64        `json:"deaths,omitempty"`
		Kills         int64        `json:"kills,omitempty"`
		Disruptions   *disruptions `json:"disruptions,omitempty"`
		Server        *server      `json:"server,omitempty"`
	}{
		s.Addr, s.Scenario, s.SSH, s.Bots, float64(s.Every) / float64(time.Millisecond), s.Measured.Seconds(),
		s.Attempted, s.Connected, s.ConnFailures, s.LoginFailures, s.LoggedIn, s.Login.json(), reasons,
		s.Sent, s.Answered, s.Timeouts, s.Lost, s.Skipped, s.PerSec, s.TargetRate, s.RoundTrip.json(), heard, s.Channel, heardCh,
		s.Unsolicited, s.Disconnects, s.Walked, s.ByKey, s.KeysAdded, s.Quits, s.NoFarewell, s.Farewell.json(), sers, s.Mix, s.Deaths, s.Kills, dis, srv,
	})
}

// failureTally groups failures by reason. Owned by the goroutine that builds
// the summary.
type failureTally map[string]*FailureReason

func (t failureTally) add(reason, example string) {
	f := t[reason]
	if f == nil {
		f = &FailureReason{Reason: reason, Example: example}
		t[reason] = f
	}
	f.Count++
}

// sorted lists the reasons, most frequent first.
func (t failureTally) sorted() []FailureReason {
	out := make([]FailureReason, 0, len(t))
	for _, f := range t {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

func sortedDurations(d []time.Duration) []time.Duration {
	slices.Sort(d)
	return d
}

// flushCauses is the order flushesText gives the server's causes in; any
// other cause follows, by name.
var flushCauses = []string{"answer", "talk", "gathered", "news", "other"}

// flushesText is the line of the report that says what the server's
// flushes of output were for, each cause with its share of the whole.
func flushesText(by map[string]int64) string {
	var total int64
	causes := slices.Clone(flushCauses)
	for cause, n := range by {
		total += n
		if !slices.Contains(causes, cause) {
			causes = append(causes, cause)
		}
	}
	slices.Sort(causes[len(flushCauses):])
	var b strings.Builder
	b.WriteString("zone flushes by cause:")
	sep := " "
	for _, cause := range causes {
		n, ok := by[cause]
		if !ok {
			continue
		}
		share := 0.0
		if total > 0 {
			share = 100 * float64(n) / float64(total)
		}
		fmt.Fprintf(&b, "%s%s %d (%.0f%%)", sep, cause, n, share)
		sep = ", "
	}
	b.WriteString("\n")
	return b.String()
}
