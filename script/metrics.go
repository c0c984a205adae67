package script

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Lua figures of every VM of a world, labelled by the
// template of the zone each VM serves: every copy of a template adds to
// its template's series, so no label carries an instance id. A VM does not
// touch them; its zone passes what the VM's Stats gained (Record) about
// once a second, and takes a closed VM's gauges back out (Forget). It is a
// prometheus.Collector; the wiring registers it.
type Metrics struct {
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	limits   *prometheus.CounterVec
	seconds  *prometheus.CounterVec
	work     *prometheus.CounterVec
	deferred *prometheus.CounterVec
	off      *prometheus.GaugeVec
	memory   *prometheus.GaugeVec
}

// The limits a script can run into, as limit_hits_total counts them.
const (
	limitCall  = "call_budget"  // a call ran out of its instruction budget (or the hang guard)
	limitPulse = "pulse_budget" // a zone's scripts spent the pulse's budget
	limitState = "state_size"   // an entity's data grew past max_state_bytes
)

// NewMetrics makes the Lua series, registered nowhere yet.
func NewMetrics() *Metrics {
	byTemplate := []string{"template"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "zonemud", Subsystem: "lua", Name: name, Help: help}, append(byTemplate, labels...))
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "zonemud", Subsystem: "lua", Name: name, Help: help}, byTemplate)
	}
	return &Metrics{
		calls:    counter("calls_total", "Calls into Lua."),
		errors:   counter("errors_total", "Script calls that raised an error (running out of budget is a limit hit, not an error)."),
		limits:   counter("limit_hits_total", "Times a script ran into a limit: call_budget (a call's instructions), pulse_budget (the zone's scripts spent a pulse's budget), state_size (an entity's data past max_state_bytes).", "limit"),
		seconds:  counter("seconds_total", "Wall time the zones' goroutines spent running Lua."),
		work:     counter("work_total", "Work of script calls: Lua instructions, and library work in the same units."),
		deferred: counter("deferred_total", "on_tick triggers and mud.after timers put off to a later pulse because the pulse's script budget was spent."),
		off:      gauge("scripts_off", "Scripts switched off by their breaker."),
		memory:   gauge("memory_bytes", "Estimated memory of the zones' Lua VMs."),
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.calls, m.errors, m.limits, m.seconds, m.work, m.deferred, m.off, m.memory}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// Record adds what a VM of template did between two of its Stats, prev
// and now, to the template's series.
func (m *Metrics) Record(template string, prev, now Stats) {
	if m == nil {
		return
	}
	add := func(v *prometheus.CounterVec, a, b uint64, labels ...string) {
		if b > a {
			v.WithLabelValues(append([]string{template}, labels...)...).Add(float64(b - a))
		}
	}
	add(m.calls, prev.Calls, now.Calls)
	add(m.errors, prev.Errors, now.Errors)
	add(m.work, prev.Work, now.Work)
	add(m.deferred, prev.Deferred, now.Deferred)
	add(m.limits, prev.Timeouts, now.Timeouts, limitCall)
	add(m.limits, prev.Overruns, now.Overruns, limitPulse)
	add(m.limits, prev.StateOver, now.StateOver, limitState)
	if now.Time > prev.Time {
		m.seconds.WithLabelValues(template).Add((now.Time - prev.Time).Seconds())
	}
	m.off.WithLabelValues(template).Add(float64(now.ScriptsOff - prev.ScriptsOff))
	m.memory.WithLabelValues(template).Add(float64(now.MemBytes - prev.MemBytes))
}

// Forget takes a closed VM's gauges, as of its last Record, out of its
// template's series.
func (m *Metrics) Forget(template string, last Stats) {
	if m == nil {
		return
	}
	m.off.WithLabelValues(template).Sub(float64(last.ScriptsOff))
	m.memory.WithLabelValues(template).Sub(float64(last.MemBytes))
}
