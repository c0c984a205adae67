package zone

import (
	"sync/atomic"
	"time"
)

// LatenessBounds are the upper bounds of the pulse lateness histogram.
var LatenessBounds = [...]time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, time.Second,
}

// lateness counts how late the zone took its pulses: the worst since the
// last read, and a histogram over the zone's life. Written by the zone
// goroutine, read anywhere.
type lateness struct {
	worst  atomic.Int64                           // atomic: ns, since the last read
	counts [len(LatenessBounds) + 1]atomic.Uint64 // atomic: pulses per bucket; the last is over every bound
}

func (l *lateness) record(d time.Duration) {
	if int64(d) > l.worst.Load() {
		l.worst.Store(int64(d))
	}
	i := 0
	for i < len(LatenessBounds) && d > LatenessBounds[i] {
		i++
	}
	l.counts[i].Add(1)
}

// batchCounts counts the inbox batches and the messages in them. Written by
// the zone goroutine, read anywhere.
type batchCounts struct {
	batches  atomic.Uint64
	messages atomic.Uint64
}

func (b *batchCounts) record(n int) {
	b.batches.Add(1)
	b.messages.Add(uint64(n))
}

// PulseLateness returns the worst lateness of a pulse since the last call
// and resets it.
func (z *Zone) PulseLateness() time.Duration { return time.Duration(z.late.worst.Swap(0)) }

// PulseLatenessCounts returns, for each of LatenessBounds, how many pulses
// were at most that late, and last the count of all pulses (cumulative, as
// a Prometheus histogram's buckets are).
func (z *Zone) PulseLatenessCounts() [len(LatenessBounds) + 1]uint64 {
	var out [len(LatenessBounds) + 1]uint64
	var sum uint64
	for i := range z.late.counts {
		sum += z.late.counts[i].Load()
		out[i] = sum
	}
	return out
}

// Batches returns how many inbox batches the zone has handled and how many
// messages were in them.
func (z *Zone) Batches() (batches, messages uint64) {
	return z.batches.batches.Load(), z.batches.messages.Load()
}
