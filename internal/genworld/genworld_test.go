package genworld

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"zonemud/content"
)

func starter(t *testing.T) Options {
	t.Helper()
	game, err := os.ReadFile("../../areas/game.toml")
	if err != nil {
		t.Fatal(err)
	}
	help, err := os.ReadFile("../../areas/help.toml")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Rooms: 1234, RoomsPerZone: 100, Seed: 7, Game: game, Help: help}
}

// The world loads without a problem, has the rooms asked for, starts
// players in its first room, and every exit has its way back.
func TestGenerate_LoadsAndEveryExitLeadsBack(t *testing.T) {
	o := starter(t)
	dir := filepath.Join(t.TempDir(), "areas")
	st, err := Generate(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rooms != o.Rooms || st.Zones != 13 {
		t.Fatalf("wrote %d rooms in %d zones, want %d in 13", st.Rooms, st.Zones, o.Rooms)
	}
	set, err := content.Load(os.DirFS(dir))
	if err != nil {
		t.Fatalf("the generated world does not load: %v", err)
	}
	if len(set.Rooms) != o.Rooms || len(set.Zones) != 13 {
		t.Fatalf("loaded %d rooms in %d zones", len(set.Rooms), len(set.Zones))
	}
	if set.Game.StartRoom != st.StartRoom || set.Rooms[st.StartRoom] == nil {
		t.Fatalf("start room %q, generated %q", set.Game.StartRoom, st.StartRoom)
	}
	exits := 0
	for ref, r := range set.Rooms {
		for d, ex := range r.Exits {
			if ex == nil {
				continue
			}
			exits++
			back := set.Rooms[ex.To].Exits[content.Dir(d).Reverse()]
			if back == nil || back.To != ref {
				t.Fatalf("%s %s leads to %s, which has no way back", ref, content.Dir(d), ex.To)
			}
		}
	}
	if exits != st.Exits {
		t.Errorf("loaded %d exits, wrote %d", exits, st.Exits)
	}
	// Every room has its grid exits and, but for at most one, its three
	// long ones: more than three ways out on average.
	if exits < 6*o.Rooms {
		t.Errorf("%d exits for %d rooms: the world is too thinly joined", exits, o.Rooms)
	}
}

func TestGenerate_SameSeedSameWorld(t *testing.T) {
	o := starter(t)
	o.Rooms = 250
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, err := Generate(a, o); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, o); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(a)
	for _, e := range ents {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, e.Name()))
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two runs with one seed", e.Name())
		}
	}
}

func TestGenerate_Refuses(t *testing.T) {
	o := starter(t)
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "emberfall.toml"), []byte("x"), 0o644)
	if _, err := Generate(full, o); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a folder with files in it: err = %v, want a refusal", err)
	}
	bad := o
	bad.Rooms = 0
	if _, err := Generate(filepath.Join(t.TempDir(), "x"), bad); err == nil {
		t.Error("0 rooms accepted")
	}
	noGame := o
	noGame.Game = []byte("[world]\nname = \"x\"\n")
	if _, err := Generate(filepath.Join(t.TempDir(), "y"), noGame); err == nil {
		t.Error("a game.toml without a start room accepted")
	}
}

// A tree of fanout 9 and depth 4 is 81 zones of 91 rooms under a hub of
// ten; TreePath walks from the root to a distinct leaf for each index,
// every room but the root has up to its parent, and a leaf has no other
// exit.
func TestGenerate_TreeLoadsAndEveryPathEndsAtItsLeaf(t *testing.T) {
	o := starter(t)
	o.Tree = TreeOptions{Fanout: 9, Depth: 4}
	dir := filepath.Join(t.TempDir(), "areas")
	st, err := Generate(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Zones != 82 || st.Rooms != 1+9+81+729+6561 {
		t.Fatalf("wrote %d rooms in %d zones, want 7381 in 82", st.Rooms, st.Zones)
	}
	set, err := content.Load(os.DirFS(dir))
	if err != nil {
		t.Fatalf("the tree does not load: %v", err)
	}
	sizes := map[int]int{}
	for id := range set.Zones {
		n := 0
		for _, r := range set.Rooms {
			if r.Zone == id {
				n++
			}
		}
		sizes[n]++
	}
	if sizes[91] != 81 || sizes[10] != 1 {
		t.Fatalf("zone sizes %v, want 81 of 91 and one of 10", sizes)
	}
	dirByName := func(s string) content.Dir {
		d, ok := content.ParseDir(s)
		if !ok {
			t.Fatalf("no direction %q", s)
		}
		return d
	}
	leaves := map[string]bool{}
	for k := range 6561 {
		at := st.StartRoom
		for _, step := range o.Tree.TreePath(k) {
			ex := set.Rooms[at].Exits[dirByName(step)]
			if ex == nil {
				t.Fatalf("leaf %d: no %s from %s", k, step, at)
			}
			up := set.Rooms[ex.To].Exits[dirByName("up")]
			if up == nil || up.To != at {
				t.Fatalf("leaf %d: %s has no up back to %s", k, ex.To, at)
			}
			at = ex.To
		}
		for d, ex := range set.Rooms[at].Exits {
			if ex != nil && content.Dir(d).String() != "up" {
				t.Fatalf("leaf %s has an exit %s", at, content.Dir(d))
			}
		}
		leaves[at] = true
	}
	if len(leaves) != 6561 {
		t.Fatalf("6561 paths reach %d leaves", len(leaves))
	}
	if set.Rooms[st.StartRoom].Exits[dirByName("up")] != nil {
		t.Fatal("the root has a way up")
	}
}

// A tree ignores Rooms and RoomsPerZone, so a tree asked for with them
// zero is written; without a game.toml it is refused like a grid.
func TestGenerate_TreeNeedsNoRoomCountButAGame(t *testing.T) {
	o := starter(t)
	o.Rooms, o.RoomsPerZone = 0, 0
	o.Tree = TreeOptions{Fanout: 2, Depth: 3}
	st, err := Generate(filepath.Join(t.TempDir(), "t"), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rooms != 1+2+4+8 || st.Zones != 1+4 {
		t.Errorf("wrote %d rooms in %d zones, want 15 in 5", st.Rooms, st.Zones)
	}
	o.Game = nil
	if _, err := Generate(filepath.Join(t.TempDir(), "u"), o); err == nil {
		t.Error("a tree without a game.toml accepted")
	}
}

func TestParseTree(t *testing.T) {
	if got, err := ParseTree("9x4"); err != nil || got != (TreeOptions{Fanout: 9, Depth: 4}) {
		t.Errorf("9x4: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "9x4x", "9x 4", "10x4", "0x4", "9x0", "9x7", "9", "x4", "nine", "-1x4"} {
		if got, err := ParseTree(bad); err == nil {
			t.Errorf("%q accepted as %+v", bad, got)
		}
	}
}
