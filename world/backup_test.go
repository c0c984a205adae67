package world

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"zonemud/store"
)

// Scheduled backups keep the newest backup_keep of their own and never
// touch an admin's; each is a database that opens and passes its checks.
func TestBackups_ScheduledRotateAndKeepAdmins(t *testing.T) {
	w := testWorld(t)
	w.cfg.BackupDir = t.TempDir()
	w.cfg.BackupKeep = 2
	w.Start()
	t.Cleanup(func() { _ = w.Shutdown(t.Context()) })
	done := make(chan string, 1)
	w.Backup(func(path string, _ int64, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- path
	})
	admins := <-done
	var written []string
	for range 4 {
		p, err := w.autoBackup(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, p)
		time.Sleep(2 * time.Millisecond) // names carry milliseconds: two in one would be one file
	}
	left, _ := filepath.Glob(filepath.Join(w.cfg.BackupDir, "*.db"))
	slices.Sort(left)
	want := append([]string{admins}, written[2:]...)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Fatalf("backups left: %v\nwant the admin's and the newest two: %v", left, want)
	}
	for _, p := range left {
		db, err := store.OpenReadOnly(p, store.Config{CheckOnOpen: true})
		if err != nil {
			t.Fatalf("backup %s: %v", p, err)
		}
		db.Close()
	}
}

// With backup_every set, the world writes backups by itself.
func TestBackups_ScheduleWrites(t *testing.T) {
	w := testWorld(t)
	w.cfg.BackupDir = t.TempDir()
	w.cfg.BackupEvery, w.cfg.BackupKeep = 20*time.Millisecond, 3
	w.Start()
	t.Cleanup(func() { _ = w.Shutdown(t.Context()) })
	deadline := time.Now().Add(30 * time.Second)
	for {
		found, _ := filepath.Glob(filepath.Join(w.cfg.BackupDir, autoPrefix+"*.db"))
		if len(found) > 0 && !strings.Contains(found[0], ".tmp") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no scheduled backup was written")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
