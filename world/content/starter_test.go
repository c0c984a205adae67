package content_test

import (
	"os"
	"testing"

	"zonemud/world/content"
)

// TestStarterWorld_Loads loads the shipped areas/ folder: the first thing a
// new admin sees must be valid and big enough to play in.
func TestStarterWorld_Loads(t *testing.T) {
	set, err := content.Load(os.DirFS("../../areas"))
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
