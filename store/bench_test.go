package store

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// typical is a character as a player a few hours in carries it: worn gear,
// a pack with things in it, a pouch of coins.
func typical(name string, firstID uint64) *Character {
	c := char(name, 3, "emberfall", "emberfall:room:square")
	c.Level, c.Exp, c.HP, c.Mana, c.Moves, c.Gold = 7, 18234, 88, 45, 130, 412
	c.Played, c.Commands, c.Created = 36123, 9021, 1764000000
	id := firstID
	next := func() uint64 { id++; return id }
	for _, slot := range []string{"head", "body", "wield", "light", "feet", "hands"} {
		c.Items = append(c.Items, Item{ID: next(), Proto: "emberfall:item:" + slot + "_thing", Slot: slot})
	}
	pack := Item{ID: next(), Proto: "emberfall:item:backpack", Closed: true}
	for i := 0; i < 10; i++ {
		pack.Contents = append(pack.Contents, Item{ID: next(), Proto: "whisperwood:item:mushrooms"})
	}
	c.Items = append(c.Items, pack)
	for i := 0; i < 3; i++ {
		c.Items = append(c.Items, Item{ID: next(), Proto: "emberfall:item:bread"})
	}
	c.Affects = []Affect{{Name: "blessed", Pulses: 400, Mag: 2}}
	c.Settings = Settings{Color: "256", Vitals: true}
	return c
}

// BenchmarkEncode compares the record encodings considered: JSON (chosen)
// and gob. Sizes are reported as bytes/record.
func BenchmarkEncode(b *testing.B) {
	c := typical("Aria", 0)
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for i := 0; i < b.N; i++ {
			v, _ := encode(c)
			n = len(v)
		}
		b.ReportMetric(float64(n), "bytes/record")
	})
	b.Run("char-json", func(b *testing.B) { // as encoding/json writes a character record
		b.ReportAllocs()
		var n int
		for i := 0; i < b.N; i++ {
			v, _ := json.Marshal(c)
			n = len(v) + 13
		}
		b.ReportMetric(float64(n), "bytes/record")
	})
	b.Run("char-hand", func(b *testing.B) { // the same bytes, as the store writes a character record
		b.ReportAllocs()
		var n int
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = appendChar(buf[:0], c)
			n = len(buf)
		}
		b.ReportMetric(float64(n), "bytes/record")
	})
	b.Run("gob", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for i := 0; i < b.N; i++ {
			var buf bytes.Buffer
			_ = gob.NewEncoder(&buf).Encode(c) // one record per value, as the store writes them
			n = buf.Len()
		}
		b.ReportMetric(float64(n), "bytes/record")
	})
}

func BenchmarkDecode(b *testing.B) {
	c := typical("Aria", 0)
	jv, _ := encode(c)
	var gbuf bytes.Buffer
	_ = gob.NewEncoder(&gbuf).Encode(c)
	gv := gbuf.Bytes()
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var out Character
			if err := decode(jv, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gob", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var out Character
			if err := gob.NewDecoder(bytes.NewReader(gv)).Decode(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCommit is one zone's checkpoint of N dirty characters (20 items
// each) in one transaction, with the epoch fence and ledger checks, on a
// real file with fsync. Reported: time per commit, record bytes encoded and
// bytes of pages bbolt wrote.
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("chars=%d", n), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"), DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			chars := make([]*Character, n)
			for i := range chars {
				chars[i] = typical(fmt.Sprintf("Bot%06d", i), uint64(i)*100)
			}
			batch := &Batch{Zone: "emberfall", Chars: chars}
			if _, err := db.Commit([]*Batch{batch}); err != nil { // the first save of each
				b.Fatal(err)
			}
			var encoded int
			for _, c := range chars {
				v, _ := encode(c)
				encoded += len(v)
			}
			before := db.bolt.Stats()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, c := range chars {
					c.Commands++
				}
				res, err := db.Commit([]*Batch{batch})
				if err != nil || res[0] != nil {
					b.Fatal(err, res[0])
				}
			}
			b.StopTimer()
			after := db.bolt.Stats()
			pages := after.TxStats.GetPageAlloc() - before.TxStats.GetPageAlloc()
			b.ReportMetric(float64(encoded), "record-bytes/commit")
			b.ReportMetric(float64(pages)/float64(b.N), "page-bytes/commit")
		})
	}
}
