package run

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// labelled counts the goroutines whose pprof labels contain want.
func labelled(t *testing.T, want string) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	n, count := 0, 0
	for _, line := range strings.Split(b.String(), "\n") {
		if c, _, ok := strings.Cut(line, " @ "); ok {
			count, _ = strconv.Atoi(c)
			continue
		}
		if strings.HasPrefix(line, "# labels:") && strings.Contains(line, want) {
			n += count
		}
	}
	return n
}

// A Group counts what it runs, labels it, waits for it, and refuses to
// start anything once closed; Live counts every Group's goroutines.
func TestGroup_CountsLabelsWaitsAndCloses(t *testing.T) {
	var g Group
	base := Live()
	release, started := make(chan struct{}), make(chan struct{}, 2)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	done, ok := g.Go(context.Background(), func(context.Context) { started <- struct{}{}; <-release }, "test", "held")
	if !ok {
		t.Fatal("Go refused on an open group")
	}
	l := NewLabels("test", "often")
	if !g.GoWith(l, func() { started <- struct{}{}; <-release }) {
		t.Fatal("GoWith refused on an open group")
	}
	<-started
	<-started
	if got := g.Running(); got != 2 {
		t.Fatalf("Running = %d, want 2", got)
	}
	if got := Live() - base; got != 2 {
		t.Fatalf("Live grew by %d, want 2", got)
	}
	if n := labelled(t, `"test":"held"`); n != 1 {
		t.Fatalf("%d goroutines labelled test=held, want 1", n)
	}
	if n := labelled(t, `"test":"often"`); n != 1 {
		t.Fatalf("%d goroutines labelled test=often, want 1", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Wait(ctx); err == nil {
		t.Fatal("Wait returned nil with two goroutines running and its context done")
	}
	g.Close()
	if _, ok := g.Go(context.Background(), func(context.Context) { t.Error("ran after Close") }); ok {
		t.Fatal("Go started a goroutine after Close")
	}
	if g.GoWith(l, func() { t.Error("ran after Close") }) {
		t.Fatal("GoWith started a goroutine after Close")
	}
	if g.Run(func() { t.Error("ran after Close") }) {
		t.Fatal("Run ran after Close")
	}
	close(release)
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("Wait returned before Go's done channel closed")
	}
	if g.Running() != 0 || Live() != base {
		t.Fatalf("after Wait: Running %d, Live %d (was %d)", g.Running(), Live(), base)
	}
}

// Run counts and labels the calling goroutine while f runs.
func TestGroup_RunOnTheCaller(t *testing.T) {
	var g Group
	base := Live()
	ran := g.Run(func() {
		if g.Running() != 1 || Live()-base != 1 {
			t.Errorf("inside Run: Running %d, Live grew by %d, want 1 and 1", g.Running(), Live()-base)
		}
		if n := labelled(t, `"test":"inside"`); n != 1 {
			t.Errorf("%d goroutines labelled test=inside while Run runs, want 1", n)
		}
	}, "test", "inside")
	if !ran {
		t.Fatal("Run refused on an open group")
	}
	if g.Running() != 0 || Live() != base {
		t.Fatalf("after Run: Running %d, Live %d (was %d)", g.Running(), Live(), base)
	}
}

// Wait gives up when its context is done, and a goroutine of the group
// may start another while Wait waits.
func TestGroup_WaitSeesGoroutinesStartedWhileWaiting(t *testing.T) {
	var g Group
	second := make(chan struct{})
	release := make(chan struct{})
	g.Go(context.Background(), func(context.Context) {
		g.Go(context.Background(), func(context.Context) { <-release }, "test", "second")
		close(second)
	})
	<-second
	var released atomic.Bool
	waited := make(chan error, 1)
	go func() {
		err := g.Wait(context.Background())
		if !released.Load() {
			t.Error("Wait returned with the second goroutine still running")
		}
		waited <- err
	}()
	released.Store(true)
	close(release)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}
