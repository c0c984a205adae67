package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bans are kept, replaced by kind and target, lifted, and survive a
// reopen; a schema 4 file (before bans) gains the bucket at open.
func TestStore_Bans(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v4.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketBans); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, u64c(4))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("schema 4 file: %v", err)
	}
	if !strings.Contains(strings.Join(db.Migrations(), ";"), "migrated from schema 4 to 5") {
		t.Fatalf("migrations %q", db.Migrations())
	}
	now := time.Now().Unix()
	for _, b := range []Ban{
		{Kind: BanName, Target: "bob", Reason: "spam", By: "Ada", Created: now},
		{Kind: BanAddress, Target: "203.0.113.0/24", Reason: "bots", By: "Ada", Created: now, Expires: now + 3600},
		{Kind: BanName, Target: "bob", Reason: "spam again", By: "Ada", Created: now},
	} {
		if err := db.PutBan(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutBan(Ban{Kind: "ip", Target: "x"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a ban of no known kind: %v", err)
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bans, err := db.Bans()
	if err != nil || len(bans) != 2 || bans[1].Reason != "spam again" || bans[0].Expires != now+3600 {
		t.Fatalf("bans after a reopen: %+v, %v", bans, err)
	}
	if err := db.DeleteBan("name:bob"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteBan("name:bob"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lifting a ban twice: %v", err)
	}
	if _, err := db.Census(); err != nil {
		t.Fatal(err)
	}
	// A damaged ban is named by the census.
	_ = db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBans).Put([]byte("name:eve"), []byte{recordChecked, 0, 0, 0, 0, '{'})
	})
	if _, err := db.Census(); err == nil || !strings.Contains(err.Error(), `ban "name:eve"`) {
		t.Fatalf("census: %v, want it to name the damaged ban", err)
	}
	_ = db.DeleteBan("name:eve")
}
