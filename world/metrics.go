package world

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"zonemud/zone"
)

// collector is the world's figures, read when scraped: players, zones
// hosted, active and dormant, instance copies per template, lapsed leases.
type collector struct {
	w                                       *World
	players, hosted, active, dormant, lapse *prometheus.Desc
	instances                               *prometheus.Desc
}

// Register registers the world's figures with reg, and those its zones and
// their scripts keep (zone.Metrics), and the store's.
func (w *World) Register(reg prometheus.Registerer) error {
	c := &collector{
		w:         w,
		players:   prometheus.NewDesc("zonemud_players", "Characters in the world, link-dead included.", nil, nil),
		hosted:    prometheus.NewDesc("zonemud_zones_hosted", "Zones hosted: every permanent zone and every instance copy.", nil, nil),
		active:    prometheus.NewDesc("zonemud_zones_active", "Hosted zones whose pulse is ticking.", nil, nil),
		dormant:   prometheus.NewDesc("zonemud_zones_dormant", "Hosted zones that have stopped ticking: nobody there and nothing due soon.", nil, nil),
		lapse:     prometheus.NewDesc("zonemud_zone_leases_lost_total", "Zone leases that lapsed because the zone's goroutine stopped answering.", nil, nil),
		instances: prometheus.NewDesc("zonemud_instances", "Live instance copies of each instanceable template hosted here (the label is the template, never a copy's id).", []string{"template"}, nil),
	}
	for _, col := range []prometheus.Collector{c, w.zoneMetrics, w.instMetrics.mints, w.instMetrics.mintTime, w.instMetrics.refusals, w.instMetrics.abandoned, w.instMetrics.reaped} {
		if err := reg.Register(col); err != nil {
			return err
		}
	}
	return w.db.Register(reg)
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.players, c.hosted, c.active, c.dormant, c.lapse, c.instances} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	w := c.w
	zones := w.Zones()
	players, dormant := 0, 0
	for _, z := range zones {
		players += z.Population()
		if z.Dormant() {
			dormant++
		}
	}
	gauge := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	gauge(c.players, players)
	gauge(c.hosted, len(zones))
	gauge(c.active, len(zones)-dormant)
	gauge(c.dormant, dormant)
	ch <- prometheus.MustNewConstMetric(c.lapse, prometheus.CounterValue, float64(w.leasesLost.Load()))
	copies := map[string]int{}
	for _, z := range zones {
		if zone.IsInstanceID(z.ID()) {
			copies[z.Template()]++
		}
	}
	set := w.Content()
	templates := w.inst.claimTemplates() // copies whose template a reload took away count too
	for _, id := range set.ZoneOrder {
		if set.Zones[id].Instanceable && !slices.Contains(templates, id) {
			templates = append(templates, id)
		}
	}
	for _, id := range templates {
		gauge(c.instances, copies[id], id)
	}
}

// instMetrics are the figures of instance copies, labelled by template
// (never by a copy's id) or by the reason for a refusal.
type instMetrics struct {
	mints     *prometheus.CounterVec
	mintTime  *prometheus.HistogramVec
	refusals  *prometheus.CounterVec
	abandoned *prometheus.CounterVec
	reaped    *prometheus.CounterVec
}

func newInstMetrics() *instMetrics {
	byTemplate := []string{"template"}
	return &instMetrics{
		mints: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "instance_mints_total",
			Help: "Instance copies minted, per template.",
		}, byTemplate),
		mintTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "zonemud", Name: "instance_mint_seconds",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
			Help:    "From a player's asking at the door to the copy hosted (the queue and the build), per template.",
		}, byTemplate),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "instance_refusals_total",
			Help: "Copies refused, by reason: account (its cap), rate, process (the process's cap), queue (the mint queue full), draining, mint (the build failed).",
		}, []string{"reason"}),
		abandoned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "instance_abandoned_total",
			Help: "Copies minted that nobody was moved into (the player quit, walked away, fought or died while it was made), per template.",
		}, byTemplate),
		reaped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "instance_reaped_total",
			Help: "Copies reaped once empty, per template.",
		}, byTemplate),
	}
}

func (m *instMetrics) refuse(reason string) { m.refusals.WithLabelValues(reason).Inc() }
