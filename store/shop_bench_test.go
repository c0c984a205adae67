package store

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkShopTrade is shop trades committed through the store as the
// game commits them: each trade changes one character's gold and items in
// the record that holds both (a buy adds a cap with a fresh id and takes
// 8 gold, a sale takes the cap away and gives 2), and a commit carries one
// trade per trader, as a checkpoint carries every dirty character of a
// zone. Every commit runs the epoch fence and the ledger rule on a real
// file with fsync; after the run the census must pass and every purse add
// up. Reported: trades a second.
func BenchmarkShopTrade(b *testing.B) {
	for _, traders := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("traders=%d", traders), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "shop.db"), DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			const startGold = 1 << 40
			chars := make([]*Character, traders)
			for i := range chars {
				chars[i] = typical(fmt.Sprintf("Trader%04d", i), uint64(i)*1000)
				chars[i].Gold = startGold
			}
			batch := &Batch{Zone: "emberfall", Chars: chars}
			if _, err := db.Commit([]*Batch{batch}); err != nil {
				b.Fatal(err)
			}
			base := make([]int, traders) // items each starts with
			for i, c := range chars {
				base[i] = len(c.Items)
			}
			nextID := uint64(1 << 32)
			buys, sells := 0, 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buy := i%2 == 0
				for _, c := range chars {
					if buy {
						nextID++
						c.Items = append(c.Items, Item{ID: nextID, Proto: "emberfall:item:leather_cap"})
						c.Gold -= 8
					} else {
						c.Items = c.Items[:len(c.Items)-1]
						c.Gold += 2
					}
					c.Commands++
				}
				if buy {
					buys++
				} else {
					sells++
				}
				res, err := db.Commit([]*Batch{batch})
				if err != nil || res[0] != nil {
					b.Fatal(err, res[0])
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*traders)/b.Elapsed().Seconds(), "trades/s")
			if _, err := db.Census(); err != nil {
				b.Fatalf("the ledger after %d trades: %v", b.N*traders, err)
			}
			for i, c := range chars {
				got, err := db.Character(c.Name)
				if err != nil {
					b.Fatal(err)
				}
				if want := startGold - 8*buys + 2*sells; got.Gold != want || len(got.Items) != base[i]+buys-sells {
					b.Fatalf("%s is stored with %d gold and %d items, want %d and %d", c.Name, got.Gold, len(got.Items), want, base[i]+buys-sells)
				}
			}
		})
	}
}
