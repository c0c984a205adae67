package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// The lease fence: a batch written under a zone's lease generation commits
// only while that generation is the newest the store has seen and is not
// released; a refused batch writes nothing, and the record survives a
// restart, so a zombie writer never finds its generation current again.
func TestStore_LeaseFence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lease.db")
	db, err := Open(path, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	save := func(gen uint64, room string) error {
		t.Helper()
		return commitOne(t, db, &Batch{Zone: "town", Gen: gen, Chars: []*Character{char("Aria", 1, "town", room)}})
	}
	fence := func(op FenceOp, gen uint64) error {
		t.Helper()
		return commitOne(t, db, &Batch{Zone: "town", Gen: gen, Fence: op})
	}
	room := func() string {
		c, err := db.Character("Aria")
		if err != nil {
			t.Fatal(err)
		}
		return c.Place.Room
	}
	if err := fence(FenceAdopt, 10); err != nil {
		t.Fatal(err)
	}
	if err := save(10, "town:room:a"); err != nil {
		t.Fatalf("the current generation was refused: %v", err)
	}
	// Takeover: a newer generation is adopted; the old one is fenced.
	if err := fence(FenceAdopt, 11); err != nil {
		t.Fatal(err)
	}
	err = save(10, "town:room:zombie")
	var be *BatchError
	if !errors.Is(err, ErrFenced) || !errors.As(err, &be) || !be.Fenced || be.Gen != 10 {
		t.Fatalf("a superseded generation's save: %v, want a fenced BatchError for generation 10", err)
	}
	if got := room(); got != "town:room:a" {
		t.Fatalf("a fenced batch was written: room %s", got)
	}
	if err := fence(FenceAdopt, 10); !errors.Is(err, ErrFenced) {
		t.Fatalf("adopting an older generation: %v, want ErrFenced", err)
	}
	if err := save(0, "town:room:unleased"); !errors.Is(err, ErrFenced) {
		t.Fatalf("an unleased save to a leased zone: %v, want ErrFenced", err)
	}
	if err := save(11, "town:room:b"); err != nil {
		t.Fatal(err)
	}
	// Released: even the last generation may not write any more.
	if err := fence(FenceRelease, 11); err != nil {
		t.Fatalf("release refused: %v", err)
	}
	if err := save(11, "town:room:late"); !errors.Is(err, ErrFenced) {
		t.Fatalf("a save after release: %v, want ErrFenced", err)
	}
	// A release of an older generation changes nothing; it never fails.
	if err := fence(FenceRelease, 3); err != nil {
		t.Fatal(err)
	}
	// A newer generation writing first adopts itself.
	if err := save(12, "town:room:c"); err != nil {
		t.Fatal(err)
	}
	if got := room(); got != "town:room:c" {
		t.Fatalf("room %s after the newest generation saved", got)
	}
	if db.Refused() != 4 {
		t.Fatalf("refused count %d, want 4", db.Refused())
	}
	db.Close()

	db, err = Open(path, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if l, err := db.ZoneLease("town"); err != nil || l != (Lease{Gen: 12}) {
		t.Fatalf("lease record after a restart: %+v, %v; want generation 12, live", l, err)
	}
	if err := save(11, "town:room:zombie"); !errors.Is(err, ErrFenced) {
		t.Fatalf("after a restart an old generation's save: %v, want ErrFenced", err)
	}
	if _, err := db.ZoneLease("nowhere"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lease of a zone never leased: %v, want ErrNotFound", err)
	}
	// A zone that never held a lease (an instance) saves unfenced.
	if err := commitOne(t, db, &Batch{Zone: "crypt#00", Chars: []*Character{char("Bren", 1, "", "")}}); err != nil {
		t.Fatal(err)
	}
}

// A schema 2 file, made before the leases bucket existed, is migrated at
// open: the bucket is made and the zone fence works.
func TestOpen_MigratesSchema2AddsLeases(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v2.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketLeases); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64c(2))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("schema 2 file: %v", err)
	}
	defer db.Close()
	if !strings.Contains(strings.Join(db.Migrations(), ";"), "migrated from schema 2 to 3") {
		t.Fatalf("migrations %q, want the one to schema 3", db.Migrations())
	}
	if err := commitOne(t, db, &Batch{Zone: "town", Gen: 4, Fence: FenceAdopt}); err != nil {
		t.Fatal(err)
	}
	if l, err := db.ZoneLease("town"); err != nil || l.Gen != 4 {
		t.Fatalf("lease after the migration: %+v, %v", l, err)
	}
}

// A damaged lease record is named by the census, and fences its zone
// until an admin looks: nothing is written under a lease the store cannot
// read.
func TestStore_DamagedLeaseFencesAndIsReported(t *testing.T) {
	db := openTest(t)
	if err := commitOne(t, db, &Batch{Zone: "town", Gen: 4, Fence: FenceAdopt}); err != nil {
		t.Fatal(err)
	}
	_ = db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketLeases).Put([]byte("town"), []byte{recordChecked, 0, 0, 0, 0, '{'})
	})
	if err := commitOne(t, db, &Batch{Zone: "town", Gen: 4, Chars: []*Character{char("Aria", 1, "town", "town:room:a")}}); !errors.Is(err, ErrFenced) {
		t.Fatalf("a save under a damaged lease record: %v, want ErrFenced", err)
	}
	if _, err := db.Census(); err == nil || !strings.Contains(err.Error(), `lease of zone "town"`) {
		t.Fatalf("census: %v, want it to name the damaged lease", err)
	}
	// Put it right, so the cleanup check passes.
	if err := commitOne(t, db, &Batch{Zone: "town", Gen: 5, Fence: FenceRelease}); err != nil {
		t.Fatal(err)
	}
}
