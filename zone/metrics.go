package zone

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zonemud/script"
)

// Metrics are the figures the zones of one world keep, labelled by
// template: every copy of a template adds to its template's series, so a
// label never carries an instance id (an id as a label would be unbounded,
// player-driven cardinality). One Metrics serves every zone of a world
// (Options.Metrics). Counters and histograms are written by the zones'
// goroutines as they go; the gauges (inbox depth, players, worst lateness)
// are read from each hosted zone's atomics when scraped. It is a
// prometheus.Collector; the wiring registers it.
type Metrics struct {
	zones func() []*Zone // the hosted zones, for the gauges; nil: none

	pulse     *prometheus.HistogramVec
	lateness  *prometheus.HistogramVec
	messages  *prometheus.CounterVec
	batches   *prometheus.CounterVec
	faults    *prometheus.CounterVec
	flushes   *prometheus.CounterVec
	roundTrip prometheus.Histogram
	lua       *script.Metrics

	inboxDesc, playersDesc, worstDesc *prometheus.Desc
}

// LatenessBounds are the upper bounds of the pulse lateness and duration
// histograms.
var LatenessBounds = []float64{0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}

// The kinds of fault faults_total counts: a handler's panic while handling
// a message, a pulse callback's, a keyed task's.
const (
	faultMessage = "message"
	faultPulse   = "pulse"
	faultTask    = "task"
)

// NewMetrics makes the zone series. zones lists the hosted zones for the
// gauges read at scrape time; nil leaves those out.
func NewMetrics(zones func() []*Zone) *Metrics {
	byTemplate := []string{"template"}
	return &Metrics{
		zones: zones,
		pulse: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "zonemud", Name: "pulse_duration_seconds", Buckets: LatenessBounds,
			Help: "How long a zone's pulse ran (timers, tasks, scripts' on_tick), per template.",
		}, byTemplate),
		lateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "zonemud", Name: "pulse_lateness_seconds", Buckets: LatenessBounds,
			Help: "How late a zone took each pulse after its ticker fired (it was busy with messages), per template.",
		}, byTemplate),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "zone_messages_total",
			Help: "Messages zones handled (input, arrivals, mail from other zones and the world), per template.",
		}, byTemplate),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "zone_batches_total",
			Help: "Batches of messages zones handled together before one flush of output, per template.",
		}, byTemplate),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "faults_total",
			Help: "Panics a zone recovered from and survived, by template and kind: message (a handler), pulse (a timer), task.",
		}, []string{"template", "kind"}),
		flushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "zone_flushes_total",
			Help: "Players' waiting output handed to their connections, by cause: answer (the answer to their own command, or else what ends with a prompt at once: a fight's round, an affect wearing off), talk (others' words or deeds " +
				"in a room that is not crowded, and whatever else goes at once without answering a command: a tell, the first look on entering), gathered (the same in a crowded room, which waits out the room's gap), news (comings, goings " +
				"and channel lines, which wait for newsGap), other (before a crossing, a quit, a new connection). Summed over zones.",
		}, []string{"cause"}),
		roundTrip: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "zonemud", Name: "command_round_trip_seconds",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
			Help:    "From the moment a session's reader posts a line to the flush of the answer to the player's connection: the time a command spends inside the server.",
		}),
		lua:         script.NewMetrics(),
		inboxDesc:   prometheus.NewDesc("zonemud_zone_inbox_depth", "Messages waiting in the zones' inboxes and mailboxes, per template.", byTemplate, nil),
		playersDesc: prometheus.NewDesc("zonemud_zone_players", "Players in the zones, link-dead included, per template.", byTemplate, nil),
		worstDesc:   prometheus.NewDesc("zonemud_pulse_lateness_worst_seconds", "The worst pulse lateness since the last scrape, per template (each scrape starts it afresh, so two scrapers share it).", byTemplate, nil),
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.pulse, m.lateness, m.messages, m.batches, m.faults, m.flushes, m.roundTrip, m.lua}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
	ch <- m.inboxDesc
	ch <- m.playersDesc
	ch <- m.worstDesc
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
	if m.zones == nil {
		return
	}
	type sums struct{ inbox, players, worst float64 }
	by := map[string]*sums{}
	var order []string
	for _, z := range m.zones() {
		s := by[z.template]
		if s == nil {
			s = &sums{}
			by[z.template] = s
			order = append(order, z.template)
		}
		s.inbox += float64(len(z.inbox) + z.mail.Len())
		s.players += float64(z.pop.Load())
		s.worst = max(s.worst, time.Duration(z.worst.Swap(0)).Seconds())
	}
	for _, t := range order {
		s := by[t]
		ch <- prometheus.MustNewConstMetric(m.inboxDesc, prometheus.GaugeValue, s.inbox, t)
		ch <- prometheus.MustNewConstMetric(m.playersDesc, prometheus.GaugeValue, s.players, t)
		ch <- prometheus.MustNewConstMetric(m.worstDesc, prometheus.GaugeValue, s.worst, t)
	}
}

// meters are one zone's handles on its template's series, resolved once.
type meters struct {
	m         *Metrics
	pulse     prometheus.Observer
	lateness  prometheus.Observer
	messages  prometheus.Counter
	batches   prometheus.Counter
	flushes   [nFlushCauses]prometheus.Counter
	roundTrip prometheus.Observer
	luaPrev   script.Stats // zone goroutine only: the VM's stats as last recorded
}

// unregistered serves zones made without Metrics (tests, benchmarks).
var unregistered = NewMetrics(nil)

func (m *Metrics) meters(template string) meters {
	if m == nil {
		m = unregistered
	}
	mt := meters{
		m:         m,
		pulse:     m.pulse.WithLabelValues(template),
		lateness:  m.lateness.WithLabelValues(template),
		messages:  m.messages.WithLabelValues(template),
		batches:   m.batches.WithLabelValues(template),
		roundTrip: m.roundTrip,
	}
	for c := range nFlushCauses {
		mt.flushes[c] = m.flushes.WithLabelValues(c.String())
	}
	return mt
}

// flushCause is why a player's waiting output went to their session, as
// zonemud_zone_flushes_total counts it: a census of what the server's
// writes are for (each flush is at most one write, fewer when the session
// merges it with output not yet written).
type flushCause uint8

const (
	flushAnswer   flushCause = iota // an answer, or what else ends with a prompt at once (a fight's round)
	flushTalk                       // others' words or deeds where there is no crowd, a tell, an entrance's look: at once
	flushGathered                   // the same in a crowded room: after the room's gap
	flushNews                       // comings, goings, channel lines: newsGap, or at once to the idle
	flushOther                      // before a crossing, a quit, a new connection, a stop
	nFlushCauses
)

func (c flushCause) String() string {
	return [nFlushCauses]string{"answer", "talk", "gathered", "news", "other"}[c]
}

// fault counts a recovered panic of kind.
func (z *Zone) countFault(kind string) {
	z.faults.Add(1)
	z.met.m.faults.WithLabelValues(z.template, kind).Inc()
}

// recordLua passes what the zone's VM did since the last call to the Lua
// series, and publishes its stats for ScriptStats.
func (z *Zone) recordLua() {
	st := z.vm.Stats()
	z.met.m.lua.Record(z.template, z.met.luaPrev, st)
	z.met.luaPrev = st
	z.luaStats.Store(&st)
}

// forgetLua takes the closing VM's gauges out of the Lua series.
func (z *Zone) forgetLua() {
	z.recordLua()
	z.met.m.lua.Forget(z.template, z.met.luaPrev)
}

// PulseLateness returns the worst lateness of a pulse since the last call
// and resets it.
func (z *Zone) PulseLateness() time.Duration { return time.Duration(z.worst.Swap(0)) }

// recordLateness notes how late a pulse was taken.
func (z *Zone) recordLateness(d time.Duration) {
	if int64(d) > z.worst.Load() {
		z.worst.Store(int64(d))
	}
	z.met.lateness.Observe(d.Seconds())
}

// worstLateness is written by the zone goroutine, swapped by scrapes.
type worstLateness = atomic.Int64
