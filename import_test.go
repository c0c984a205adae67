package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// circleFixture is the small Circle world the importer's tests write by
// hand: two zones, doors, a key, mobs, objects and resets.
var circleFixture = filepath.Join("content", "circle", "testdata", "world")

// importFixture imports the fixture into a new folder and returns it.
func importFixture(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "areas")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import", "circle", circleFixture, out}, &stdout, &stderr); code != 0 {
		t.Fatalf("import: exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"imported 2 zones, 9 rooms", "pass the check", "IMPORT.md"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("import said %q, want %q in it", stdout.String(), want)
		}
	}
	return out
}

// The import command writes areas that check passes, and refuses to
// write over a folder with files in it unless told to.
func TestImport_CheckPassesAndOutIsProtected(t *testing.T) {
	out := importFixture(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", out}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "2 zones, 9 rooms") {
		t.Fatalf("check of the import: %d %q %q", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "IMPORT.md")); err != nil {
		t.Errorf("no report: %v", err)
	}
	stderr.Reset()
	if code := run([]string{"import", "circle", circleFixture, out}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "not empty") {
		t.Errorf("import over an import: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"import", "circle", "-force", circleFixture, out}, &stdout, &stderr); code != 0 {
		t.Errorf("import -force: exit %d, stderr %q", code, stderr.String())
	}
	for _, args := range [][]string{
		{"import"}, {"import", "rom", circleFixture, out}, {"import", "circle", circleFixture},
		{"import", "circle", "/no/such/world", filepath.Join(t.TempDir(), "x")},
		{"import", "circle", "-start", "-5", circleFixture, filepath.Join(t.TempDir(), "x")},
		{"import", "circle", "-start", "77", circleFixture, filepath.Join(t.TempDir(), "x")},
		{"import", "circle", t.TempDir(), filepath.Join(t.TempDir(), "x")},
	} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code == 0 || stderr.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q; want a refusal", args, code, stderr.String())
		}
	}
}

// A server serves the imported world at once: a player starts in the
// Temple (3001), takes the key the zone reset left in the square, unlocks
// and opens the converted iron gate, walks through it into the other
// zone, where the guard's speech trigger and the tower's greeting run as
// Lua, kills the converted rat behind the storeroom door, takes the gold
// from the chest there, buys bread from the priest's converted shop and
// sells it back (the shop buys food, not keys), and dies in the death
// trap. Gossip works there, as it does in every Circle game.
func TestImport_ServedWorldCanBeWalked(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = importFixture(t)
	srv := servertest.Start(t, cfg)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Expect("name")
	p.Send("Wanderer")
	p.Expect("(y/n)")
	p.Send("y")
	p.Expect("password")
	p.Send("lantern-light")
	p.Expect("again")
	p.Send("lantern-light")
	p.Expect("The Temple of the Lantern")
	p.Expect("> ")
	// Circle's channels are in its code, not its world files: the import
	// brings the game's own.
	p.DoExpect("gossip hello from the temple", "hello from the temple")
	p.DoExpect("north", "Village Square")
	p.DoExpect("east", "closed")
	p.DoExpect("get key", "iron key")
	p.DoExpect("unlock gate", "unlock")
	p.DoExpect("open gate", "open")
	p.DoExpect("east", "The Keep Gate")
	p.DoExpect("east", "The Courtyard")
	p.DoExpect("say hello", "Move along.")
	p.DoExpect("northeast", "The wind howls through the arrow slits.")
	p.DoExpect("southwest", "The Courtyard")
	p.DoExpect("west", "The Keep Gate")
	p.DoExpect("west", "Village Square")
	p.DoExpect("west", "A Narrow Lane")
	p.DoExpect("open door", "open")
	p.DoExpect("north", "The Storeroom")
	p.Send("kill rat")
	p.ExpectWithin("is DEAD!", 25*2500*time.Millisecond)
	p.Expect("> ")
	// The chest the P resets filled holds the gold that pays the priest,
	// whose converted shop (shp/30.shp) sells the bread it makes.
	p.DoExpect("open chest", "open")
	p.DoExpect("get coins chest", "25 gold")
	for _, dir := range []string{"south", "east"} {
		p.Do(dir)
	}
	p.DoExpect("south", "The Temple of the Lantern")
	p.DoExpect("list", "a loaf of bread")
	p.DoExpect("buy bread", "You buy a loaf of bread for 3 gold.")
	p.DoExpect("inventory", "a loaf of bread")
	p.DoExpect("sell bread", "1 gold")
	p.DoExpect("sell key", "does not buy that kind of thing")
	for _, dir := range []string{"north", "east", "east"} {
		p.Do(dir)
	}
	p.DoExpect("down", "You have walked into a death trap.")
	p.Expect("The Temple of the Lantern") // the slain wake at the recall room
}
