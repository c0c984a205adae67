package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// world is everything a database holds that a player would miss, read back
// through the package's own decoding.
type world struct {
	Accounts map[string]Account
	Chars    map[string]Character
	Rooms    map[string][]Item
	Ledger   map[uint64]string
	ItemHigh uint64
	Created  int64
}

func readWorld(t *testing.T, db *DB) world {
	t.Helper()
	w := world{Accounts: map[string]Account{}, Chars: map[string]Character{}, Rooms: map[string][]Item{}}
	var accounts, chars []string
	err := db.bolt.View(func(tx *bolt.Tx) error {
		_ = tx.Bucket(bucketAccounts).ForEach(func(k, v []byte) error { accounts = append(accounts, string(k)); return nil })
		_ = tx.Bucket(bucketCharacters).ForEach(func(k, v []byte) error { chars = append(chars, string(k)); return nil })
		return tx.Bucket(bucketObjects).ForEach(func(k, v []byte) error {
			var items []Item
			if err := decode(v, &items); err != nil {
				return fmt.Errorf("room %s: %w", k, err)
			}
			w.Rooms[string(k)] = items
			return nil
		})
	})
	if err != nil {
		t.Fatalf("read the world back: %v", err)
	}
	for _, n := range accounts {
		a, err := db.Account(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Accounts[n] = *a
	}
	for _, n := range chars {
		c, err := db.Character(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Chars[n] = *c
	}
	if w.Ledger, err = db.Census(); err != nil {
		t.Fatalf("census: %v", err)
	}
	w.ItemHigh, w.Created = db.ItemHigh(), db.Created().Unix()
	return w
}

// fixture writes a real database as a server leaves it after some play:
// accounts, characters with worn gear and packs of items, items lying in
// storage rooms, items given from one character to another, then a
// restart with no play (so its last transaction counts a boot, as every
// start does). It returns the file's bytes and what it holds.
func fixture(t *testing.T) ([]byte, world) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fixture.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	chars := make([]*Character, n)
	for i := range chars {
		name := fmt.Sprintf("Player%03d", i)
		if err := db.CreateAccount(&Account{Name: name, Hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$" + strings.Repeat("k", 43), Created: 1764000000 + int64(i)}); err != nil {
			t.Fatal(err)
		}
		chars[i] = typical(name, uint64(i)*100)
		chars[i].Epoch = db.Boot()<<32 + uint64(i) + 1
	}
	for lo := 0; lo < n; lo += 50 {
		if err := commitOne(t, db, &Batch{Zone: "emberfall", Chars: chars[lo : lo+50]}); err != nil {
			t.Fatal(err)
		}
	}
	// Players drop things in the storage rooms, and give each other things.
	for r := 0; r < 4; r++ {
		giver, taker := chars[r*2], chars[r*2+1]
		room := RoomObjects{Room: fmt.Sprintf("emberfall:room:vault%d", r), Items: giver.Items[:3]}
		taker.Items = append(taker.Items, giver.Items[3])
		giver.Items = giver.Items[4:]
		if err := commitOne(t, db, &Batch{Zone: "emberfall", Chars: []*Character{giver, taker}, Rooms: []RoomObjects{room}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range chars {
		c.Level++
	}
	if err := commitOne(t, db, &Batch{Zone: "emberfall", Chars: chars}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := readWorld(t, db)
	db.Close()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 512<<10 {
		t.Fatalf("fixture is %d bytes; it must be larger than the truncations tried", len(data))
	}
	if len(want.Accounts) != n || len(want.Chars) != n || len(want.Rooms) != 4 || len(want.Ledger) < 20*n {
		t.Fatalf("fixture holds %d accounts, %d characters, %d rooms, %d items", len(want.Accounts), len(want.Chars), len(want.Rooms), len(want.Ledger))
	}
	return data, want
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// refused asserts err is the refusal of path that tells the admin what is
// wrong (containing want) and that nothing was changed, and that the file
// still has the bytes it had.
func refused(t *testing.T, err error, path string, before [32]byte, kind error, want string) {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || !errors.Is(err, kind) {
		t.Fatalf("got %v, want a refusal (%v)", err, kind)
	}
	msg := err.Error()
	for _, s := range []string{path, "nothing in it was changed", want} {
		if !strings.Contains(msg, s) {
			t.Fatalf("refusal %q does not say %q", msg, s)
		}
	}
	if sum(t, path) != before {
		t.Fatal("the refused file was changed")
	}
}

// An empty file is not a new database: every account would be gone and
// the first player to type an old name would own it.
func TestOpen_EmptyFileRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "zonemud.db")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	before := sum(t, p)
	for _, cfg := range []Config{DefaultConfig(), {File: "zonemud.db", OpenTimeoutSecs: 1, CheckOnOpen: false}} {
		_, err := Open(p, cfg)
		refused(t, err, p, before, ErrEmpty, "0 bytes")
		_, err = OpenReadOnly(p, cfg)
		refused(t, err, p, before, ErrEmpty, "0 bytes")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 1 {
		t.Fatalf("files left beside the refused one: %v", left)
	}
}

// A new database is made where there is no file, and only there.
func TestOpen_NewOnlyWhereNoFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "zonemud.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !db.Fresh() || db.Boot() != 1 {
		t.Fatalf("first open: fresh %v, boot %d; want a new database at boot 1", db.Fresh(), db.Boot())
	}
	if err := db.CreateAccount(&Account{Name: "Aria", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Fresh() || db.Boot() != 2 {
		t.Fatalf("second open: fresh %v, boot %d", db.Fresh(), db.Boot())
	}
	if _, err := db.Account("aria"); err != nil {
		t.Fatalf("the account did not survive a restart: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "sub", ".new-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A truncated file is refused before bbolt maps it: today's bbolt faults
// (SIGBUS) reading a freelist past the end of the file.
func TestOpen_TruncatedRefused(t *testing.T) {
	data, _ := fixture(t)
	dir := t.TempDir()
	for _, kb := range []int{64, 128, 256} {
		t.Run(fmt.Sprintf("%dKB", kb), func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("cut%d.db", kb))
			if err := os.WriteFile(p, data[:kb<<10], 0o600); err != nil {
				t.Fatal(err)
			}
			before := sum(t, p)
			_, err := Open(p, DefaultConfig())
			refused(t, err, p, before, ErrCorrupt, "the end of the file is missing")
			cfg := DefaultConfig()
			cfg.CheckOnOpen = false
			_, err = Open(p, cfg)
			refused(t, err, p, before, ErrCorrupt, "the end of the file is missing")
		})
	}
}

// Random bits gone bad: every run either refuses the file, untouched, with
// the message, or serves it with every account, character, item and room
// as it was. None crashes (a fault in the memory map would end the test
// binary) and none is written to before its check. Runs 1 to 10 flip bits
// anywhere in the file, as a disk would; bbolt grows a file in steps of 16
// MiB, so most of those land in its unused end and must do no harm. Runs
// 11 to 20 flip bits only in the pages in use.
func TestOpen_BitFlipsRefusedOrHarmless(t *testing.T) {
	data, want := fixture(t)
	dir := t.TempDir()
	// Records are decoded in chunks, on every core; small chunks make
	// many, so their order and their edges are tried too.
	defer func(n int) { recordChunk = n }(recordChunk)
	recordChunk = 7
	var refusals, served int
	inUse := 0
	for page := range 2 {
		m := parseMeta(data[page*4096:])
		inUse = max(inUse, int(m.hwm)*4096)
	}
	if inUse < 256<<10 || inUse > len(data) {
		t.Fatalf("%d bytes in use of %d", inUse, len(data))
	}
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0xb17f11b5))
			bad := bytes.Clone(data)
			var flips []string
			for range 16 {
				span := len(bad)
				if seed > 10 {
					span = inUse
				}
				off, bit := rng.IntN(span), rng.IntN(8)
				bad[off] ^= 1 << bit
				flips = append(flips, fmt.Sprintf("%d.%d", off, bit))
			}
			p := filepath.Join(dir, fmt.Sprintf("flip%d.db", seed))
			if err := os.WriteFile(p, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			before := sum(t, p)
			ro, err := OpenReadOnly(p, DefaultConfig())
			if err == nil {
				ro.Close()
			}
			if sum(t, p) != before {
				t.Fatal("the read-only check changed the file")
			}
			db, err := Open(p, DefaultConfig())
			if err != nil {
				refused(t, err, p, before, ErrCorrupt, "damaged")
				refusals++
				t.Logf("flips %v: refused: %v", flips, err)
				return
			}
			defer db.Close()
			served++
			if got := readWorld(t, db); !reflect.DeepEqual(got, want) {
				t.Fatalf("flips %v: served with data changed", flips)
			}
			if err := db.Check(); err != nil {
				t.Fatalf("flips %v: served a file that fails its check: %v", flips, err)
			}
			t.Logf("flips %v: served intact (notes %q)", flips, db.Notes())
		})
	}
	t.Logf("%d refused, %d served intact", refusals, served)
	if refusals == 0 || served == 0 {
		t.Fatalf("%d refused, %d served: the seeds no longer try both outcomes", refusals, served)
	}
}

// A deleted ledger bucket, or a ledger that names the wrong holder, is
// refused at start-up with the bucket or the item named, and the file is
// left as it was.
func TestOpen_DamagedLedgerRefused(t *testing.T) {
	data, _ := fixture(t)
	dir := t.TempDir()
	damage := func(name string, fn func(tx *bolt.Tx) error) string {
		p := filepath.Join(dir, name+".db")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		bdb, err := bolt.Open(p, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bdb.Update(fn); err != nil {
			t.Fatal(err)
		}
		bdb.Close()
		return p
	}
	off := DefaultConfig()
	off.CheckOnOpen = false

	p := damage("deleted", func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketLedger) })
	before := sum(t, p)
	_, err := Open(p, DefaultConfig())
	refused(t, err, p, before, ErrCorrupt, "its ledger bucket is missing")
	// The schema check runs even with check_on_open off.
	_, err = Open(p, off)
	refused(t, err, p, before, ErrCorrupt, "its ledger bucket is missing")

	p = damage("moved", func(tx *bolt.Tx) error {
		return tx.Bucket(bucketLedger).Put(u64(105), []byte("c:player007"))
	})
	before = sum(t, p)
	_, err = Open(p, DefaultConfig())
	refused(t, err, p, before, ErrCorrupt, `item 105 is held by c:player001 but the ledger says "c:player007"`)

	p = damage("dropped", func(tx *bolt.Tx) error { return tx.Bucket(bucketLedger).Delete(u64(105)) })
	before = sum(t, p)
	_, err = Open(p, DefaultConfig())
	refused(t, err, p, before, ErrCorrupt, "item 105 is held by c:player001 but is not in the ledger")

	p = damage("garbage", func(tx *bolt.Tx) error { return tx.Bucket(bucketLedger).Put(u64(105), []byte{0xff, 0}) })
	before = sum(t, p)
	_, err = Open(p, DefaultConfig())
	refused(t, err, p, before, ErrCorrupt, "item 105")
}

// The whole check reads every record: one that fails its checksum, an
// account gone missing, a key that is not its record's name.
func TestOpen_DamagedRecordsRefused(t *testing.T) {
	data, _ := fixture(t)
	dir := t.TempDir()
	cases := []struct {
		name, want string
		fn         func(tx *bolt.Tx) error
	}{
		{"flipped character", `character "player010": store: record is damaged: checksum mismatch`, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketCharacters)
			v := bytes.Clone(b.Get([]byte("player010")))
			v[len(v)-20] ^= 1
			return b.Put([]byte("player010"), v)
		}},
		{"lost account", "there are 199 accounts, but 200 were created", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketAccounts).Delete([]byte("player050"))
		}},
		{"renamed account", `account "player05x" holds the record of "Player050"`, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketAccounts)
			v := bytes.Clone(b.Get([]byte("player050")))
			if err := b.Delete([]byte("player050")); err != nil {
				return err
			}
			return b.Put([]byte("player05x"), v)
		}},
		{"legacy record in schema 2", `placement "player020": not in a checksummed form`, func(tx *bolt.Tx) error {
			return tx.Bucket(bucketPlacements).Put([]byte("player020"), []byte(`{"zone":"emberfall"}`))
		}},
		{"empty character", `character "player030": store: record is damaged: an empty record`, func(tx *bolt.Tx) error {
			return tx.Bucket(bucketCharacters).Put([]byte("player030"), []byte{})
		}},
		{"empty account", `account "player040": store: record is damaged: an empty record`, func(tx *bolt.Tx) error {
			return tx.Bucket(bucketAccounts).Put([]byte("player040"), []byte{})
		}},
		{"boot counter behind", "the boot counter is 0", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keyBoots, u64c(0))
		}},
		{"unknown bucket", `a bucket "ledgers"`, func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("ledgers"))
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".db")
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			bdb, err := bolt.Open(p, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := bdb.Update(c.fn); err != nil {
				t.Fatal(err)
			}
			bdb.Close()
			before := sum(t, p)
			_, err = Open(p, DefaultConfig())
			refused(t, err, p, before, ErrCorrupt, c.want)
		})
	}
}

// A damaged meta page is bbolt's torn write: it uses the other one, from
// the transaction before, and the store says so.
func TestOpen_DamagedMetaPageFallsBack(t *testing.T) {
	data, want := fixture(t)
	// The later transaction's meta page is the one with the larger txid;
	// break its checksum.
	txid := func(page int) uint64 { return ne.Uint64(data[page*4096+pageHeaderSize+48:]) }
	later := 0
	if txid(1) > txid(0) {
		later = 1
	}
	bad := bytes.Clone(data)
	bad[later*4096+pageHeaderSize+56] ^= 0x40
	p := filepath.Join(t.TempDir(), "meta.db")
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("a file with one good meta page: %v", err)
	}
	defer db.Close()
	if len(db.Notes()) == 0 || !strings.Contains(db.Notes()[0], fmt.Sprintf("meta page %d is damaged", later)) {
		t.Fatalf("notes %q do not tell of the damaged meta page", db.Notes())
	}
	if got := readWorld(t, db); !reflect.DeepEqual(got, want) {
		t.Fatal("data changed")
	}
	// Both broken: refused.
	bad[(1-later)*4096+pageHeaderSize+56] ^= 0x40
	q := filepath.Join(t.TempDir(), "meta2.db")
	if err := os.WriteFile(q, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	before := sum(t, q)
	_, err = Open(q, DefaultConfig())
	refused(t, err, q, before, ErrCorrupt, "both meta pages are damaged")
}

// A branch page that points back at itself would send bbolt's walks round
// for ever; the walk of the pages refuses it.
func TestOpen_PageCycleRefused(t *testing.T) {
	data, _ := fixture(t)
	// The characters bucket spans many pages, so its root is a branch
	// page; point its first child at itself.
	p := filepath.Join(t.TempDir(), "cycle.db")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	bdb, err := bolt.Open(p, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	_ = bdb.View(func(tx *bolt.Tx) error { root = uint64(tx.Bucket(bucketCharacters).Root()); return nil })
	bdb.Close()
	bad := bytes.Clone(data)
	page := bad[root*4096:]
	if ne.Uint16(page[8:]) != branchPageFlag || ne.Uint16(page[10:]) < 2 {
		t.Fatalf("the characters bucket's root, page %d, is not a branch page", root)
	}
	ne.PutUint64(page[pageHeaderSize+8:], root)
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	before := sum(t, p)
	_, err = Open(p, DefaultConfig())
	refused(t, err, p, before, ErrCorrupt, "is reached twice")
}

// A schema 1 file (records without checksums) is migrated at open, and
// then passes the whole check.
func TestOpen_MigratesSchema1(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.db")
	bdb, err := bolt.Open(p, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	legacy := func(v any) []byte {
		b, _ := encode(v)
		return append([]byte{recordV1}, b[5:]...)
	}
	c := char("Aria", 7, "town", "town:room:square", 1, 2)
	err = bdb.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		_ = meta.Put(keySchema, u64(1))
		_ = meta.Put(keyBoots, u64(3))
		_ = meta.Put(keyCreated, u64(1764000000))
		_ = meta.Put(keyItemHigh, u64(2))
		_ = tx.Bucket(bucketAccounts).Put(key("Aria"), legacy(&Account{Name: "Aria", Hash: "h"}))
		cj, _ := encodeChar(c)
		old := append(append([]byte{recordChar}, cj[1:9]...), cj[13:]...)
		_ = tx.Bucket(bucketCharacters).Put(key("Aria"), old)
		_ = tx.Bucket(bucketPlacements).Put(key("Aria"), legacy(c.Place))
		_ = tx.Bucket(bucketLedger).Put(u64(1), []byte("c:aria"))
		_ = tx.Bucket(bucketLedger).Put(u64(2), []byte("c:aria"))
		return tx.Bucket(bucketHoldings).Put([]byte("c:aria"), packIDs([]uint64{1, 2}))
	})
	if err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("schema 1 file: %v", err)
	}
	if db.Boot() != 4 || !strings.Contains(strings.Join(db.Migrations(), ";"), "migrated from schema 1 to 2") || len(db.Notes()) != 0 {
		t.Fatalf("boot %d, migrations %q, notes %q", db.Boot(), db.Migrations(), db.Notes())
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("after the migration: %v", err)
	}
	defer db.Close()
	got, err := db.Character("aria")
	if err != nil || got.Epoch != 7 || len(got.Items) != 2 || got.Place.Room != "town:room:square" {
		t.Fatalf("migrated character %+v, %v", got, err)
	}
	if a, err := db.Account("aria"); err != nil || a.Hash != "h" {
		t.Fatalf("migrated account %+v, %v", a, err)
	}
}

// A backup of a stopped server's database opens it read-only: the file is
// byte for byte as it was, and the copy holds everything.
func TestOpenReadOnly_BackupChangesNothing(t *testing.T) {
	data, want := fixture(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "zonemud.db")
	if err := os.WriteFile(p, data, 0o400); err != nil { // read-only on disk too
		t.Fatal(err)
	}
	before := sum(t, p)
	db, err := OpenReadOnly(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "copy.db")
	if _, err := db.BackupFile(out); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(&Account{Name: "Intruder", Hash: "h"}); err == nil {
		t.Fatal("a read-only database took a write")
	}
	db.Close()
	if sum(t, p) != before {
		t.Fatal("a read-only open changed the file")
	}
	cp, err := Open(out, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if got := readWorld(t, cp); !reflect.DeepEqual(got, want) {
		t.Fatal("the backup does not hold the world")
	}
}
