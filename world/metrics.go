package world

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zonemud/internal/logev"
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
		instances: prometheus.NewDesc("zonemud_instances", "Live instance copies of each instanceable template, as the directory lists them (the label is the template, never a copy's id).", []string{"template"}, nil),
	}
	for _, col := range []prometheus.Collector{c, w.zoneMetrics} {
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	set := w.Content()
	for _, id := range set.ZoneOrder {
		if !set.Zones[id].Instanceable {
			continue
		}
		leases, err := w.dir.List(ctx, id)
		if err != nil {
			w.log.Warn("world: the directory cannot list a template's copies for the metrics", logev.ID(4401), logev.Template(id), "err", err)
			continue
		}
		n := 0
		for _, l := range leases {
			if l.ID != id && strings.HasPrefix(l.ID, id+"#") {
				n++
			}
		}
		gauge(c.instances, n, id)
	}
}
