package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkOpenCheck times what start-up costs before a database is
// served: the read-only open and check of a large file, with check_on_open
// on (every page, bbolt's check, every record, the census) and off (meta
// pages, freelist, schema). The file is a world of players as typical()
// makes them, written once and kept:
//
//	ZONEMUD_BENCH_DB=/tmp/big.db ZONEMUD_BENCH_DB_MB=1024 \
//	    go test -run '^$' -bench OpenCheck -benchtime 3x ./store/
//
// Without ZONEMUD_BENCH_DB it makes a 64 MB file in a temporary folder.
func BenchmarkOpenCheck(b *testing.B) {
	path := os.Getenv("ZONEMUD_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "big.db")
	}
	mb := 64
	if s := os.Getenv("ZONEMUD_BENCH_DB_MB"); s != "" {
		var err error
		if mb, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		players, err := writeBigDB(path, int64(mb)<<20)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote %s: %d players in %v", path, players, time.Since(start).Round(time.Second))
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %d bytes", path, fi.Size())
	for _, full := range []bool{true, false} {
		b.Run(fmt.Sprintf("check_on_open=%v", full), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.CheckOnOpen = full
			b.SetBytes(fi.Size())
			cpu := cpuTime()
			for b.Loop() {
				db, err := OpenReadOnly(path, cfg)
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
			// CPU time too: wall time on a shared machine depends on
			// who else is running.
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
	// The parts of the whole check, one by one.
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l, err := readLayout(f, fi.Size())
	if err != nil {
		b.Fatal(err)
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bdb.Close()
	b.Run("part=page-walk", func(b *testing.B) {
		for b.Loop() {
			if _, err := walkPages(f, l, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("part=bbolt-check", func(b *testing.B) {
		for b.Loop() {
			_ = bdb.View(func(tx *bolt.Tx) error {
				for err := range tx.Check() {
					b.Error(err)
				}
				return nil
			})
		}
	})
	b.Run("part=records-and-census", func(b *testing.B) {
		for b.Loop() {
			_ = bdb.View(func(tx *bolt.Tx) error {
				a, err := runAudit(tx, nil)
				if err != nil || a.count > 0 {
					b.Fatal(err, a.summary())
				}
				return nil
			})
		}
	})
}

// writeBigDB writes a database of about size bytes: accounts, characters
// with worn gear and packs (typical()), and a storage room with items for
// every hundred players. It returns the players written.
func writeBigDB(path string, size int64) (int, error) {
	db, err := Open(path, DefaultConfig())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.bolt.NoSync = true // a benchmark fixture; the file is checked, not trusted
	const batch = 2000
	players := 0
	for db.Size() < size {
		// Accounts in one transaction per batch: CreateAccount syncs each.
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketAccounts)
			for i := players; i < players+batch; i++ {
				name := fmt.Sprintf("Player%07d", i)
				v, err := encode(&Account{Name: name, Hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$0123456789abcdef0123456789abcdef0123456789a", Created: 1764000000 + int64(i), LastLogin: 1764100000 + int64(i)})
				if err != nil {
					return err
				}
				if err := b.Put(key(name), v); err != nil {
					return err
				}
			}
			meta := tx.Bucket(bucketMeta)
			n, err := metaU64(meta.Get(keyAccounts))
			if err != nil {
				return err
			}
			return meta.Put(keyAccounts, u64c(n+batch))
		})
		if err != nil {
			return players, err
		}
		chars := make([]*Character, batch)
		for i := range chars {
			n := players + i
			chars[i] = typical(fmt.Sprintf("Player%07d", n), uint64(n)*100)
			chars[i].Epoch = db.Boot()<<32 + uint64(n) + 1
		}
		var rooms []RoomObjects
		for r := players / 100; r < (players+batch)/100; r++ {
			items := make([]Item, 20)
			for j := range items {
				items[j] = Item{ID: 1<<40 + uint64(r)*100 + uint64(j), Proto: "emberfall:item:bread"}
			}
			rooms = append(rooms, RoomObjects{Room: fmt.Sprintf("emberfall:room:vault%06d", r), Items: items})
		}
		res, err := db.Commit([]*Batch{{Zone: "emberfall", Chars: chars, Rooms: rooms}})
		if err != nil {
			return players, err
		}
		if res[0] != nil {
			return players, res[0]
		}
		players += batch
	}
	return players, db.bolt.Sync()
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
