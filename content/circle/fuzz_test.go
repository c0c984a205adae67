package circle

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"zonemud/content"
)

// fuzzKinds are the file kinds a fuzz input is read as, by its first byte.
var fuzzKinds = []string{"wld", "mob", "obj", "zon", "trg", "shp", "qst"}

// FuzzRead feeds arbitrary bytes to the reader as one file of each kind
// beside a room that reads, then converts what was read. It must never
// panic or hang, and whatever it converts must load: an import either
// writes areas the server takes or refuses with a reason.
func FuzzRead(f *testing.F) {
	for _, k := range fuzzKinds {
		ents, _ := filepath.Glob(filepath.Join("testdata", "world", k, "*."+k))
		for _, e := range ents {
			if b, err := os.ReadFile(e); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("#1\nx~\n~\n1 abc 0 0 0 0\nD9\n~\n~\n1 -1 1\nE\n~\n~\nT 5\nS\n$\n"))
	game, err := os.ReadFile(filepath.Join("..", "..", "areas", "game.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"0.wld": &fstest.MapFile{Data: []byte(goodRoom)}}
		for _, k := range fuzzKinds {
			fsys["1."+k] = &fstest.MapFile{Data: data}
		}
		w, err := Read(fsys)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		res, err := Convert(w, Options{Game: game})
		if err != nil {
			return
		}
		out := fstest.MapFS{}
		for n, b := range res.Files {
			out[n] = &fstest.MapFile{Data: b}
		}
		if _, err := content.Load(out); err != nil {
			t.Fatalf("the conversion does not load: %v\n%s", err, res.Files)
		}
	})
}
