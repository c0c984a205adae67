package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"zonemud/server/config"
	"zonemud/store"
)

// restore puts a backup in place of the database, with the server
// stopped: the backup must pass every check the store makes of a file it
// opens, the database it replaces is kept beside it, and nothing is
// changed if anything is wrong.
func restore(cfg *config.Config, src string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "zonemud: restore: "+format+"\n", a...)
		return 1
	}
	path := filepath.Join(cfg.Server.DataDir, cfg.Store.File)
	if abs, err := filepath.Abs(src); err == nil {
		if live, err := filepath.Abs(path); err == nil && abs == live {
			return fail("%s is the database itself; name a backup", src)
		}
	}
	scfg := cfg.Store
	scfg.CheckOnOpen = true
	db, err := store.OpenReadOnly(src, scfg)
	if err != nil {
		return fail("%v\nThe backup was not put in place; %s is as it was.", err, path)
	}
	db.Close()
	// A running server holds the database's lock: the quick checks of a
	// read-only open find it held.
	if _, err := os.Stat(path); err == nil {
		quick := cfg.Store
		quick.CheckOnOpen = false
		live, err := store.OpenReadOnly(path, quick)
		if errors.Is(err, store.ErrLocked) {
			return fail("a server is running on %s; stop it first. Nothing was changed.", cfg.Server.DataDir)
		}
		if live != nil {
			live.Close()
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fail("%v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fail("%v", err)
	}
	tmp, err := copyBeside(src, path)
	if err != nil {
		return fail("%v. Nothing was changed.", err)
	}
	defer os.Remove(tmp)
	kept := ""
	if _, err := os.Stat(path); err == nil {
		kept = path + ".before-restore-" + time.Now().UTC().Format("20060102-150405")
		if err := os.Rename(path, kept); err != nil {
			return fail("cannot move the database aside: %v. Nothing was changed.", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		if kept != "" {
			_ = os.Rename(kept, path)
		}
		return fail("cannot put the backup in place: %v. Nothing was changed.", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	fmt.Fprintf(stdout, "restored %s to %s\n", src, path)
	if kept != "" {
		fmt.Fprintf(stdout, "the database it replaced is kept as %s\n", kept)
	}
	return 0
}

// copyBeside copies src to a new temporary file in dst's folder, synced,
// and returns its name.
func copyBeside(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(dst), ".restore-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(0o600)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", fmt.Errorf("cannot copy %s: %w", src, err)
	}
	return out.Name(), nil
}
