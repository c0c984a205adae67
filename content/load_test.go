package content

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad_Minimal(t *testing.T) {
	set, err := Load(minimalWorld())
	if err != nil {
		t.Fatal(err)
	}
	sq := set.Rooms["town:room:square"]
	if sq == nil || sq.Exits[North] == nil || sq.Exits[North].To != "town:room:road" {
		t.Fatalf("square: %+v", sq)
	}
	if set.Zones["town"].StartRoom != "town:room:square" || set.Game.StartRoom != "town:room:square" {
		t.Fatalf("start rooms: zone %q, game %q", set.Zones["town"].StartRoom, set.Game.StartRoom)
	}
	if sq.Num == 0 || sq.Num == set.Rooms["town:room:road"].Num || set.RoomByNum(sq.Num) != sq {
		t.Fatalf("room numbers: %d, %d", sq.Num, set.Rooms["town:room:road"].Num)
	}
}

// Every problem in a set is reported, each with its file, line and key
// path, not just the first.
func TestLoad_ReportsEveryProblemWithFileAndKey(t *testing.T) {
	fsys := minimalWorld()
	fsys["forest.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Forest"
reset_secs = -5
start_room = "nowhere"

[rooms.glade]
name = "A Glade"
description = "Green."
flags = ["sparkly"]
exits = { north = "glaed", sideways = "glade", east = "town:room:sqare", west = "mars:room:x" }
[rooms.glade.doors.south]
keywords = ["door"]

[rooms.hut]
name = ""
description = "A hut."
colour = "red"

[mobs.wolf]
short = "a wolf"
long = "A wolf is here."
attacks = 99

[items.sword]
keywords = ["sword"]
short = "a sword"
long = "A sword lies here."
type = "weapon"
wear = "tail"

[[resets]]
mob = "wolf"
item = "sword"
room = "glade"

[[resets]]
mob = "bear"
room = "glade"
`)}
	_, err := Load(fsys)
	assertProblems(t, err,
		"forest.toml:4: zone.reset_secs",
		"forest.toml:5: zone.start_room: no room forest:room:nowhere",
		"forest.toml:10: rooms.glade.flags: unknown flag",
		"forest.toml:11: rooms.glade.exits.north: no room forest:room:glaed (did you mean forest:room:glade?)",
		"forest.toml:11: rooms.glade.exits.sideways: \"sideways\" is not a direction",
		"forest.toml:11: rooms.glade.exits.east: no room town:room:sqare (did you mean town:room:square?)",
		"forest.toml:11: rooms.glade.exits.west: no zone \"mars\"",
		"forest.toml:12: rooms.glade.doors.south: a door needs an exit south",
		"forest.toml:16: rooms.hut.name: must not be empty",
		"forest.toml:18: rooms.hut.colour: unknown key",
		"forest.toml:20: mobs.wolf.keywords: needs at least one keyword",
		"forest.toml:23: mobs.wolf.attacks",
		"forest.toml:25: items.sword.damage: a weapon needs damage dice",
		"forest.toml:30: items.sword.wear: no slot \"tail\"",
		"forest.toml:32: resets[0]: a reset names exactly one",
		"forest.toml:38: resets[1].mob: no mob forest:mob:bear",
	)
}

// A key the schema lacks, one or two edits from one it has at the same
// place, is told with the key meant, in a zone file and in the game file.
func TestLoad_MisspelledKeySuggestsTheKeyMeant(t *testing.T) {
	fsys := minimalWorld()
	fsys["forest.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Forest"
rest_secs = 300
[rooms.glade]
name = "A Glade"
descripton = "Green."
exits = { south = "town:room:square" }
[rooms.glade.doors.south]
keywords = ["gate"]
closd = true
[mobs.wolf]
keywords = ["wolf"]
short = "a wolf"
long = "A wolf is here."
levle = 3
[[resets]]
mob = "wolf"
room = "glade"
maxx = 2
`)}
	fsys["game.toml"].Data = append(fsys["game.toml"].Data, []byte("[[slots]]\nnmae = \"head\"\n")...)
	_, err := Load(fsys)
	assertProblems(t, err,
		"forest.toml:4: zone.rest_secs: unknown key (did you mean reset_secs?)",
		"forest.toml:7: rooms.glade.descripton: unknown key (did you mean description?)",
		"forest.toml:11: rooms.glade.doors.south.closd: unknown key (did you mean closed?)",
		"forest.toml:16: mobs.wolf.levle: unknown key (did you mean level?)",
		"forest.toml: resets.maxx: unknown key (did you mean max?)",
		"game.toml: slots.nmae: unknown key (did you mean name?)",
	)
	if strings.Contains(err.Error(), "colour: unknown key (did") {
		t.Errorf("a key nothing is near got a suggestion: %v", err)
	}
}

// Two rooms of a zone on one map square are refused, naming both.
func TestLoad_TwoRoomsOnOneSquareRefused(t *testing.T) {
	fsys := minimalWorld()
	fsys["forest.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Forest"
[rooms.glade]
name = "A Glade"
description = "Green."
coords = [0, 0, 0]
exits = { north = "path" }
[rooms.path]
name = "A Path"
description = "Brown."
coords = [0, 0, 0]
exits = { south = "glade" }
[rooms.brook]
name = "A Brook"
description = "Wet."
coords = [0, 0, 1]
`)}
	_, err := Load(fsys)
	assertProblems(t, err, "forest.toml:12: rooms.path.coords: [0, 0, 0] is the map square of rooms.glade too (line 4)")
	if strings.Contains(err.Error(), "rooms.brook") {
		t.Errorf("a room on a square of its own was refused: %v", err)
	}
}

func TestLoad_DuplicateZone(t *testing.T) {
	fsys := minimalWorld()
	fsys["town2.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
id = "town"
name = "Town again"
[rooms.square]
name = "Another square"
description = "x"
`)}
	_, err := Load(fsys)
	assertProblems(t, err, `town2.toml:3: zone.id: zone "town" is already declared in town.toml`)
}

func TestLoad_SyntaxAndTypeErrorsNameTheLine(t *testing.T) {
	fsys := minimalWorld()
	fsys["broken.toml"] = &fstest.MapFile{Data: []byte("[zone]\nname = \"B\nreset_secs = 3\n")}
	fsys["typed.toml"] = &fstest.MapFile{Data: []byte("[zone]\nname = \"T\"\nreset_secs = \"soon\"\n[rooms.a]\nname=\"A\"\ndescription=\"a\"\n")}
	_, err := Load(fsys)
	assertProblems(t, err, "broken.toml:2: ", "typed.toml:3: zone.reset_secs: ")
}

func TestLoad_ControlCharactersRefused(t *testing.T) {
	fsys := minimalWorld()
	fsys["esc.toml"] = &fstest.MapFile{Data: []byte("[zone]\nname = \"E\"\n[rooms.a]\nname = \"A\\u001b[31m\"\ndescription = \"a\"\n")}
	_, err := Load(fsys)
	assertProblems(t, err, "esc.toml:4: rooms.a.name: contains control character")
}

func TestLoad_InstanceEntranceNeedsInstanceableZone(t *testing.T) {
	fsys := minimalWorld()
	fsys["town.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Town"
[rooms.square]
name = "The Square"
description = "A square."
instance_entrances = { down = "cave", up = "town" }
`)}
	fsys["cave.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Cave"
instanceable = true
[rooms.mouth]
name = "Mouth"
description = "Dark."
`)}
	_, err := Load(fsys)
	assertProblems(t, err,
		"cave.toml:2: zone.start_room: an instanceable zone needs a start room",
		`town.toml:7: rooms.square.instance_entrances.up: zone "town" is not instanceable`,
	)
}

// An ordinary exit into an instanceable zone's rooms would lead nowhere:
// the template is never hosted, only its copies, entered by an entrance.
// The copy's own exits within itself, and out, are fine.
func TestLoad_ExitIntoAnInstanceableZoneIsRefused(t *testing.T) {
	fsys := minimalWorld()
	fsys["town.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Town"
[rooms.square]
name = "The Square"
description = "A square."
exits = { east = "cave:room:mouth" }
instance_entrances = { down = "cave" }
`)}
	fsys["cave.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Cave"
instanceable = true
start_room = "mouth"
[rooms.mouth]
name = "Mouth"
description = "Dark."
exits = { up = "town:room:square", north = "deep" }
[rooms.deep]
name = "Deep"
description = "Darker."
exits = { south = "mouth" }
`)}
	_, err := Load(fsys)
	assertProblems(t, err,
		`town.toml:7: rooms.square.exits.east: zone "cave" is instanceable: its rooms exist only in its private copies; lead into it with instance_entrances = { east = "cave" }`,
	)
}

func TestLoad_NoZones(t *testing.T) {
	if _, err := Load(fstest.MapFS{"game.toml": {Data: []byte("")}}); err != ErrNoZones {
		t.Fatalf("got %v, want ErrNoZones", err)
	}
}

func TestDice(t *testing.T) {
	for _, tc := range []struct {
		in       string
		min, max int
	}{{"2d6+1", 3, 13}, {"1d4", 1, 4}, {"3d8-2", 1, 22}, {"7", 7, 7}, {"d6", 1, 6}, {" 2 d 6 ", 2, 12}} {
		d, err := ParseDice(tc.in)
		if err != nil || d.Min() != tc.min || d.Max() != tc.max {
			t.Errorf("ParseDice(%q) = %v (%d..%d), %v; want %d..%d", tc.in, d, d.Min(), d.Max(), err, tc.min, tc.max)
		}
	}
	for _, bad := range []string{"", "d", "2d0", "2d", "x", "1000d6", "2d6+", "2d6+1+1", "99999999999d6", "2d99999999999"} {
		if _, err := ParseDice(bad); err == nil {
			t.Errorf("ParseDice(%q) accepted", bad)
		}
	}
}

func FuzzParseDice(f *testing.F) {
	for _, s := range []string{"2d6+1", "1d4", "7", "-3", "d", "99999999999d6", "1d1-1000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDice(s)
		if err != nil {
			return
		}
		if d.N > MaxDiceN || d.S > MaxDiceS || d.B > MaxDiceB || d.B < -MaxDiceB {
			t.Fatalf("%q parsed out of bounds: %+v", s, d)
		}
		n := 0
		v := d.Roll(func(k int) int { n++; return k - 1 })
		if v != d.Max() {
			t.Fatalf("%q: max roll %d, Max() %d", s, v, d.Max())
		}
	})
}

// FuzzLoad feeds arbitrary bytes as a zone file: the loader must answer
// with problems or a set, never panic. A hot reload reads through a cache
// that decodes only the files whose bytes changed; through a cache that
// holds the file's last good version, the answer is the same as a plain
// load's, problems and set alike.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("[zone]\nname=\"x\"\n[rooms.a]\nname=\"A\"\ndescription=\"a\"\nexits={north=\"a\"}\n"))
	f.Add([]byte("[[resets]]\nmob=\"a\"\nroom=\"b\"\n"))
	f.Add([]byte("[rooms.a.doors.north]\nlocked=true\n"))
	f.Add([]byte("[zone]\nname=\"x\"\n[rooms.a]\nname=\"A\"\ndescription=\"a\"\nexits={north=\"town:room:square\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := minimalWorld()
		fsys["fuzz.toml"] = &fstest.MapFile{Data: []byte("[zone]\nname=\"x\"\n[rooms.a]\nname=\"A\"\ndescription=\"a\"\n")}
		var c Cache
		if _, err := LoadCached(fsys, &c); err != nil {
			t.Fatalf("the fuzz file's first version does not load: %v", err)
		}
		fsys["fuzz.toml"] = &fstest.MapFile{Data: data}
		plain, perr := Load(fsys)
		cached, cerr := LoadCached(fsys, &c)
		if !sameProblems(perr, cerr) {
			t.Fatalf("a load through the cache says\n%v\nwhere a plain load says\n%v", cerr, perr)
		}
		if perr == nil && (!reflect.DeepEqual(plain.Rooms, cached.Rooms) || !reflect.DeepEqual(plain.Mobs, cached.Mobs) ||
			!reflect.DeepEqual(plain.Items, cached.Items) || !reflect.DeepEqual(plain.Zones, cached.Zones)) {
			t.Fatal("a load through the cache gives another set than a plain load")
		}
	})
}

// Two loads of the same files give equal sets, so a reload can tell
// what changed by comparing them.
func TestLoad_SameFilesEqualSets(t *testing.T) {
	a, err := Load(minimalWorld())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		b, _ := Load(minimalWorld())
		if !reflect.DeepEqual(a.Game, b.Game) {
			t.Fatalf("two loads of one game.toml differ: %+v and %+v", a.Game, b.Game)
		}
	}
}

// Through a cache, a file whose bytes are unchanged is not decoded again,
// and the load gives the same set as one without the cache; a changed file
// is decoded afresh, and so is one that did not decode.
func TestLoadCached_DecodesOnlyWhatChanged(t *testing.T) {
	fsys := minimalWorld()
	var c Cache
	a, err := LoadCached(fsys, &c)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Load(fsys)
	if !reflect.DeepEqual(a.Rooms, plain.Rooms) || !reflect.DeepEqual(a.Game, plain.Game) {
		t.Fatal("a load through the cache differs from one without")
	}
	c.files["town.toml"].v.(*zoneFile).Zone.Name = "From the cache" // a marker: was it decoded again?
	b, err := LoadCached(fsys, &c)
	if err != nil {
		t.Fatal(err)
	}
	if b.Zones["town"].Name != "From the cache" {
		t.Errorf("an unchanged file was decoded again: zone name %q", b.Zones["town"].Name)
	}
	fsys["town.toml"] = &fstest.MapFile{Data: append(fsys["town.toml"].Data, '\n')}
	b, err = LoadCached(fsys, &c)
	if err != nil {
		t.Fatal(err)
	}
	if b.Zones["town"].Name == "From the cache" {
		t.Error("a changed file was not decoded again")
	}
	good := fsys["town.toml"].Data
	fsys["town.toml"] = &fstest.MapFile{Data: []byte("[zone\n")}
	_, err = LoadCached(fsys, &c)
	_, err2 := LoadCached(fsys, &c)
	if err == nil || err2 == nil || err.Error() != err2.Error() {
		t.Errorf("a file that does not decode: %v, then from the cache %v", err, err2)
	}
	fsys["town.toml"] = &fstest.MapFile{Data: good}
	if _, err := LoadCached(fsys, &c); err != nil {
		t.Errorf("fixed: %v", err)
	}
}

// sameProblems compares two loads' answers. Which of several wrongly typed
// keys in one table the TOML library names depends on Go's map order (it
// decodes a table of tables through a map), so two loads of one file can
// name different keys, each truly wrong; a type problem is compared by its
// file alone. Every other problem is compared whole.
func sameProblems(a, b error) bool {
	norm := func(err error) []string {
		if err == nil {
			return nil
		}
		var ps Problems
		if !errors.As(err, &ps) {
			return []string{err.Error()}
		}
		var out []string
		for _, p := range ps {
			if strings.HasPrefix(p.Msg, "type mismatch") || strings.HasPrefix(p.Msg, "incompatible types") {
				out = append(out, p.File+": a value of the wrong type")
				continue
			}
			out = append(out, p.String())
		}
		return out
	}
	return slices.Equal(norm(a), norm(b))
}
