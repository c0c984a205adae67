package circle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// zoneText is the one zone file a conversion wrote.
func zoneText(t *testing.T, res *Result) string {
	t.Helper()
	var out []string
	for n, b := range res.Files {
		if strings.HasSuffix(n, ".toml") && n != "game.toml" && n != "help.toml" {
			out = append(out, string(b))
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d zone files written, want 1", len(out))
	}
	return out[0]
}

func wantIn(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
}

// A room with every flag, in the letter form, the number form and the
// four-field form of tbaMUD, converts the same way: the flags zonemud has
// set, the rest listed, the death trap a script, and a locked door with
// its key.
func TestFormat_RoomFlagsAndLockedDoor(t *testing.T) {
	for _, flags := range []string{"1 abcdefghijk 1", "1 2047 1", "1 abcdefghijk 0 0 0 1"} {
		t.Run(flags, func(t *testing.T) {
			files := map[string]string{
				"1.wld": "#100\nThe Vault~\nA vault.\n~\n" + flags + "\nD1\nA heavy door.\n~\ndoor vault~\n2 150 101\nS\n" +
					"#101\nOutside~\nOutside the vault.\n~\n1 0 1\nD3\n~\ndoor vault~\n1 150 100\nS\n$\n",
				"1.obj": "#150\nkey vault~\na vault key~\nA vault key lies here.~\n~\n18 0 a\n0 0 0 0\n1 1 0\n$\n",
				"1.zon": "#1\nVaults~\n199 30 2\nD 0 100 1 2\nD 1 101 3 2\nS\n$\n",
			}
			_, res := convertFS(t, files)
			z := zoneText(t, res)
			wantIn(t, z, `flags = ["dark", "nomob", "indoors", "safe"]`, "function on_enter(actor)", "actor:damage(",
				"[rooms.r100.doors.east]\nkeywords = [\"door\", \"vault\"]\nshort = \"the door\"\nclosed = true\nlocked = true\nkey = \"o150\"",
				"[rooms.r101.doors.west]", "door = \"east\"\nroom = \"r100\"\nstate = \"locked\"", "environment = \"city\"")
			for _, f := range []string{"SOUNDPROOF", "NO_TRACK", "NO_MAGIC", "TUNNEL", "PRIVATE", "GODROOM"} {
				if !hasNote(res, KindDropped, "1.wld:1", f) {
					t.Errorf("flag %s not listed as dropped:%s", f, notes(res))
				}
			}
			if !hasNote(res, KindApproximated, "1.wld:1", "death trap") || !hasNote(res, KindApproximated, "1.wld:6", "pick-proof") {
				t.Errorf("the death trap or the pick-proof door is not noted:%s", notes(res))
			}
			if !hasNote(res, KindApproximated, "1.zon:5", "if-flag 1") {
				t.Errorf("the if-flag of the second D is not noted:%s", notes(res))
			}
		})
	}
}

// A simple (S) and an enhanced (E) mob, in the one-field and the
// four-field forms, read every field and convert what zonemud has.
func TestFormat_MobSections(t *testing.T) {
	files := map[string]string{
		"1.wld": goodRoom,
		"1.mob": "#1\nrat~\na rat~\nA rat is here.\n~\nJust a rat.\n~\n0 0 0 S\n2 18 6 2d4+3 1d3+1\n7 40\n8 8 0\n" +
			"#2\nguard watch~\nthe watch guard~\nThe watch guard glares.\n~\n~\nbf 0 0 0 i 0 0 0 -500 E\n9 10 -10 5d10+50 2d4+2\n100 2000\n4 8 2\nBareHandAttack: 3\nStr: 18\nCon: 15\nE\nT 9\n$\n",
	}
	w, res := convertFS(t, files)
	rat, guard := w.Mobs[1], w.Mobs[2]
	if rat == nil || guard == nil {
		t.Fatalf("mobs read: %v", w.Mobs)
	}
	if rat.Level != 2 || rat.THAC0 != 18 || rat.AC != 6 || rat.HP != (dice{2, 4, 3}) || rat.Damage != (dice{1, 3, 1}) || rat.Gold != 7 || rat.Exp != 40 || rat.Type != "S" {
		t.Errorf("rat read as %+v", rat)
	}
	if !guard.Wide || guard.Align != -500 || guard.DefPos != 8 || guard.LoadPos != 4 || guard.Sex != 2 || guard.ESpecs["Str"] != 18 || !slices.Equal(guard.Trigs, []int{9}) {
		t.Errorf("guard read as %+v", guard)
	}
	z := zoneText(t, res)
	wantIn(t, z, "[mobs.m1]\nkeywords = [\"rat\"]\nshort = \"a rat\"\nlong = \"A rat is here.\"\ndescription = \"Just a rat.\"\nlevel = 2\nflags = [\"wander\"]\nhp = \"2d4+3\"\ndamage = \"1d3+1\"",
		"[mobs.m2]", "flags = [\"aggressive\"]", "hp = \"5d10+50\"", "attack_verb = \"slash\"", "armor = 5", "hitroll = 2", "gold = \"100\"", "exp = 2000")
	for _, want := range []string{"alignment -500", "Str: 18", "Con: 15", "positions sleeping/standing", "trigger 9", "affect SANCTUARY", "sex 2"} {
		if !hasNote(res, KindDropped, "1.mob", want) {
			t.Errorf("%q not listed as dropped:%s", want, notes(res))
		}
	}
}

// Every object type converts to a loadable item: the ones zonemud has to
// their own type, the magic ones with their spells listed, the others as
// ordinary items with a note.
func TestFormat_EveryObjectType(t *testing.T) {
	var obj strings.Builder
	for typ := 0; typ <= 23; typ++ {
		fmt.Fprintf(&obj, "#%d\nthing t%d~\nthing %d~\nThing %d lies here.~\n~\n%d 0 a\n1 2 3 4\n1 10 0\n", 200+typ, typ, typ, typ, typ)
	}
	obj.WriteString("$\n")
	_, res := convertFS(t, map[string]string{"1.wld": goodRoom, "1.obj": obj.String()})
	z := zoneText(t, res)
	for typ, want := range map[int]string{1: "light", 5: "weapon", 6: "furniture", 8: "treasure", 9: "armor", 15: "container", 17: "drink", 18: "key", 19: "food", 20: "money", 23: "drink", 2: "other", 12: "other", 16: "other"} {
		wantIn(t, z, fmt.Sprintf("[items.o%d]\nkeywords = [\"thing\", \"t%d\"]", 200+typ, typ))
		i := strings.Index(z, fmt.Sprintf("[items.o%d]", 200+typ))
		if !strings.Contains(z[i:min(len(z), i+300)], "type = "+quote(want)) {
			t.Errorf("object type %d is not %s:\n%s", typ, want, z[i:min(len(z), i+300)])
		}
	}
	wantIn(t, z, "damage = \"2d3\"", "attack_verb = \"bite\"", "capacity = 1", "value = 1\n")
	for typ, want := range map[int]string{2: "spells 2, 3, 4 at level 1", 3: "spell 4 at level 1", 4: "spell 4 at level 1", 10: "spells 2, 3, 4 at level 1"} {
		if !hasNote(res, KindDropped, "1.obj", fmt.Sprintf("object %d is a %s", 200+typ, objTypeNames[typ])) || !hasNote(res, KindDropped, "1.obj", want) {
			t.Errorf("the magic of type %d is not listed:%s", typ, notes(res))
		}
	}
	if !hasNote(res, KindApproximated, "1.obj", "type BOAT has no zonemud equivalent") {
		t.Errorf("a boat is not noted:%s", notes(res))
	}
}

// Each reset command converts with its if-flag: G and E follow their M,
// P its O, D is a door reset, R, T and V are listed; a command after a
// broken one is left out with it.
func TestFormat_ResetCommands(t *testing.T) {
	files := map[string]string{
		"1.wld": "#100\nA Room~\nA room.\n~\n1 0 0\nD0\n~\ndoor~\n1 -1 101\nS\n#101\nNorth~\nNorth.\n~\n1 0 0\nS\n$\n",
		"1.mob": "#10\nogre~\nan ogre~\nAn ogre.\n~\n~\n0 0 0 S\n5 15 5 4d10+20 1d8+0\n0 0\n8 8 0\n$\n",
		"1.obj": "#20\nclub~\na club~\nA club.~\n~\n5 0 an\n0 1 6 7\n5 5 0\n" +
			"#21\ncoin~\na coin~\nA coin.~\n~\n20 0 a\n3 0 0 0\n0 0 0\n" +
			"#22\nsack~\na sack~\nA sack.~\n~\n15 0 a\n20 0 -1 0\n1 3 0\n" +
			"#23\nring~\na ring~\nA ring.~\n~\n12 0 ab\n0 0 0 0\n1 50 0\n$\n",
		"1.zon": "#1\nZone~\n199 10 2\n" +
			"M 0 10 2 100 the ogre\nE 1 20 5 16 club\nG 1 21 5\nE 1 23 5 1 ring\n" +
			"O 0 22 1 101\nP 1 21 5 22\nP 1 21 5 23\n" +
			"D 0 100 0 2\nR 0 100 21\nT 0 0 55\nV 0 0 0 0 x 1\n" +
			"M 0 99 1 100\nG 1 21 1\nO 1 22 1 100\nQ 0 1 2 3\nS\n$\n",
	}
	_, res := convertFS(t, files)
	z := zoneText(t, res)
	wantIn(t, z, "mob = \"m10\"\nroom = \"r100\"\nmax = 2\nequip = [\"o20\", \"o23\"]\ngive = [\"o21\"]",
		"item = \"o22\"\nroom = \"r101\"\nmax = 1\ncontents = [\"o21\"]",
		"door = \"north\"\nroom = \"r100\"\nstate = \"closed\"",
		"item = \"o22\"\nroom = \"r100\"")
	for _, n := range []struct{ kind, where, want string }{
		{KindDropped, "1.zon:10", "into object 23, which no O of this zone loads"},
		{KindDropped, "1.zon:12", "R removes object 21"},
		{KindDropped, "1.zon:13", "T attaches trigger 55"},
		{KindDropped, "1.zon:14", "V sets a DG Script variable"},
		{KindBroken, "1.zon:15", "mob 99, which does not exist"},
		{KindBroken, "1.zon:16", "mob of line 15, which was left out"},
		{KindApproximated, "1.zon:17", "if-flag 1"},
		{KindError, "1.zon:18", "unknown zone command"},
		{KindApproximated, "1.wld", "reset locked but has no key"},
	} {
		if !hasNote(res, n.kind, n.where, n.want) {
			t.Errorf("no %s note at %s saying %q:%s", n.kind, n.where, n.want, notes(res))
		}
	}
}

// A trigger reads its name, attach type, types, arguments and commands,
// and is listed with what it is attached to.
func TestFormat_Trigger(t *testing.T) {
	files := map[string]string{
		"1.wld": "#100\nA Room~\nA room.\n~\n1 0 0\nT 7\nS\n$\n",
		"1.trg": "#7\nRoom enter~\n2 g 100\n~\nwecho A chill runs down your spine.\n~\n$\n",
	}
	w, res := convertFS(t, files)
	tr := w.Triggers[7]
	if tr == nil || tr.Name != "Room enter" || tr.Attach != 2 || tr.Types != "g" || tr.NArg != 100 || strings.TrimSpace(tr.Commands) != "wecho A chill runs down your spine." {
		t.Fatalf("trigger read as %+v", tr)
	}
	wantIn(t, string(res.Files["IMPORT.md"]), "trigger 7 \"Room enter\" (room trigger, types g, 1.trg:1): attached to room 100")
}

// Colour codes become markup, braces are escaped, and codes with no
// markup are taken out and named.
func TestFormat_Colour(t *testing.T) {
	for _, c := range []struct{ in, out, dropped string }{
		{"@rred@n and @Bblue@n", "{r}red{x} and {B}blue{x}", ""},
		{`\tgleaf\tn \tDgrey`, "{g}leaf{x} {K}grey", ""},
		{"mail@@example", "mail@example", ""},
		{"@1on red@0", "on red", "@1 @0"},
		{`\t[F500]orange\tn`, "orange{x}", `\t[F500]`},
		{"a {brace} and @x", "a {{brace} and @x", ""},
		{"tab\there \x1b[31mesc", "tab here [31mesc", ""},
		{"trailing   \n\n", "trailing", ""},
	} {
		got, dropped := text(c.in)
		if got != c.out || strings.Join(dropped, " ") != c.dropped {
			t.Errorf("text(%q) = %q, %q; want %q, %q", c.in, got, dropped, c.out, c.dropped)
		}
	}
}
