package zone_test

import (
	"testing"

	"zonemud/zone"
)

// throngSize is the room of the throng benchmarks: the crowd the gathering
// workload forms in its hub (issue 25).
const throngSize = 5000

// BenchmarkThrong5000 is the zone's cost of what players do in a room of
// 5,000 (emberfall's square, where they all arrive): a say heard there,
// a look at the room, and a walk out and back in by one player from
// among them (its departure and arrival told to the rest, a pulse's news
// told every 16 walks). Each op is handled and everyone's output flushed
// at once (InputForTest), so the figure holds the per-recipient work in
// full; ns/recipient divides it by the room.
func BenchmarkThrong5000(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	for _, op := range []string{"say", "look", "walk"} {
		b.Run(op, func(b *testing.B) {
			_, z := benchWorld(b)
			ss := crowdOf(b, z, throngSize, "Throng")
			seqs := make([]uint64, len(ss))
			type_ := func(k int, line string) {
				seqs[k]++
				z.InputForTest(ss[k], seqs[k], line)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(ss)
				switch op {
				case "say":
					type_(k, "say the well by the square is dry again")
				case "look":
					type_(k, "look")
				case "walk":
					type_(k, "north")
					type_(k, "south")
					if i%16 == 15 {
						z.TickForTest()
						z.DrainForTest()
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/throngSize, "ns/recipient")
			if ss[len(ss)-1].bytes.Load() == 0 && b.N > 1 {
				b.Fatal("the last of the throng was told nothing")
			}
		})
	}
}
