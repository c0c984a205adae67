package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"zonemud/store"
)

// worldDB makes the database a config names, with one account in it, and
// a backup of it; it returns the database's path and the backup's.
func worldDB(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, "data", "zonemud.db")
	db, err := store.Open(path, store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(&store.Account{Name: name, Hash: "$argon2id$x"}); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(dir, name+".db")
	if _, err := db.BackupFile(backup); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path, backup
}

// zonemud restore refuses a damaged backup and changes nothing; puts a
// good one in place, keeping the database it replaces; and refuses while
// a server holds the database.
func TestMain_RestoreChecksAndKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := writeConfig(t, dir, "")
	_, old := worldDB(t, filepath.Join(dir, "before"), "Elder")
	live, _ := worldDB(t, dir, "Newer")
	liveBytes, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}

	good, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"cut in half", "is damaged"},
		{"empty", "empty"},
		{"not a database", "is damaged"},
	} {
		bad := filepath.Join(dir, "bad.db")
		var data []byte
		switch tc.name {
		case "cut in half":
			data = good[:len(good)/2]
		case "not a database":
			data = bytes.Repeat([]byte("zonemud"), 4096)
		}
		if err := os.WriteFile(bad, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if code := run([]string{"restore", "-config", cfg, bad}, &out, &errOut); code != 1 {
			t.Fatalf("%s: restore exited %d\n%s%s", tc.name, code, out.String(), errOut.String())
		}
		if !strings.Contains(errOut.String(), tc.want) || !strings.Contains(errOut.String(), "was not put in place") {
			t.Errorf("%s: the refusal does not say what is wrong and that nothing changed:\n%s", tc.name, errOut.String())
		}
		if now, _ := os.ReadFile(live); !bytes.Equal(now, liveBytes) {
			t.Fatalf("%s: a refused restore changed the database", tc.name)
		}
		if kept, _ := filepath.Glob(live + ".before-restore-*"); len(kept) != 0 {
			t.Fatalf("%s: a refused restore moved the database aside: %v", tc.name, kept)
		}
	}

	// A server holds the database: refused.
	db, err := store.Open(live, store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"restore", "-config", cfg, old}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "a server is running") {
		t.Fatalf("restore under a running server: exit %d\n%s", code, errOut.String())
	}
	db.Close()
	liveBytes, _ = os.ReadFile(live)

	out.Reset()
	errOut.Reset()
	if code := run([]string{"restore", "-config", cfg, old}, &out, &errOut); code != 0 {
		t.Fatalf("restore of a good backup: exit %d\n%s", code, errOut.String())
	}
	kept, _ := filepath.Glob(live + ".before-restore-*")
	if len(kept) != 1 || !strings.Contains(out.String(), kept[0]) {
		t.Fatalf("the replaced database was not kept, or not named: %v\n%s", kept, out.String())
	}
	if b, _ := os.ReadFile(kept[0]); !bytes.Equal(b, liveBytes) {
		t.Fatal("the kept database is not the one replaced")
	}
	db, err = store.Open(live, store.DefaultConfig())
	if err != nil {
		t.Fatalf("the restored database does not open: %v", err)
	}
	defer db.Close()
	if _, err := db.Account("Elder"); err != nil {
		t.Fatalf("the restored database lacks the backup's account: %v", err)
	}
	if _, err := db.Account("Newer"); err == nil {
		t.Fatal("the restored database still holds the replaced one's account")
	}
}
