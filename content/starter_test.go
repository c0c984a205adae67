package content_test

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"zonemud/content"
)

// TestStarterWorld_Loads loads the shipped areas/ folder: the first thing a
// new admin sees must be valid and big enough to play in.
func TestStarterWorld_Loads(t *testing.T) {
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatalf("starter world: %v", err)
	}
	if n := len(set.Zones); n < 3 {
		t.Errorf("zones: got %d, want at least 3", n)
	}
	if n := len(set.Rooms); n < 40 {
		t.Errorf("rooms: got %d, want at least 40", n)
	}
	if len(set.Mobs) == 0 || len(set.Items) == 0 {
		t.Errorf("mobs %d, items %d: want some of each", len(set.Mobs), len(set.Items))
	}
	instanceable, entrance := 0, 0
	for _, z := range set.Zones {
		if z.Instanceable {
			instanceable++
		}
	}
	for _, r := range set.Rooms {
		for _, e := range r.Entrances {
			if e != "" {
				entrance++
			}
		}
	}
	if instanceable == 0 || entrance == 0 {
		t.Errorf("instanceable zones %d, declared entrances %d: want at least one of each", instanceable, entrance)
	}
	if set.Game.StartRoom == "" {
		t.Error("game.toml names no start room")
	}
	if len(set.Help) == 0 {
		t.Error("help.toml has no topics")
	}
}

// One syntax error in a zone file is reported once: the other files'
// references into that zone are not reported as knock-on "no zone"
// problems.
func TestStarterWorld_SyntaxErrorReportedOnce(t *testing.T) {
	fsys := fstest.MapFS{}
	root := os.DirFS("../areas")
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(fsys["emberfall.toml"].Data)
	fsys["emberfall.toml"].Data = []byte(strings.Replace(src, "exits = {", "exits = {{", 1))
	_, err = content.Load(fsys)
	var ps content.Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0].File != "emberfall.toml" || ps[0].Line != strings.Count(src[:strings.Index(src, "exits = {")], "\n")+1 {
		t.Fatalf("one syntax error in emberfall.toml: got %v, want that one problem alone", err)
	}
}
