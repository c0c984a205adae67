// Package contenttest finds the repository's own area files for tests:
// the root of the repository and a copy of its areas a test may edit.
// It needs nothing of the game, so the zone's tests and the whole-server
// harness (server/servertest) read the starter world the same way.
package contenttest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the repository's root folder, found from this file's path.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CopyAreas copies the repository's areas into a temporary folder,
// passing each file through edit (which may return it unchanged), and
// returns the folder: for tests that need, say, a short reset time.
func CopyAreas(t testing.TB, edit func(name string, data []byte) []byte) string {
	t.Helper()
	src := filepath.Join(Root(), "areas")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, edit(rel, data), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
