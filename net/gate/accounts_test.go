package gate

import (
	"testing"
	"time"
)

// The account cap on its own, on a clock the test moves.
func TestAccounts_CapLocksAndGrows(t *testing.T) {
	var a accounts
	const limit, window = 3, 5 * time.Minute
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	take := func(clean bool) (bool, time.Duration) { return a.take("victim", clean, limit, window, now) }

	for i := 0; i < limit; i++ {
		if ok, _ := take(false); !ok {
			t.Fatalf("try %d of %d refused", i+1, limit)
		}
		a.failedTry("victim")
	}
	// Over the cap: a lock of one window, for every address that failed.
	if ok, wait := take(false); ok || wait != window {
		t.Fatalf("try past the cap: ok %v, wait %v; want refused for %v", ok, wait, window)
	}
	now = now.Add(time.Minute)
	if ok, wait := take(false); ok || wait != 4*time.Minute {
		t.Fatalf("try during the lock: ok %v, wait %v; want refused for 4m", ok, wait)
	}
	// Addresses that have not failed still try, on an allowance of their
	// own; past it they are slowed, a second more each up to
	// maxCleanDelay, and never refused.
	for i := 0; i < limit; i++ {
		if ok, wait := take(true); !ok || wait != 0 {
			t.Fatalf("clean try %d during the lock: ok %v, wait %v; want at once", i+1, ok, wait)
		}
	}
	for i := 1; i <= 30; i++ {
		if ok, wait := take(true); !ok || wait != min(time.Duration(i)*time.Second, maxCleanDelay) {
			t.Fatalf("clean try %d past its allowance: ok %v, wait %v; want let through after %ds at most %v", i, ok, wait, i, maxCleanDelay)
		}
	}
	// After the lock a new window; the next lock is twice as long.
	now = now.Add(4 * time.Minute)
	for i := 0; i < limit; i++ {
		if ok, _ := take(false); !ok {
			t.Fatalf("after the lock, try %d refused", i+1)
		}
		a.failedTry("victim")
	}
	if ok, wait := take(false); ok || wait != 2*window {
		t.Fatalf("second lock: ok %v, wait %v; want %v", ok, wait, 2*window)
	}
	// Locks grow to an hour at most.
	for i := 0; i < 10; i++ {
		now = now.Add(2 * time.Hour)
		for j := 0; j < limit; j++ {
			take(false)
		}
		take(false)
	}
	if _, wait := take(false); wait > maxLockout {
		t.Fatalf("lock of %v, want at most %v", wait, maxLockout)
	}
	// The owner logs in: told of every failed try, refused ones included,
	// and the growth starts afresh.
	if n, want := a.loggedIn("victim"), 3+2+3+1+10*1+1; n != want {
		t.Fatalf("loggedIn reported %d failed tries, want %d", n, want)
	}
	if n := a.loggedIn("victim"); n != 0 {
		t.Fatalf("a second login reported %d, want 0", n)
	}
}

// The cap is per account, whatever the address: tries from many
// addresses that have failed add up to one allowance, however many
// connections make them, while every try from an address that has not
// failed goes ahead.
func TestAccounts_PerAccountNotPerAddress(t *testing.T) {
	var a accounts
	now := time.Now()
	allowed, clean := 0, 0
	for i := 0; i < 300; i++ {
		if ok, _ := a.take("victim", i%2 == 0, 10, time.Minute, now); ok {
			allowed++
			if i%2 == 0 {
				clean++
			}
		}
	}
	if allowed != 160 || clean != 150 {
		t.Fatalf("%d of 300 tries allowed, %d of them clean; want the 150 clean and 10 others", allowed, clean)
	}
	if ok, _ := a.take("bystander", false, 10, time.Minute, now); !ok {
		t.Fatal("another account was locked too")
	}
}
