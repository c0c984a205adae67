package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// purse is what the store should hold for a trader: gold and leather caps.
type purse struct{ gold, caps int }

// tradeBot trades with Brannoc the smith, who keeps his forge open at any
// hour: it buys and sells leather caps and reads every answer. Each line it
// sends is counted by the server (the record's Commands), so for every
// count of applied commands the bot knows what its purse was just then;
// a save is one moment of the zone, so the purse the store holds must be
// the one for the Commands it holds, exactly. A trade saved on one side
// only (gold without the cap, the cap without the gold) or twice cannot
// match.
type tradeBot struct {
	name string
	c    *servertest.Client
	mu   sync.Mutex
	base uint64 // Commands stored at the start of the round
	// at is the purse after each applied command this round, by its
	// Commands count; pending is the one action sent whose answer was not
	// read (its count, and its say's one more), and what it would make the
	// purse if it went through.
	at      map[uint64]purse
	last    uint64 // the highest count in at
	pending *pendingTrade
	sent    uint64
}

type pendingTrade struct {
	at     uint64
	before purse
	after  purse
}

var tradeActions = []string{"buy cap", "buy cap", "buy 2 cap", "sell cap", "sell all.cap", "value cap", "list"}

var (
	boughtRE = regexp.MustCompile(`You buy (?:(\d+) (?:×|x) )?a leather cap for (\d+) gold\.`)
	soldRE   = regexp.MustCompile(`You sell a leather cap for (\d+) gold\.`)
)

// Cap prices at Brannoc's: value 5, buy_factor 1.5 (rounded up), sell_factor
// 0.4 (rounded down).
const capBuy, capSell = 8, 2

func (b *tradeBot) progress() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// play trades until stop is closed or the connection dies.
func (b *tradeBot) play(rng *rand.Rand, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		act := tradeActions[rng.IntN(len(tradeActions))]
		b.mu.Lock()
		cur := b.at[b.last]
		// What the action does if it goes through; a refusal (no
		// stock, no cap to sell) leaves the purse as it was.
		after := cur
		switch act {
		case "buy cap":
			after = purse{cur.gold - capBuy, cur.caps + 1}
		case "buy 2 cap":
			after = purse{cur.gold - 2*capBuy, cur.caps + 2}
		case "sell cap":
			after = purse{cur.gold + capSell, cur.caps - 1}
		case "sell all.cap":
			after = purse{cur.gold + capSell*cur.caps, 0}
		}
		b.pending = &pendingTrade{at: b.last + 1, before: cur, after: after}
		b.sent += 2
		b.mu.Unlock()
		token := fmt.Sprintf("trade%s%d", strings.ToLower(b.name), i)
		if b.c.Write([]byte(act+"\r\nsay "+token+"\r\n")) != nil {
			return
		}
		out, ok := b.c.Try("You say, '"+token+"'", 10*time.Second)
		if !ok {
			return // the server died under us
		}
		got := cur
		for _, m := range boughtRE.FindAllStringSubmatch(out, -1) {
			n := 1
			if m[1] != "" {
				n, _ = strconv.Atoi(m[1])
			}
			price, _ := strconv.Atoi(m[2])
			got.caps += n
			got.gold -= price
		}
		for _, m := range soldRE.FindAllStringSubmatch(out, -1) {
			price, _ := strconv.Atoi(m[1])
			got.caps--
			got.gold += price
		}
		b.mu.Lock()
		b.at[b.last+1] = got // after the action
		b.at[b.last+2] = got // after the say
		b.last += 2
		b.pending = nil
		b.mu.Unlock()
		time.Sleep(time.Duration(10+rng.IntN(30)) * time.Millisecond)
	}
}

// TestCrash_TradingNeverDupesOrLoses has two bots buy and sell leather caps
// at the smithy while the server is killed with SIGKILL at random moments.
// After every restart the store's purse of each bot (its gold and caps) is
// exactly what the bot saw at the moment of the save the store holds, the
// census finds no item held twice, and no save that completed was lost.
func TestCrash_TradingNeverDupesOrLoses(t *testing.T) {
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	const startGold = 400
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[zone]\ncheckpoint_secs = 1\n")
	names := []string{"Tradea", "Tradeb"}
	p := startProc(t, cfg, telnet)
	for _, n := range names {
		c := servertest.Dial(t, telnet)
		c.Create(n, "trade-pass")
		c.DoExpect("east", "Exits:")
		c.DoExpect("north", "Brannoc")
		c.Quit()
	}
	p.stop(t)
	for _, n := range names {
		setGold(t, dir, n, startGold)
	}
	bots := make([]*tradeBot, len(names))
	db := openDB(t, dir)
	for i, n := range names {
		c, err := db.Character(n)
		if err != nil {
			t.Fatal(err)
		}
		bots[i] = &tradeBot{name: n, base: c.Commands, at: map[uint64]purse{c.Commands: {gold: startGold}}, last: c.Commands}
	}
	db.Close()

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 13))
	trades := 0
	for round := 0; round < rounds; round++ {
		p := startProc(t, cfg, telnet)
		for _, b := range bots {
			b.c = servertest.Dial(t, telnet)
			b.c.Login(b.name, "trade-pass")
			b.sent = 0
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i, b := range bots {
			wg.Add(1)
			go func(b *tradeBot, r *rand.Rand) {
				defer wg.Done()
				b.play(r, stop)
			}(b, rand.New(rand.NewPCG(seed, uint64(round*10+i))))
		}
		// Random moments, as in TestCrash_KillNineNeverDupesOrLoses.
		time.Sleep(time.Duration(300+rng.IntN(1500)) * time.Millisecond)
		saved := make([]uint64, len(bots))
		for i, b := range bots {
			saved[i] = b.progress()
		}
		p.save(t)
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		p.kill9(t)
		close(stop)
		for _, b := range bots {
			b.c.Close()
		}
		wg.Wait()

		db := openDB(t, dir)
		if err := db.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if _, err := db.Census(); err != nil {
			t.Fatalf("round %d: an item is held twice or the ledger disagrees: %v", round, err)
		}
		for i, b := range bots {
			c, err := db.Character(b.name)
			if err != nil {
				t.Fatalf("round %d: %s does not load: %v", round, b.name, err)
			}
			stored := purse{gold: c.Gold}
			for _, it := range c.Items {
				if it.Proto == "emberfall:item:leather_cap" {
					stored.caps++
				}
			}
			if c.Commands < saved[i] {
				t.Fatalf("round %d: %s saved at %d commands, but %d were applied before a save that completed", round, b.name, c.Commands, saved[i])
			}
			want, known := b.at[c.Commands]
			switch {
			case known && stored != want:
				t.Fatalf("round %d: %s is stored at %d commands with %+v, but held %+v then", round, b.name, c.Commands, stored, want)
			case !known && (b.pending == nil || c.Commands < b.pending.at || c.Commands > b.pending.at+1):
				t.Fatalf("round %d: %s is stored at %d commands, which it never reached (%d known)", round, b.name, c.Commands, b.last)
			case !known && stored != b.pending.before && stored != b.pending.after:
				t.Fatalf("round %d: %s is stored with %+v after a trade whose answer was not read; want %+v or %+v", round, b.name, stored, b.pending.before, b.pending.after)
			}
			if stored.gold+capBuy*stored.caps > startGold {
				t.Fatalf("round %d: %s holds %+v, worth more than the %d gold it began with", round, b.name, stored, startGold)
			}
			trades += int(b.last-b.base) / 2
			// The next round starts from what the store holds.
			b.base, b.last, b.pending = c.Commands, c.Commands, nil
			b.at = map[uint64]purse{c.Commands: stored}
		}
		db.Close()
	}
	t.Logf("%d trading commands over %d rounds", trades, rounds)
}
