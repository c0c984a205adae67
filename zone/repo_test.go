package zone_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"zonemud/script"
)

// The starter world the zone's tests load, read from the repository
// itself: the zone's tests start no server, so they need none of the
// server's test harness (imports_test.go holds them to that).

// repoRoot is the repository's root folder.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), ".."))
}

// copyAreas copies the repository's areas into a temporary folder, passing
// each file through edit, and returns the folder.
func copyAreas(t testing.TB, edit func(name string, data []byte) []byte) string {
	t.Helper()
	src := filepath.Join(repoRoot(), "areas")
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

// quietAreas is the starter world with no wandering mobs.
func quietAreas(t *testing.T) string {
	return copyAreas(t, func(name string, data []byte) []byte {
		return bytes.ReplaceAll(data, []byte(`flags = ["wander"]`), []byte(`flags = []`))
	})
}

// testLua is the script limits the server's tests run with: the counted
// budgets alone, with no wall-clock guard to make an outcome depend on the
// machine.
func testLua() script.Config {
	cfg := script.DefaultConfig()
	cfg.DeadlineMs = 0
	return cfg
}
