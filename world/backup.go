package world

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"zonemud/internal/logev"
)

// Backups: an admin's in game, and those the world writes by itself every
// BackupEvery, keeping the newest BackupKeep of its own. Each saves every
// character first, then copies the database in one read transaction
// (store.DB.BackupFile), so a copy holds everyone as of that moment and
// players play on while it is written. Scheduled copies are named
// zonemud-auto-<time>.db and only they are rotated; an admin's
// zonemud-<time>.db stays until the admin removes it.

// Backup saves everyone, then writes a consistent copy of the database
// into the backup folder, on its own goroutine, and reports to done.
func (w *World) Backup(done func(path string, size int64, err error)) {
	_, ok := w.gr.Go(context.Background(), func(ctx context.Context) {
		done(w.writeBackup(ctx, "zonemud-"))
	}, "world", "backup")
	if !ok {
		done("", 0, ErrStopping)
	}
}

// backupDir is where backups go.
func (w *World) backupDir() string {
	if w.cfg.BackupDir != "" {
		return w.cfg.BackupDir
	}
	return filepath.Join(filepath.Dir(w.db.Path()), "backups")
}

// writeBackup saves everyone and writes a copy named prefix<time>.db.
func (w *World) writeBackup(ctx context.Context, prefix string) (string, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	err := w.SaveAll(ctx)
	cancel()
	if err != nil {
		return "", 0, err
	}
	dir := w.backupDir()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", 0, err
	}
	path := filepath.Join(dir, prefix+time.Now().UTC().Format(backupStamp)+".db")
	start := time.Now()
	n, err := w.db.BackupFile(path)
	if err != nil {
		return "", 0, err
	}
	w.log.Info("world: backup written", logev.ID(4601), "path", path, "bytes", n, "took", time.Since(start).Round(time.Millisecond))
	return path, n, nil
}

// scheduleBackups writes a backup every BackupEvery until ctx is done.
func (w *World) scheduleBackups(ctx context.Context) {
	every(ctx, w.cfg.BackupEvery, func(ctx context.Context) {
		if _, err := w.autoBackup(ctx); err != nil && ctx.Err() == nil {
			w.log.Error("world: a scheduled backup failed; the next is tried on time", logev.ID(4602), "err", err)
		}
	})
}

// backupStamp is the time in a backup's name: names sort by it.
const backupStamp = "20060102-150405.000"

// autoPrefix names the backups the world writes by itself.
const autoPrefix = "zonemud-auto-"

// rotateBackups removes the oldest scheduled backups past BackupKeep.
func (w *World) rotateBackups() {
	found, err := filepath.Glob(filepath.Join(w.backupDir(), autoPrefix+"*.db"))
	if err != nil {
		return
	}
	slices.Sort(found) // the names sort by the time they were written
	keep := max(w.cfg.BackupKeep, 1)
	for _, old := range found[:max(0, len(found)-keep)] {
		if err := os.Remove(old); err != nil {
			w.log.Warn("world: an old backup could not be removed", logev.ID(4604), "path", old, "err", err)
			continue
		}
		w.log.Info("world: an old backup was removed", logev.ID(4603), "path", old)
	}
}

// autoBackup writes a scheduled backup and rotates: what the schedule
// does each time.
func (w *World) autoBackup(ctx context.Context) (string, error) {
	path, _, err := w.writeBackup(ctx, autoPrefix)
	if err != nil {
		return "", fmt.Errorf("world: backup: %w", err)
	}
	w.rotateBackups()
	return path, nil
}

// CopyDatabase saves everyone and writes a consistent copy of the database to
// path: what a copyover's next binary opens for its pre-flight while this
// process holds the file.
func (w *World) CopyDatabase(ctx context.Context, path string) error {
	if err := w.SaveAll(ctx); err != nil {
		return err
	}
	_, err := w.db.BackupFile(path)
	return err
}
