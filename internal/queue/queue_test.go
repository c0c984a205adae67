package queue

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestQueue_PopTakesEverythingInOrder(t *testing.T) {
	q := New(Options[int]{})
	for i := range 5 {
		if err := q.Push(i); err != nil {
			t.Fatalf("Push(%d): %v", i, err)
		}
	}
	if err := q.Append([]int{5, 6}, nil, []int{7}); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if got := q.Len(); got != 8 {
		t.Fatalf("Len = %d, want 8", got)
	}
	got := q.Pop()
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Fatalf("Pop = %v, want %v", got, want)
	}
	if got := q.Pop(); got != nil {
		t.Fatalf("second Pop = %v, want nil", got)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len after Pop = %d, want 0", got)
	}
}

func TestQueue_SignalAfterPush(t *testing.T) {
	q := New(Options[string]{})
	select {
	case <-q.Signal():
		t.Fatal("signal ready on an empty queue")
	default:
	}
	q.Push("a")
	q.Push("b") // a second push while signalled must not block
	select {
	case <-q.Signal():
	default:
		t.Fatal("no signal after Push")
	}
	if got := q.Pop(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Pop = %v", got)
	}
	q.Append([]string{"c"})
	select {
	case <-q.Signal():
	default:
		t.Fatal("no signal after Append")
	}
}

func TestQueue_LimitRefusesWholePush(t *testing.T) {
	q := New(Options[byte]{Limit: 10})
	if err := q.Append([]byte("12345"), []byte("678")); err != nil {
		t.Fatalf("Append within the limit: %v", err)
	}
	if err := q.Append([]byte("ab"), []byte("c")); !errors.Is(err, ErrFull) {
		t.Fatalf("Append past the limit: err = %v, want ErrFull", err)
	}
	if got := string(q.Pop()); got != "12345678" {
		t.Fatalf("a refused Append queued part of itself: %q", got)
	}
	if err := q.Append([]byte("0123456789")); err != nil {
		t.Fatalf("Append of exactly the limit after Pop: %v", err)
	}
	if err := q.Push('x'); !errors.Is(err, ErrFull) {
		t.Fatalf("Push on a full queue: err = %v, want ErrFull", err)
	}
}

func TestQueue_CloseKeepsQueuedAndRefusesLater(t *testing.T) {
	q := New(Options[byte]{Limit: 4})
	q.Append([]byte("abcd"))
	// The last words go in whatever the limit.
	if !q.Close([]byte("bye")) {
		t.Fatal("first Close reported false")
	}
	if q.Close([]byte("again")) {
		t.Fatal("second Close reported true")
	}
	if !q.Closed() {
		t.Fatal("Closed = false after Close")
	}
	if err := q.Push('x'); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after Close: err = %v, want ErrClosed", err)
	}
	if err := q.Append([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: err = %v, want ErrClosed", err)
	}
	select {
	case <-q.Signal():
	default:
		t.Fatal("no signal after Close with last words")
	}
	if got := string(q.Pop()); got != "abcdbye" {
		t.Fatalf("Pop after Close = %q, want %q", got, "abcdbye")
	}
}

func TestQueue_RecycledSliceIsReused(t *testing.T) {
	q := New(Options[int]{})
	for range 100 {
		q.Push(1)
	}
	q.Recycle(q.Pop())
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 50 {
			q.Push(i)
		}
		q.Recycle(q.Pop())
	})
	if allocs != 0 {
		t.Fatalf("steady push and pop allocated %.1f times per round, want 0", allocs)
	}
}

func TestQueue_RecycleClearsElements(t *testing.T) {
	q := New(Options[*int]{})
	v := 7
	q.Push(&v)
	s := q.Pop()
	q.Recycle(s)
	if s[0] != nil {
		t.Fatal("a recycled slice still points at its element")
	}
}

func TestQueue_KeepCapLetsBigSlicesGo(t *testing.T) {
	q := New(Options[byte]{KeepCap: 64})
	q.Append(make([]byte, 1000))
	big := q.Pop()
	q.Recycle(big)
	q.Push('a')
	if got := q.Pop(); cap(got) >= cap(big) {
		t.Fatalf("a %d-byte slice was kept past KeepCap 64", cap(big))
	}

	none := New(Options[byte]{KeepCap: -1})
	none.Append(make([]byte, 8))
	s := none.Pop()
	none.Recycle(s)
	none.Push('a')
	if got := none.Pop(); &got[0] == &s[0] {
		t.Fatal("KeepCap -1 kept a slice")
	}
}

// Queues sharing a pool hold no slice while empty, and reuse each other's.
func TestQueue_PoolSharesSlices(t *testing.T) {
	var pool Pool[byte]
	a := New(Options[byte]{Pool: &pool})
	b := New(Options[byte]{Pool: &pool})
	a.Append(make([]byte, 100))
	s := a.Pop()
	a.Recycle(s)
	if a.items != nil || a.spare != nil {
		t.Fatal("an empty queue with a pool kept a slice")
	}
	// sync.Pool may drop what it holds at any GC, so reuse is not
	// asserted; a push must work either way.
	if err := b.Push('x'); err != nil {
		t.Fatal(err)
	}
	if got := b.Pop(); string(got) != "x" {
		t.Fatalf("Pop = %q", got)
	}
	big := Pool[byte]{MaxCap: 16}
	big.put(make([]byte, 0, 64))
	if got := big.get(); got != nil {
		t.Fatalf("a pool with MaxCap 16 kept a slice of capacity %d", cap(got))
	}
}

// Each producer's elements arrive in its order, every one exactly once,
// however the producers interleave.
func TestQueue_ManyProducersOneConsumer(t *testing.T) {
	const producers, each = 8, 2000
	type item struct{ p, i int }
	q := New(Options[item]{})
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if err := q.Push(item{p, i}); err != nil {
					t.Errorf("Push: %v", err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	next := make([]int, producers)
	got := 0
	hang := time.NewTimer(time.Minute) // a bound on a hang, not a measurement
	defer hang.Stop()
	for got < producers*each {
		select {
		case <-q.Signal():
		case <-done:
		case <-hang.C:
			t.Fatalf("consumer got %d of %d elements", got, producers*each)
		}
		s := q.Pop()
		for _, it := range s {
			if it.i != next[it.p] {
				t.Fatalf("producer %d: got element %d, want %d", it.p, it.i, next[it.p])
			}
			next[it.p]++
			got++
		}
		q.Recycle(s)
	}
	<-done
	if rest := q.Pop(); len(rest) != 0 {
		t.Fatalf("%d elements left after every producer's were taken", len(rest))
	}
}

func BenchmarkQueue_PushPop(b *testing.B) {
	q := New(Options[int]{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Push(i)
		if i%32 == 31 {
			q.Recycle(q.Pop())
		}
	}
}

// TestQueue_PoolSteadyTrafficAllocatesNothing: a queue that hands its
// drained slice to a shared pool and takes one back on the next push
// allocates nothing in steady traffic (the gate's session output goes
// through such a queue, once a burst).
func TestQueue_PoolSteadyTrafficAllocatesNothing(t *testing.T) {
	var pool Pool[byte]
	q := New(Options[byte]{Pool: &pool})
	frame := []byte("a line of output\n")
	_ = q.Append(frame)
	q.Recycle(q.Pop())
	allocs := testing.AllocsPerRun(100, func() {
		_ = q.Append(frame)
		q.Recycle(q.Pop())
	})
	// sync.Pool may drop what it holds at a collection; one in a hundred
	// rounds is not steady traffic's cost.
	if allocs >= 0.5 {
		t.Fatalf("a pooled append and pop allocated %.2f times per round, want 0", allocs)
	}
}
