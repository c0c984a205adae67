package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"zonemud/server/servertest"
)

// zonemud backup on a stopped server opens the database read-only: the
// file is byte for byte as it was, and the copy holds the world. A
// damaged file is refused, not copied, and left as it was.
func TestMain_BackupOfStoppedServerChangesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "")
	p := startProc(t, cfg, telnet)
	c := servertest.Dial(t, telnet)
	c.Create("Keeper", "keeper-pass")
	c.Quit()
	p.stop(t)

	path := filepath.Join(dir, "data", "zonemud.db")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "copy.db")
	res, err := exec.Command(binary(t), "backup", "-config", cfg, out).CombinedOutput()
	if err != nil {
		t.Fatalf("zonemud backup: %v\n%s", err, res)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("zonemud backup changed the database it copied")
	}
	checkBackup(t, out, "Keeper")

	// The same file cut short: refused, untouched, nothing written.
	cut := before[:len(before)/2]
	if err := os.WriteFile(path, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "copy2.db")
	res, err = exec.Command(binary(t), "backup", "-config", cfg, out2).CombinedOutput()
	if err == nil || !strings.Contains(string(res), "is damaged") || !strings.Contains(string(res), "nothing in it was changed") {
		t.Fatalf("backup of a damaged file: %v\n%s", err, res)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, cut) {
		t.Fatal("zonemud backup changed a damaged database")
	}
	if _, err := os.Stat(out2); err == nil {
		t.Fatal("a backup of a damaged file was written")
	}
}
