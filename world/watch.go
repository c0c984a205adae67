package world

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"zonemud/internal/logev"
)

// The watcher asks for a reload when files under the areas folder change.
// It watches the folders, not the files: editors that save through a
// temporary file and a rename (vim, VS Code, emacs) replace the file, and
// a watch on the old file would see it vanish, while the folder sees the
// new one arrive under the name. Only *.toml and *.lua count; editors'
// swap, backup and lock files (.x.swp, x~, #x#, .#x, vim's 4913) do not.
//
// Changes are gathered until the folder has been quiet for watchQuiet, and
// at most watchMaxWait after the first, so a burst of saves is one reload
// and a file saved a thousand times a second still reloads every
// watchMaxWait. A reload reads the whole folder afresh, so a missed event
// or a watcher error costs nothing but a reload.

const (
	watchQuiet   = 100 * time.Millisecond
	watchMaxWait = time.Second
)

// watcher is the areas folder's watch, made in Start so that every edit
// after Start returns is seen.
type watcher struct {
	fw  *fsnotify.Watcher
	dir string
}

// startWatch sets up the watch of dir and every folder under it. It logs
// and returns nil if the system refuses (the reload command still works).
func (w *World) startWatch(dir string) *watcher {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.log.Warn("world: cannot watch the areas folder; builders apply edits with the reload command", logev.ID(4506), "dir", dir, "err", err)
		return nil
	}
	wt := &watcher{fw: fw, dir: dir}
	if err := wt.addTree(dir); err != nil {
		fw.Close()
		w.log.Warn("world: cannot watch the areas folder; builders apply edits with the reload command", logev.ID(4506), "dir", dir, "err", err)
		return nil
	}
	w.log.Info("world: watching the areas folder; saved edits are applied as they land", logev.ID(4507), "dir", dir)
	return wt
}

// addTree watches root and every folder under it that is not hidden.
// Symbolic links are not followed, so a link that loops is no trouble.
func (wt *watcher) addTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // a folder that went meanwhile
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return wt.fw.Add(p)
	})
}

// run gathers events and asks for reloads until ctx is done.
func (w *World) runWatch(ctx context.Context, wt *watcher) {
	defer wt.fw.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time // the first change not yet reloaded; zero if none
	changed := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		timer.Reset(max(0, min(watchQuiet, watchMaxWait-now.Sub(first))))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-wt.fw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !strings.HasPrefix(filepath.Base(ev.Name), ".") {
					_ = wt.addTree(ev.Name) // a new folder may already hold files
					changed()
					continue
				}
			}
			if relevant(ev) {
				changed()
			}
		case err, ok := <-wt.fw.Errors:
			if !ok {
				return
			}
			// An overflowing queue loses events; a reload reads
			// everything, so one reload makes up for them.
			w.log.Warn("world: watching the areas folder: events may be lost; reloading everything", logev.ID(4508), "err", err)
			changed()
		case <-timer.C:
			first = time.Time{}
			w.kickReload()
		}
	}
}

// relevant reports whether an event is a change to an area or script
// file, not an editor's scratch file or a change of permissions.
func relevant(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename) {
		return false
	}
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") {
		return false
	}
	return strings.HasSuffix(name, ".toml") || strings.HasSuffix(name, ".lua")
}
