package world_test

import (
	"sync"
	"testing"
	"time"

	"zonemud/world"
	"zonemud/world/dirtest"
)

// clock is a fake clock a test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// The local directory keeps the whole contract any directory must keep.
func TestLocalDirectory_Contract(t *testing.T) {
	const ttl = 15 * time.Second
	var clk *clock
	dirtest.Run(t, dirtest.Harness{
		TTL: ttl,
		New: func(t *testing.T) world.Directory {
			clk = &clock{now: time.Unix(1_000_000, 0)}
			return world.NewLocalDirectory(world.LocalOptions{TTL: ttl, Now: clk.Now, GenBase: 5 << 32})
		},
		Advance: func(d time.Duration) { clk.Advance(d) },
	})
}

// Generations start above the base the world derives from its store's
// boot count, so they keep growing across restarts of the process.
func TestLocalDirectory_GenerationsStartAboveTheBase(t *testing.T) {
	for boot := uint64(1); boot <= 3; boot++ {
		d := world.NewLocalDirectory(world.LocalOptions{GenBase: boot << 32})
		l, err := d.Host(t.Context(), world.Hosting{ID: "town", Template: "town", Owner: "me"})
		if err != nil {
			t.Fatal(err)
		}
		if l.Gen <= boot<<32 || l.Gen > (boot+1)<<32 {
			t.Fatalf("boot %d: generation %#x, want just above %#x", boot, l.Gen, boot<<32)
		}
	}
}
