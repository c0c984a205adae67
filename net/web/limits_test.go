package web

import (
	"strconv"
	"testing"
	"time"
)

// The upgrade bucket: burst at once, then one a per/burst, each address
// its own, the exempt key never refused, and a refusal says how long.
func TestBucket(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBucket(3, time.Minute, func() time.Time { return now })
	for i := range 3 {
		if w := b.take("a"); w != 0 {
			t.Fatalf("take %d of the burst waits %v", i, w)
		}
	}
	if w := b.take("a"); w <= 0 || w > 20*time.Second {
		t.Fatalf("past the burst: wait %v, want (0, 20s]", w)
	}
	if w := b.take("b"); w != 0 {
		t.Fatalf("another address waits %v", w)
	}
	for range 100 {
		if w := b.take(""); w != 0 {
			t.Fatalf("the exempt key waits %v", w)
		}
	}
	now = now.Add(20 * time.Second)
	if w := b.take("a"); w != 0 {
		t.Fatalf("20 s later (one token back) it waits %v", w)
	}
	if w := b.take("a"); w == 0 {
		t.Fatal("two tokens taken after one came back")
	}
}

// The bucket's memory is bounded whatever the number of addresses.
func TestBucket_Bounded(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBucket(1, time.Hour, func() time.Time { return now })
	for i := range maxTracked + 10 {
		b.take(strconv.Itoa(i))
	}
	if len(b.m) > maxTracked {
		t.Fatalf("%d addresses tracked, bound %d", len(b.m), maxTracked)
	}
}
