//go:build unix

package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// The fault the checks exist to prevent, made on purpose: bbolt maps a
// file cut short before its freelist page and reads that page, which lies
// past the end of the file inside the map. That is SIGBUS, which recover
// does not see and which ends the process; guard turns it into a refusal.
func TestGuard_FaultInTheMapIsARefusal(t *testing.T) {
	data, _ := fixture(t)
	m0, m1 := parseMeta(data), parseMeta(data[4096:])
	m := m0
	if m1.txid > m0.txid {
		m = m1
	}
	if m.freelist < 4 || m.freelist == noFreelist {
		t.Fatalf("freelist at page %d", m.freelist)
	}
	p := filepath.Join(t.TempDir(), "cut.db")
	if err := os.WriteFile(p, data[:m.freelist*4096], 0o600); err != nil {
		t.Fatal(err)
	}
	err := guard(p, func() error {
		db, err := bolt.Open(p, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, InitialMmapSize: 1 << 30})
		if err == nil {
			db.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "memory map faulted at address") {
		t.Fatalf("got %v, want the fault as a refusal", err)
	}
}
