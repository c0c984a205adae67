package store

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// An account's roles are kept with it, and a schema 3 file (from before
// roles) opens, is migrated, and keeps what its accounts held.
func TestStore_RolesKeptAndSchema3Migrated(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v3.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(&Account{Name: "Bob", Hash: "$argon2id$x", Keys: []string{"ssh-ed25519 AAAA"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, u64c(3)) }); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatalf("schema 3 file: %v", err)
	}
	defer db.Close()
	if !strings.Contains(strings.Join(db.Migrations(), ";"), "migrated from schema 3 to 4") {
		t.Fatalf("migrations %q, want the one to schema 4", db.Migrations())
	}
	err = db.UpdateAccount("bob", func(a *Account) error {
		a.Builder, a.BuildZones = true, []string{"ashridge"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Account("Bob")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Builder || got.Admin || !slices.Equal(got.BuildZones, []string{"ashridge"}) || len(got.Keys) != 1 {
		t.Fatalf("account after a grant: %+v", got)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Census(); err != nil {
		t.Fatal(err)
	}
}
