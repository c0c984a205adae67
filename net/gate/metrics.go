package gate

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// The fronts a session comes in by, as the figures label them.
const (
	frontTelnet = "telnet"
	frontTLS    = "tls"
	frontSSH    = "ssh"
	frontWeb    = "web" // both WebSocket subprotocols
)

// The reasons a login fails, as login_failures_total labels them.
const (
	failPassword = "password" // a wrong password, checked
	failLocked   = "locked"   // refused unchecked: the address is shut out or the account over its tries
)

// knownClients are the client names the sessions gauge keeps; any other
// is counted as "other", so a client cannot make up label values.
var knownClients = map[string]bool{
	"telnet": true, "ssh": true, "web": true, "mudlet": true, "mushclient": true, "tintin++": true,
	"cmud": true, "zmud": true, "blightmud": true, "axmud": true, "kbtin": true,
	"mudrammer": true, "beip": true, "atlantis": true, "potato": true, "mudportal": true,
	"fado": true, "lociterm": true, "ansi": true, "xterm": true, "vt100": true,
}

// metrics are the gate's figures: counted as connections come and go and
// write, and the open sessions read from the session table when scraped.
type metrics struct {
	g *Gate

	logins   *prometheus.CounterVec
	failures *prometheus.CounterVec
	writes   *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	lines    *prometheus.CounterVec
	mccpIn   atomic.Uint64
	mccpOut  atomic.Uint64
	funcs    []prometheus.Collector

	sessions, mccpRatio *prometheus.Desc
}

func newMetrics(g *Gate) *metrics {
	byFront := []string{"front"}
	m := &metrics{
		g: g,
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "logins_total",
			Help: "Logins that got past the password (or key) and the creation questions, by front.",
		}, byFront),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "login_failures_total",
			Help: "Failed password tries, by front and reason: password (checked, wrong), locked (refused unchecked: the address shut out, or the account over its tries).",
		}, []string{"front", "reason"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "output_writes_total",
			Help: "Bursts of output written to connections, one write each, by front.",
		}, byFront),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "output_bytes_total",
			Help: "Bytes written to connections (after compression), by front.",
		}, byFront),
		lines: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "output_lines_total",
			Help: "Lines of text in those bursts, by front.",
		}, byFront),
		sessions:  prometheus.NewDesc("zonemud_sessions", "Open connections, at the login or in the world, by front and client name (names outside a known list count as other).", []string{"front", "client"}, nil),
		mccpRatio: prometheus.NewDesc("zonemud_mccp_ratio", "Compressed bytes over uncompressed bytes of MCCP2 output since start (0.2 saves 80 percent).", nil, nil),
	}
	for _, f := range []string{frontTelnet, frontTLS, frontSSH, frontWeb} {
		m.logins.WithLabelValues(f)
		m.writes.WithLabelValues(f)
		m.bytes.WithLabelValues(f)
		m.lines.WithLabelValues(f)
		m.failures.WithLabelValues(f, failPassword)
		m.failures.WithLabelValues(f, failLocked)
	}
	cf := func(name, help string, v func() uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "zonemud", Name: name, Help: help}, func() float64 { return float64(v()) })
	}
	m.funcs = []prometheus.Collector{
		cf("login_password_checks_total", "Passwords hashed to check a login.", g.checks.Load),
		cf("connections_refused_address_total", "Connections and tries refused because their address was shut out or over its connection cap.", g.refusedIP.Load),
		cf("connections_refused_banned_total", "Connections and tries refused because their address is banned.", g.refusedBan.Load),
		cf("login_refused_account_total", "Password tries refused, unchecked, by their account's cap.", g.refusedTries.Load),
		cf("mccp_in_bytes_total", "Bytes of output put into MCCP2 compression.", m.mccpIn.Load),
		cf("mccp_out_bytes_total", "Bytes MCCP2 compression made of them.", m.mccpOut.Load),
		cf("output_overflows_total", "Connections closed because their client did not keep up with their output.", g.overflows.Load),
	}
	return m
}

// Register registers the gate's figures with reg.
func (g *Gate) Register(reg prometheus.Registerer) error { return reg.Register(g.met) }

func (m *metrics) collectors() []prometheus.Collector {
	return append([]prometheus.Collector{m.logins, m.failures, m.writes, m.bytes, m.lines}, m.funcs...)
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
	ch <- m.sessions
	ch <- m.mccpRatio
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
	type key struct{ front, client string }
	count := map[key]int{}
	m.g.mu.Lock()
	for _, s := range m.g.sessions {
		count[key{s.front, clientLabel(s.c.info().name)}]++
	}
	m.g.mu.Unlock()
	for k, n := range count {
		ch <- prometheus.MustNewConstMetric(m.sessions, prometheus.GaugeValue, float64(n), k.front, k.client)
	}
	ratio := 0.0
	if in := m.mccpIn.Load(); in > 0 {
		ratio = float64(m.mccpOut.Load()) / float64(in)
	}
	ch <- prometheus.MustNewConstMetric(m.mccpRatio, prometheus.GaugeValue, ratio)
}

// clientLabel is the label a client name is counted under.
func clientLabel(name string) string {
	if knownClients[name] {
		return name
	}
	return "other"
}

// frontMeters are one session's handles on its front's series.
type frontMeters struct {
	writes, bytes, lines prometheus.Counter
}

func (m *metrics) front(front string) frontMeters {
	return frontMeters{writes: m.writes.WithLabelValues(front), bytes: m.bytes.WithLabelValues(front), lines: m.lines.WithLabelValues(front)}
}

// burst counts one burst of s's output with lines lines of text. Writer
// goroutine only. A gate made without New (a test's) counts nothing.
func (m *metrics) burst(s *Session, lines int) {
	if m == nil {
		return
	}
	wire, in, out := s.c.counts()
	was := s.w.counted
	s.w.counted = [3]uint64{wire, in, out}
	s.meters.writes.Inc()
	s.meters.lines.Add(float64(lines))
	s.meters.bytes.Add(float64(wire - was[0]))
	if in > was[1] {
		m.mccpIn.Add(in - was[1])
		m.mccpOut.Add(out - was[2])
	}
}
