package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// Fifty bots trade leather caps at the smithy through the copyover holder
// while the game is killed with SIGKILL: no connection drops, every bot is
// put back in its character at the smithy by the game the holder starts
// again, and once that game has stopped the store passes its checks, the
// census finds no item held twice, no save that completed was lost, and no
// bot holds more than the gold it began with (a trade saved on one side
// only, or twice, would show as more).
func TestCopyover_KillUnderFiftyTradersKeepsTheLedger(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("copyover's holder and game talk over a unix socket")
	}
	n := 50
	if testing.Short() {
		n = 10
	}
	const startGold = 400
	dir := t.TempDir()
	cfg, telnet := copyoverConfig(t, dir, "[zone]\ncheckpoint_secs = 1\n")
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("Trad%c%c", 'a'+i/26, 'a'+i%26)
	}
	p := startProc(t, cfg, telnet)
	for _, name := range names {
		c := servertest.Dial(t, telnet)
		c.Create(name, "trade-pass")
		c.DoExpect("east", "Exits:")
		c.DoExpect("north", "Brannoc")
		c.Quit()
	}
	p.stop(t)
	for _, name := range names {
		setGold(t, dir, name, startGold)
	}

	bots := make([]*tradeBot, n)
	db := openDB(t, dir)
	for i, name := range names {
		c, err := db.Character(name)
		if err != nil {
			t.Fatal(err)
		}
		bots[i] = &tradeBot{name: name, base: c.Commands, at: map[uint64]purse{c.Commands: {gold: startGold}}, last: c.Commands}
	}
	db.Close()

	p = startProc(t, cfg, telnet)
	for _, b := range bots {
		b.c = servertest.Dial(t, telnet)
		b.c.Login(b.name, "trade-pass")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 26))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, b := range bots {
		wg.Add(1)
		go func(b *tradeBot, r *rand.Rand) {
			defer wg.Done()
			b.play(r, stop)
		}(b, rand.New(rand.NewPCG(seed, uint64(i))))
	}
	time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond)
	saved := make([]uint64, n)
	for i, b := range bots {
		saved[i] = b.progress()
	}
	p.save(t)
	time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
	game := gamePID(t, dir)
	if err := syscall.Kill(game, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitNewGame(t, dir, game, p)
	close(stop)
	wg.Wait()
	for _, b := range bots {
		if b.c.WaitClosed(10 * time.Millisecond) {
			t.Fatalf("%s's connection closed at the crash", b.name)
		}
		b.c.DoExpect("look", "Brannoc")
	}
	p.stop(t)

	db = openDB(t, dir)
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Census(); err != nil {
		t.Fatalf("an item is held twice or the ledger disagrees: %v", err)
	}
	trades := 0
	for i, b := range bots {
		c, err := db.Character(b.name)
		if err != nil {
			t.Fatalf("%s does not load: %v", b.name, err)
		}
		caps := 0
		for _, it := range c.Items {
			if it.Proto == "emberfall:item:leather_cap" {
				caps++
			}
		}
		if c.Commands < saved[i] {
			t.Errorf("%s is stored at %d commands, but %d were applied before a save that completed", b.name, c.Commands, saved[i])
		}
		if c.Gold+capBuy*caps > startGold {
			t.Errorf("%s holds %d gold and %d caps, worth more than the %d gold it began with", b.name, c.Gold, caps, startGold)
		}
		trades += int(b.last-b.base) / 2
	}
	t.Logf("%d bots, %d trading commands read back before the kill and after", n, trades)
}
