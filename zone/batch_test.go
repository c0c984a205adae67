package zone

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// A batch ends once batchBudget (5 ms) has passed, however few messages
// it has handled: a slow handler shortens its batch, so the pulse and the
// flush after it are not held behind a queue of slow work (seed 002's
// tick step 4, read as a ceiling: docs/ARCHITECTURE.md). Ten messages of
// 2 ms each go three, three, three and one. Time is synctest's, so the
// outcome does not depend on the machine.
func TestZone_SlowBatchEndsAtItsTimeBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z, _, _ := loggedZone(t)
		handled := 0
		for range 10 {
			z.inbox <- heartbeatMsg{ack: func() {
				time.Sleep(2 * time.Millisecond)
				handled++
			}}
		}
		var sizes []int
		for handled < 10 && len(sizes) < 10 {
			before := handled
			z.batch(nil)
			sizes = append(sizes, handled-before)
		}
		if want := []int{3, 3, 3, 1}; !slices.Equal(sizes, want) {
			t.Fatalf("batches of 2 ms messages: %v, want %v", sizes, want)
		}
	})
}
