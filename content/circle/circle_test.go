package circle

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"zonemud/content"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// starterGame is the repository's game.toml, which an import starts from.
func starterGame(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "areas", "game.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convertDir reads and converts a source folder.
func convertDir(t testing.TB, dir string, o Options) *Result {
	t.Helper()
	w, err := Read(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if o.Game == nil {
		o.Game = starterGame(t)
	}
	res, err := Convert(w, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// load checks a conversion with the loader the server uses.
func load(t testing.TB, res *Result) *content.Set {
	t.Helper()
	fsys := fstest.MapFS{}
	for n, b := range res.Files {
		fsys[n] = &fstest.MapFile{Data: b}
	}
	set, err := content.Load(fsys)
	if err != nil {
		var ps content.Problems
		if errAs(err, &ps) {
			for _, p := range ps {
				t.Errorf("%s", p)
			}
		}
		t.Fatalf("the imported world does not load: %v", err)
	}
	return set
}

// The fixture world imports into areas the loader takes, and the output
// is what the golden files hold.
func TestImport_Golden(t *testing.T) {
	res := convertDir(t, filepath.Join("testdata", "world"), Options{})
	load(t, res)
	dir := filepath.Join("testdata", "golden")
	if *update {
		os.RemoveAll(dir)
		if err := Write(dir, res, false); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "game.toml")) // the starter's, with two lines changed
	}
	var names []string
	for n := range res.Files {
		if n != "game.toml" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range ents {
		have = append(have, e.Name())
	}
	if !slices.Equal(names, have) {
		t.Errorf("files written %v, golden files %v (go test -update rewrites them)", names, have)
	}
	for _, n := range names {
		want, _ := os.ReadFile(filepath.Join(dir, n))
		if !bytes.Equal(res.Files[n], want) {
			t.Errorf("%s differs from testdata/golden/%s (go test -update rewrites it):\n%s", n, n, firstDiff(string(res.Files[n]), string(want)))
		}
	}
	if !strings.Contains(string(res.Files["game.toml"]), `start_room = "the_lantern_village_30:room:r3001"`) {
		t.Errorf("game.toml does not start in the temple, 3001")
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n got: " + a + "\nwant: " + b
		}
	}
	return ""
}
