package world

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// goroutines starts every goroutine the world runs, in the manner of nats'
// startGoRoutine: each is counted so shutdown can wait for it, carries
// pprof labels so a goroutine profile names it (a zone's names its id and
// template), and none starts once the world has stopped starting them.
type goroutines struct {
	mu      sync.Mutex
	closed  bool // guarded by mu: no more goroutines start
	wg      sync.WaitGroup
	running atomic.Int64 // goroutines started and not yet returned
}

// start runs f on a new goroutine with ctx labelled by labels (key, value
// pairs). It returns a channel closed when f has returned, or false (and
// runs nothing) once close has been called.
func (g *goroutines) start(ctx context.Context, f func(ctx context.Context), labels ...string) (<-chan struct{}, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, false
	}
	done := make(chan struct{})
	g.wg.Add(1)
	g.running.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.running.Add(-1)
		defer close(done)
		pprof.Do(ctx, pprof.Labels(labels...), f)
	}()
	return done, true
}

// close refuses every later start.
func (g *goroutines) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// wait waits until every started goroutine has returned, or ctx is done.
func (g *goroutines) wait(ctx context.Context) error { return waitGroup(ctx, &g.wg) }

// waitGroup waits for wg, or for ctx to be done.
func waitGroup(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }() // ends when the group does; not itself tracked
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// every calls f each period until ctx is done: the loop of the world's
// keepers (the lease keeper, the reaper, the backup scheduler), run on a
// goroutine started through start.
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
