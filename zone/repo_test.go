package zone_test

import (
	"bytes"
	"testing"

	"zonemud/content/contenttest"
	"zonemud/script"
)

// The starter world the zone's tests load, read from the repository
// itself: the zone's tests start no server, so they need none of the
// server's test harness (imports_test.go holds them to that).

// repoRoot is the repository's root folder.
func repoRoot() string { return contenttest.Root() }

// copyAreas copies the repository's areas into a temporary folder, passing
// each file through edit, and returns the folder.
func copyAreas(t testing.TB, edit func(name string, data []byte) []byte) string {
	t.Helper()
	return contenttest.CopyAreas(t, edit)
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
