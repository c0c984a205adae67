package world

import (
	"context"
	"time"
)

// every calls f each period until ctx is done: the loop of the world's
// keepers (the lease keeper, the reaper, the backup scheduler), run on a
// goroutine the world's run.Group started.
func every(ctx context.Context, period time.Duration, f func(ctx context.Context)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}
