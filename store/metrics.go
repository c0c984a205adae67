package store

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the store's figures. They are counted as the store works;
// the wiring registers them (Register).
type metrics struct {
	saves    prometheus.Counter
	refused  *prometheus.CounterVec
	failed   prometheus.Counter
	duration prometheus.Histogram
	size     prometheus.GaugeFunc
}

// The reasons a save batch is refused, as saves_refused_total labels them.
const (
	refusedFenced = "fenced"      // the zone's lease generation was released or superseded
	refusedStale  = "stale_epoch" // a character's save came from an older owner epoch
	refusedLedger = "ledger"      // an item would have been held twice
)

func newMetrics(db *DB) *metrics {
	m := &metrics{
		saves: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "saves_committed_total",
			Help: "Save batches committed: one zone's dirty characters and room objects each.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "saves_refused_total",
			Help: "Save batches refused, by reason: fenced (the zone's lease was released or superseded), stale_epoch (a save from an older login), ledger (an item would be held twice).",
		}, []string{"reason"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "zonemud", Name: "store_commit_failures_total",
			Help: "Store transactions that failed whole (disk full, size cap); their saves are retried.",
		}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "zonemud", Name: "store_commit_duration_seconds",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
			Help:    "How long a store transaction of save batches took, fsync included.",
		}),
	}
	m.size = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "zonemud", Name: "store_bytes", Help: "Database file size.",
	}, func() float64 { return float64(db.Size()) })
	for _, r := range []string{refusedFenced, refusedStale, refusedLedger} {
		m.refused.WithLabelValues(r) // every reason shows, at 0 until it happens
	}
	return m
}

// Register registers the store's figures with reg.
func (db *DB) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{db.met.saves, db.met.refused, db.met.failed, db.met.duration, db.met.size} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// countRefused counts a refused batch under each reason it carries.
func (m *metrics) countRefused(e *BatchError) {
	if e.Fenced {
		m.refused.WithLabelValues(refusedFenced).Inc()
	}
	if len(e.Stale) > 0 {
		m.refused.WithLabelValues(refusedStale).Inc()
	}
	if len(e.Conflicts) > 0 {
		m.refused.WithLabelValues(refusedLedger).Inc()
	}
}

// commitDone counts a transaction of n batches, refused ones included,
// that began at start.
func (m *metrics) commitDone(start time.Time, committed int, err error) {
	m.duration.Observe(time.Since(start).Seconds())
	if err != nil {
		m.failed.Inc()
		return
	}
	m.saves.Add(float64(committed))
}
