package run

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
)

// live counts the goroutines every Group runs and that have not returned.
var live atomic.Int64

// Live is how many goroutines started (or run) through any Group of the
// process have not yet returned. After every owner has shut down it is 0.
func Live() int64 { return live.Load() }

// Group starts goroutines and waits for them. The zero value is ready to
// use. A Group is safe for concurrent use.
type Group struct {
	mu      sync.Mutex
	closed  bool // guarded by mu: no more goroutines start
	wg      sync.WaitGroup
	running atomic.Int64 // started and not yet returned
}

// Labels is a pprof label set made once, for a goroutine started often
// (a session's writer): starting with it allocates no label context.
type Labels struct{ ctx context.Context }

// NewLabels makes a label set from key, value pairs.
func NewLabels(kv ...string) Labels {
	return Labels{pprof.WithLabels(context.Background(), pprof.Labels(kv...))}
}

// Go runs f on a new goroutine with ctx carrying the labels (key, value
// pairs). It returns a channel closed when f has returned, or false (and
// runs nothing) once Close has been called.
func (g *Group) Go(ctx context.Context, f func(ctx context.Context), labels ...string) (<-chan struct{}, bool) {
	if !g.add() {
		return nil, false
	}
	done := make(chan struct{})
	go func() {
		defer g.finish()
		defer close(done)
		pprof.Do(ctx, pprof.Labels(labels...), f)
	}()
	return done, true
}

// GoWith runs f on a new goroutine labelled l, for a goroutine started
// often; it reports false (and runs nothing) once Close has been called.
func (g *Group) GoWith(l Labels, f func()) bool {
	if !g.add() {
		return false
	}
	go func() {
		defer g.finish()
		pprof.SetGoroutineLabels(l.ctx)
		f()
	}()
	return true
}

// Run runs f on the calling goroutine, counted and labelled as if Go had
// started it, for a goroutine a library starts (an SSH channel handler)
// whose life the owner must still wait for. It reports false, and does not
// run f, once Close has been called. The goroutine has no labels after
// (a library's goroutine has none before).
func (g *Group) Run(f func(), labels ...string) bool {
	if !g.add() {
		return false
	}
	defer g.finish()
	pprof.Do(context.Background(), pprof.Labels(labels...), func(context.Context) { f() })
	return true
}

func (g *Group) add() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	g.running.Add(1)
	live.Add(1)
	return true
}

func (g *Group) finish() {
	live.Add(-1)
	g.running.Add(-1)
	g.wg.Done()
}

// Close refuses every later start. Goroutines already running go on.
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// Running is how many goroutines of g have not yet returned.
func (g *Group) Running() int64 { return g.running.Load() }

// Wait waits until every goroutine of g has returned, or ctx is done, and
// returns ctx's error then. Goroutines may still start while it waits,
// from goroutines of g, unless g is closed.
func (g *Group) Wait(ctx context.Context) error { return Wait(ctx, &g.wg) }

// Wait waits for wg, or for ctx to be done.
func Wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }() // ends when the group does
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
