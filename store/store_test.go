package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openTest opens a real bbolt file in a temp dir and checks it for
// consistency when the test ends.
func openTest(t *testing.T) *DB {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		if _, err := db.Census(); err != nil {
			t.Errorf("census: %v", err)
		}
		db.Close()
	})
	return db
}

func char(name string, epoch uint64, zone, room string, ids ...uint64) *Character {
	c := &Character{Name: name, Epoch: epoch, Level: 1, Place: Placement{Zone: zone, Room: room}}
	for _, id := range ids {
		c.Items = append(c.Items, Item{ID: id, Proto: "z:item:thing"})
	}
	return c
}

func commitOne(t *testing.T, db *DB, b *Batch) error {
	t.Helper()
	res, err := db.Commit([]*Batch{b})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	return res[0]
}

func TestStore_SaveAndLoad(t *testing.T) {
	db := openTest(t)
	c := char("Aria", 5, "town", "town:room:square", 1, 2)
	c.Items[0].Contents = []Item{{ID: 3, Proto: "z:item:coin"}}
	c.Settings.Brief = true
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{c}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Character("aria")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Aria" || got.Epoch != 5 || len(got.Items) != 2 || got.Items[0].Contents[0].ID != 3 || !got.Settings.Brief {
		t.Fatalf("loaded %+v", got)
	}
	if got.Place.Zone != "town" || got.Place.Room != "town:room:square" {
		t.Fatalf("placement %+v", got.Place)
	}
	if db.ItemHigh() != 3 {
		t.Fatalf("item high-water %d, want 3", db.ItemHigh())
	}
	if _, err := db.Character("nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing character: %v", err)
	}
}

// The epoch fence: a save from an older login can never overwrite a newer
// one, and the refusal is counted.
func TestStore_EpochFence(t *testing.T) {
	db := openTest(t)
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 7, "town", "town:room:a")}}); err != nil {
		t.Fatal(err)
	}
	err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 6, "town", "town:room:stale"), char("Bren", 1, "town", "town:room:b")}})
	if !errors.Is(err, ErrStaleEpoch) {
		t.Fatalf("stale save: got %v, want ErrStaleEpoch", err)
	}
	var be *BatchError
	if !errors.As(err, &be) || len(be.Stale) != 1 || be.Stale[0] != "Aria" {
		t.Fatalf("batch error %+v", be)
	}
	got, _ := db.Character("Aria")
	if got.Place.Room != "town:room:a" {
		t.Fatalf("a stale save overwrote the newer one: %+v", got.Place)
	}
	if _, err := db.Character("Bren"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the refused batch was half applied: Bren %v", err)
	}
	if db.Refused() != 1 {
		t.Fatalf("refused count %d, want 1", db.Refused())
	}
	// The same epoch and newer ones are fine.
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 7, "town", "town:room:c")}}); err != nil {
		t.Fatal(err)
	}
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 9, "town", "town:room:d")}}); err != nil {
		t.Fatal(err)
	}
}

// The ledger: one item id in two holders is refused; moving an item between
// holders of one batch is fine, whatever their order.
func TestStore_LedgerRefusesDuplicates(t *testing.T) {
	db := openTest(t)
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 1, "town", "r", 10, 11)}}); err != nil {
		t.Fatal(err)
	}
	// Bren claims item 10 while Aria's record still holds it: a dupe.
	err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Bren", 1, "town", "r", 10)}})
	if !errors.Is(err, ErrLedger) {
		t.Fatalf("duplicate: got %v, want ErrLedger", err)
	}
	// One id twice in one batch is refused too.
	err = commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Cato", 1, "town", "r", 50), char("Dara", 1, "town", "r", 50)}})
	if !errors.Is(err, ErrLedger) {
		t.Fatalf("duplicate inside a batch: got %v, want ErrLedger", err)
	}
	// A give: Aria hands 10 to Bren; both in one batch, Bren first.
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Bren", 1, "town", "r", 10), char("Aria", 1, "town", "r", 11)}}); err != nil {
		t.Fatalf("give: %v", err)
	}
	census, err := db.Census()
	if err != nil {
		t.Fatal(err)
	}
	if census[10] != "c:bren" || census[11] != "c:aria" || len(census) != 2 {
		t.Fatalf("census %v", census)
	}
	// A drop into a storage room and a pick-up elsewhere in one batch.
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 1, "town", "r")}, Rooms: []RoomObjects{{Room: "town:room:vault", Items: []Item{{ID: 11, Proto: "p"}}}}}); err != nil {
		t.Fatalf("drop in storage: %v", err)
	}
	objs, _ := db.RoomObjects("town")
	if len(objs["town:room:vault"]) != 1 {
		t.Fatalf("room objects %v", objs)
	}
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Bren", 1, "town", "r", 10, 11)}, Rooms: []RoomObjects{{Room: "town:room:vault"}}}); err != nil {
		t.Fatalf("pick up from storage: %v", err)
	}
	if objs, _ := db.RoomObjects("town"); len(objs) != 0 {
		t.Fatalf("room objects after pick-up %v", objs)
	}
}

// The COALESCE rule: a placement with an empty zone (a character inside an
// instance) never clobbers the stored zone and room; it only sets the
// anchor.
func TestStore_PlacementCoalesce(t *testing.T) {
	db := openTest(t)
	if err := commitOne(t, db, &Batch{Zone: "wood", Chars: []*Character{char("Aria", 1, "wood", "wood:room:mound")}}); err != nil {
		t.Fatal(err)
	}
	in := char("Aria", 1, "", "")
	in.Place.AnchorZone, in.Place.AnchorRoom = "wood", "wood:room:mound"
	if err := commitOne(t, db, &Batch{Zone: "crypt#00", Chars: []*Character{in}}); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Character("Aria")
	want := Placement{Zone: "wood", Room: "wood:room:mound", AnchorZone: "wood", AnchorRoom: "wood:room:mound"}
	if got.Place != want {
		t.Fatalf("placement %+v, want %+v", got.Place, want)
	}
	// Back in a real zone: the placement is written and the anchor cleared.
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 1, "town", "town:room:square")}}); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Character("Aria")
	if got.Place != (Placement{Zone: "town", Room: "town:room:square"}) {
		t.Fatalf("placement %+v", got.Place)
	}
}

func TestStore_Accounts(t *testing.T) {
	db := openTest(t)
	a := &Account{Name: "Aria", Hash: "$argon2id$x", Created: 1}
	if err := db.CreateAccount(a); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(&Account{Name: "ARIA", Hash: "h"}); !errors.Is(err, ErrExists) {
		t.Fatalf("second account with another case: %v", err)
	}
	if err := db.UpdateAccount("aria", func(a *Account) error { a.Keys = append(a.Keys, "ssh-ed25519 AAAA"); return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := db.Account("Aria")
	if err != nil || len(got.Keys) != 1 {
		t.Fatalf("account %+v, %v", got, err)
	}
	if err := db.CreateAccount(&Account{Name: "", Hash: "h"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("empty name: %v", err)
	}
}

// A second process on the same file gets a clear error within the timeout
// instead of hanging.
func TestStore_SecondOpenerTimesOut(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locked.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := DefaultConfig()
	cfg.OpenTimeoutSecs = 1
	start := time.Now()
	_, err = Open(p, cfg)
	// A generous bound on a hang: the open gives up after its 1 s timeout.
	if !errors.Is(err, ErrLocked) || time.Since(start) > 30*time.Second {
		t.Fatalf("second open: %v after %v, want ErrLocked once the timeout passed", err, time.Since(start))
	}
}

func TestStore_NewerSchemaRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	_ = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, u64(SchemaVersion+1)) })
	db.Close()
	_, err = Open(p, DefaultConfig())
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("newer schema: %v", err)
	}
}

// A truncated or damaged file stops start-up with a message, not a panic,
// and the file is left as it was for the admin to restore.
func TestStore_DamagedFileRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "good.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		_ = commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char(strings.Repeat("x", i%7+1)+string(rune('a'+i%26)), 1, "town", "r", uint64(i+1))}})
	}
	db.Close()
	good, _ := os.ReadFile(p)

	cases := map[string][]byte{
		"truncated":   good[:len(good)/3],
		"tiny":        good[:100],
		"meta zeroed": append(make([]byte, 8192), good[8192:]...),
	}
	// Flip bytes in the middle: a page of data gone bad.
	flipped := append([]byte(nil), good...)
	for i := len(flipped) / 2; i < len(flipped)/2+512 && i < len(flipped); i++ {
		flipped[i] ^= 0xA5
	}
	cases["flipped page"] = flipped
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			q := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".db")
			if err := os.WriteFile(q, data, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(q, DefaultConfig())
			if err == nil {
				// Some damage lands on free pages: then the file must at
				// least pass its own check and census.
				defer db.Close()
				if cerr := db.Check(); cerr != nil {
					t.Fatalf("opened a file that fails its check: %v", cerr)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("damaged file: got %v, want ErrCorrupt", err)
			}
			after, _ := os.ReadFile(q)
			if !bytes.Equal(after, data) {
				t.Fatal("a refused file was modified")
			}
		})
	}
}

func TestStore_Backup(t *testing.T) {
	db := openTest(t)
	_ = commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 1, "town", "r", 1)}})
	out := filepath.Join(t.TempDir(), "backup.db")
	n, err := db.BackupFile(out)
	if err != nil || n == 0 {
		t.Fatalf("backup: %d, %v", n, err)
	}
	b, err := Open(out, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if c, err := b.Character("Aria"); err != nil || len(c.Items) != 1 {
		t.Fatalf("backup content: %+v, %v", c, err)
	}
}

// One bad character record refuses that login with ErrCorrupt and nothing
// else: every other record still reads.
func TestStore_BadRecordIsolated(t *testing.T) {
	db := openTest(t)
	_ = commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 1, "town", "r", 1), char("Bren", 1, "town", "r", 2)}})
	_ = db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketCharacters).Put(key("Aria"), []byte{1, '{', 'b', 'a', 'd'})
	})
	if _, err := db.Character("Aria"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Aria") {
		t.Fatalf("bad record: %v", err)
	}
	if c, err := db.Character("Bren"); err != nil || c.Name != "Bren" {
		t.Fatalf("good record beside a bad one: %v", err)
	}
	// A good save replaces the bad record.
	_ = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketHoldings).Delete([]byte("c:aria")) })
	_ = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketLedger).Delete(u64(1)) })
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Aria", 2, "town", "r")}}); err != nil {
		t.Fatal(err)
	}
}

// MaxSize stands in for a full disk: the commit fails, the store stays
// usable, and nothing committed before is lost.
func TestStore_FullDiskFailsCleanly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "small.db")
	cfg := DefaultConfig()
	cfg.MaxSizeMB = 1
	db, err := Open(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Keep", 1, "town", "r", 1)}}); err != nil {
		t.Fatal(err)
	}
	big := char("Big", 1, "town", "r")
	for i := 0; i < 20000; i++ {
		big.Items = append(big.Items, Item{ID: uint64(100 + i), Proto: strings.Repeat("p", 60)})
	}
	refused := db.Refused()
	stale := char("Keep", 0, "town", "r", 1) // an older login's save: refused in the same transaction
	res, err := db.Commit([]*Batch{{Zone: "town", Chars: []*Character{stale}}, {Zone: "town", Chars: []*Character{big}}})
	if err == nil || res[1] == nil {
		t.Fatal("a commit past the size cap succeeded")
	}
	if db.Refused() != refused {
		t.Errorf("a failed transaction counted %d refusals; it refused nothing, it wrote nothing", db.Refused()-refused)
	}
	if c, err := db.Character("Keep"); err != nil || len(c.Items) != 1 {
		t.Fatalf("committed data lost after a failed commit: %v", err)
	}
	if err := commitOne(t, db, &Batch{Zone: "town", Chars: []*Character{char("Small", 1, "town", "r", 2)}}); err != nil {
		t.Fatalf("store unusable after a failed commit: %v", err)
	}
}

func FuzzDecodeCharacter(f *testing.F) {
	good, _ := encodeChar(char("Aria", 1, "town", "r", 1, 2))
	f.Add(good)
	old, _ := encode(char("Aria", 1, "town", "r", 1, 2))
	f.Add(old)
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 9, '{'})
	f.Add([]byte{1})
	f.Add([]byte{1, '{', '}'})
	f.Add([]byte{2, '{', '}'})
	f.Add([]byte{1, '[', '1', ']'})
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Character
		if err := decodeChar(b, &c); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decode error not ErrCorrupt: %v", err)
		}
		_ = storedEpoch(b)
	})
}

// FuzzDecodeRecord feeds every reader of stored bytes the same input: the
// record of each kind (accounts, bans, leases, placements, room objects),
// the numbers in the meta bucket, the epoch the fence reads, and the
// census's own decoders. Each refuses what it cannot read with ErrCorrupt
// or a plain refusal, never a panic; the census, which decodes characters
// into a record it reuses, reads a character exactly as the store does,
// whatever record it read before.
func FuzzDecodeRecord(f *testing.F) {
	nested := char("Aria", 7, "town", "r", 1, 2)
	nested.Items[0].Contents = []Item{{ID: 3, Proto: "z:item:coin", Contents: []Item{{ID: 4, Proto: "z:item:gem"}}}}
	good, _ := encodeChar(nested)
	plain, _ := encodeChar(char("Bob", 2, "town", "r"))
	acct, _ := encode(&Account{Name: "Aria", Hash: "h"})
	ban, _ := encode(Ban{Kind: BanAddress, Target: "203.0.113.0/24"})
	lease, _ := encode(Lease{Gen: 3})
	objs, _ := encode([]Item{{ID: 5, Proto: "z:item:chest", Contents: []Item{{ID: 6}}}})
	for _, seed := range [][2][]byte{
		{good, plain}, {plain, good}, {acct, ban}, {lease, objs}, {u64c(42), {}},
		{{1, '{', '}'}, {2, 0, 0, 0, 0, 0, 0, 0, 9, '{', '}'}},
		{append([]byte{1}, `{"name":"a","items":[{"id":1,"contents":[{"id":2}]}]}`...), append([]byte{1}, `{"name":"b","items":[{"id":3}]}`...)},
	} {
		f.Add(seed[0], seed[1])
	}
	corrupt := func(t *testing.T, what string, err error) {
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: %v, want ErrCorrupt", what, err)
		}
	}
	f.Fuzz(func(t *testing.T, first, b []byte) {
		var a Account
		corrupt(t, "account", decode(b, &a))
		var bn Ban
		corrupt(t, "ban", decode(b, &bn))
		var l Lease
		corrupt(t, "lease", decode(b, &l))
		var p Placement
		corrupt(t, "placement", decode(b, &p))
		var items []Item
		corrupt(t, "room objects", decode(b, &items))
		_, err := metaU64(b)
		corrupt(t, "meta number", err)
		_ = storedEpoch(b)
		for _, strict := range []bool{false, true} {
			_, _ = recordAs[[]censusItem](strict)()(b)
			dec := charDecoder(strict)()
			_, _ = dec(first)
			got, err := dec(b)
			var c Character
			if decodeChar(b, &c) != nil || strict && !checkedRecord(b) {
				continue
			}
			if err != nil {
				t.Fatalf("strict %v: the census refused a character the store reads: %v", strict, err)
			}
			if got.name != c.Name || got.epoch != c.Epoch || !slices.Equal(got.ids, c.ItemIDs()) {
				t.Fatalf("strict %v: after %q the census read %+v; the store reads %s epoch %d ids %v",
					strict, first, got, c.Name, c.Epoch, c.ItemIDs())
			}
		}
	})
}
