package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server/servertest"
	"zonemud/store"
)

// The storage loft above the inn: what lies there survives a restart, so
// coins dropped there must be counted with the players' purses.
const goldLoft = "emberfall:room:inn_loft"

// setGold writes a stopped server's character with n gold, through the
// store's own commit (a zone with no lease, so the fence lets it by).
func setGold(t *testing.T, dir, name string, n int) {
	t.Helper()
	db := openDB(t, dir)
	defer db.Close()
	c, err := db.Character(name)
	if err != nil {
		t.Fatal(err)
	}
	c.Gold = n
	res, err := db.Commit([]*store.Batch{{Zone: "crash-test-setup", Chars: []*store.Character{c}}})
	if err != nil || res[0] != nil {
		t.Fatalf("setting %s's gold: %v %v", name, err, res)
	}
}

// goldTotal is every coin the store holds for names: their gold and the
// coin piles lying in the loft. The census proves no pile is held twice.
func goldTotal(t *testing.T, dir string, names ...string) (total int, purses []int) {
	t.Helper()
	db := openDB(t, dir)
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Census(); err != nil {
		t.Fatalf("an item is held twice or the ledger disagrees: %v", err)
	}
	for _, name := range names {
		c, err := db.Character(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		total += c.Gold
		purses = append(purses, c.Gold)
		for _, it := range c.Items {
			if it.Coins != 0 {
				t.Fatalf("%s carries a coin pile as an item: %+v", name, it)
			}
		}
	}
	objs, err := db.RoomObjects("emberfall")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range objs[goldLoft] {
		total += it.Coins
	}
	return total, purses
}

var goldActions = []string{
	"give %d gold %s", "give %d gold %s", "give %d coins to %s",
	"drop %d gold", "get gold", "get all", "give all gold %s",
}

// TestCrash_GoldNeverDupesOrLoses has two players pass coins back and
// forth and drop and pick up piles in the storage loft, kills the server
// with SIGKILL at random moments, and after each restart counts every coin
// the store holds: the same total, every round. A give is two characters'
// gold and a drop a character's gold and a room's pile; each is saved in
// one checkpoint or not at all.
func TestCrash_GoldNeverDupesOrLoses(t *testing.T) {
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	const each = 500
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[zone]\ncheckpoint_secs = 1\n")
	names := []string{"Goldia", "Goldib"}
	p := startProc(t, cfg, telnet)
	for _, n := range names {
		c := servertest.Dial(t, telnet)
		c.Create(n, "gold-pass")
		c.DoExpect("south", "Banked Fire")
		c.DoExpect("up", "Exits:")
		c.Quit()
	}
	p.stop(t)
	for _, n := range names {
		setGold(t, dir, n, each)
	}
	want := each * len(names)
	if got, _ := goldTotal(t, dir, names...); got != want {
		t.Fatalf("set up %d coins, want %d", got, want)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	for round := 0; round < rounds; round++ {
		p := startProc(t, cfg, telnet)
		clients := make([]*servertest.Client, len(names))
		for i, n := range names {
			clients[i] = servertest.Dial(t, telnet)
			clients[i].Login(n, "gold-pass")
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range names {
			wg.Add(1)
			go func(i int, r *rand.Rand) {
				defer wg.Done()
				c, other := clients[i], names[1-i]
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					default:
					}
					act := goldActions[r.IntN(len(goldActions))]
					switch strings.Count(act, "%") {
					case 2:
						act = fmt.Sprintf(act, 1+r.IntN(40), other)
					case 1:
						if strings.Contains(act, "%d") {
							act = fmt.Sprintf(act, 1+r.IntN(40))
						} else {
							act = fmt.Sprintf(act, other)
						}
					}
					token := fmt.Sprintf("gtok%d_%d", i, k)
					if c.Write([]byte(act+"\r\nsay "+token+"\r\n")) != nil {
						return
					}
					if _, ok := c.Try("You say, '"+token+"'", 10*time.Second); !ok {
						return
					}
					time.Sleep(time.Duration(5+r.IntN(20)) * time.Millisecond)
				}
			}(i, rand.New(rand.NewPCG(seed, uint64(round*10+i))))
		}
		time.Sleep(time.Duration(300+rng.IntN(1500)) * time.Millisecond)
		if rng.IntN(2) == 0 {
			p.save(t)
		}
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		p.kill9(t)
		close(stop)
		for _, c := range clients {
			c.Close()
		}
		wg.Wait()
		if got, purses := goldTotal(t, dir, names...); got != want {
			t.Fatalf("round %d: the store holds %d coins (purses %v, the rest in the loft), want %d", round, got, purses, want)
		}
	}
}
