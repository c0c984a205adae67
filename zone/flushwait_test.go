package zone

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The flush heap gives back its entries earliest first, whatever the order
// they were kept in, with equal times and pops between pushes.
func TestWaitHeap_EarliestFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var h waitHeap
		var want, got []int64
		for range rng.IntN(300) {
			if len(h) > 0 && rng.IntN(4) == 0 {
				// A pop in between gives the least kept so far.
				least := slices.Min(want)
				w := h.pop()
				if w.at != least {
					t.Fatalf("round %d: a pop gave %d, the least kept is %d", round, w.at, least)
				}
				want = slices.Delete(want, slices.Index(want, least), slices.Index(want, least)+1)
				continue
			}
			at := rng.Int64N(50) // few values: many ties
			h.push(waiting{at: at})
			want = append(want, at)
		}
		for len(h) > 0 {
			got = append(got, h.pop().at)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: popped %v, want %v", round, got, want)
		}
	}
}
