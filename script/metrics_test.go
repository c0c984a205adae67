package script

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// What a VM did between two Stats goes to its template's series; the
// gauges of a VM that closes leave them; two copies of one template add
// up under the template.
func TestMetrics_RecordAndForget(t *testing.T) {
	m := NewMetrics()
	a0, a1 := Stats{}, Stats{Calls: 10, Errors: 1, Timeouts: 2, Overruns: 3, StateOver: 1, Work: 500, Deferred: 4, ScriptsOff: 1, MemBytes: 1000, Time: 3 * time.Millisecond}
	b1 := Stats{Calls: 5, ScriptsOff: 1, MemBytes: 500}
	m.Record("crypt", a0, a1)
	m.Record("crypt", Stats{}, b1)
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"calls", testutil.ToFloat64(m.calls.WithLabelValues("crypt")), 15},
		{"errors", testutil.ToFloat64(m.errors.WithLabelValues("crypt")), 1},
		{"call budget hits", testutil.ToFloat64(m.limits.WithLabelValues("crypt", limitCall)), 2},
		{"pulse budget hits", testutil.ToFloat64(m.limits.WithLabelValues("crypt", limitPulse)), 3},
		{"state size hits", testutil.ToFloat64(m.limits.WithLabelValues("crypt", limitState)), 1},
		{"seconds", testutil.ToFloat64(m.seconds.WithLabelValues("crypt")), 0.003},
		{"scripts off", testutil.ToFloat64(m.off.WithLabelValues("crypt")), 2},
		{"memory", testutil.ToFloat64(m.memory.WithLabelValues("crypt")), 1500},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	m.Forget("crypt", b1)
	if got := testutil.ToFloat64(m.off.WithLabelValues("crypt")); got != 1 {
		t.Errorf("scripts off after one copy closed: %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.calls.WithLabelValues("crypt")); got != 15 {
		t.Errorf("calls after one copy closed: %v; a counter never goes down", got)
	}
}
