package circle

import (
	"strings"
	"testing"
)

// shopWorld is a keeper (mob 10, a sentinel, loaded in its shop room 100
// and, once, in room 101), a wandering mob 11, and objects to sell: a
// lantern (1), a flask (17, a drink container) and a sword (5).
var shopWorld = map[string]string{
	"1.wld": "#100\nThe Shop~\nA shop.\n~\n1 0 0\nD1\n~\n~\n0 -1 101\nS\n#101\nThe Street~\nA street.\n~\n1 0 1\nD3\n~\n~\n0 -1 100\nS\n$\n",
	"1.mob": "#10\nkeeper~\nthe keeper~\nThe keeper is here.\n~\n~\nb 0 0 S\n5 20 5 1d1+10 1d2+0\n0 0\n8 8 1\n" +
		"#11\npedlar~\nthe pedlar~\nA pedlar wanders by.\n~\n~\n0 0 0 S\n5 20 5 1d1+10 1d2+0\n0 0\n8 8 1\n$\n",
	"1.obj": "#1\nlantern~\na lantern~\nA lantern.~\n~\n1 0 a\n0 0 -1 0\n1 10 0\n" +
		"#2\nflask~\na flask~\nA flask.~\n~\n17 0 a\n5 5 0 0\n1 4 0\n" +
		"#3\nsword~\na sword~\nA sword.~\n~\n5 0 an\n0 1 6 3\n3 30 0\n$\n",
	"1.zon": "#1\nShops~\n0 199 10 2\nM 0 10 1 100\nM 0 11 1 101\nM 0 10 2 101\nS\n$\n",
}

// with is shopWorld with a shop file.
func with(shp string) map[string]string {
	files := map[string]string{"1.shp": shp}
	for k, v := range shopWorld {
		files[k] = v
	}
	return files
}

const shopMsgs = "%s None of that here.~\n%s You have none.~\n%s Not that.~\n%s I am broke.~\n%s You are broke.~\n%s That is %d.~\n%s Here is %d.~\n"

// A v3.0 shop converts every field zonemud has: products as stock that
// never runs out, the profits, trade types given by number and by name
// (tbaMUD's LIQ CONTAINER too), and hours; what it has not is noted at
// its line: the keywords after a type, the messages, temper, flags,
// trade-with flags, and a keeper loaded outside the shop's rooms.
func TestFormat_Shop(t *testing.T) {
	shp := "CircleMUD v3.0 Shop File~\n#10~\n1\n2 ; a comment\n-1\n1.25\n0.4\n1\nLIQ CONTAINER\nweapon sword blade ; only swords\n-1\n" +
		shopMsgs + "1\n1\n10\n3\n100\n-1\n6\n19\n0\n0\n$~\n"
	w, res := convertFS(t, with(shp))
	s := w.Shops[10]
	if s == nil || !s.V3 || len(s.Products) != 2 || s.BuyProfit != 1.25 || s.SellProfit != 0.4 || len(s.Types) != 3 ||
		s.Types[1].Type != 17 || s.Types[2].Words != "sword blade" || s.Keeper != 10 || s.Temper != 1 ||
		len(s.Rooms) != 1 || s.Hours != [4]int{6, 19, 0, 0} || s.Messages[5] != "%s That is %d." {
		t.Fatalf("shop read as %+v", s)
	}
	z := zoneText(t, res)
	wantIn(t, z, "[mobs.m10.shop]\nstock = [\n  { item = \"o1\" },\n  { item = \"o2\" },\n]\nbuy_factor = 1.25\nsell_factor = 0.4\n"+
		"trades = [\"light\", \"drink\", \"weapon\"]\nopen = 6\nclose = 20\n")
	for _, n := range []struct{ kind, where, want string }{
		{KindApproximated, "1.shp:10", "only when named \"sword blade\""},
		{KindDropped, "1.shp:12", "seven messages"},
		{KindDropped, "1.shp:19", "temper 1"},
		{KindDropped, "1.shp:20", "WILL_START_FIGHT"},
		{KindDropped, "1.shp:22", "NOGOOD"},
		{KindDropped, "1.shp:22", "NOEVIL"},
		{KindApproximated, "1.zon:6", "loaded in room 101, which is not a room of the shop"},
	} {
		if !hasNote(res, n.kind, n.where, n.want) {
			t.Errorf("no %s note at %s saying %q:%s", n.kind, n.where, n.want, notes(res))
		}
	}
	if hasNote(res, KindApproximated, "1.zon:4", "not a room of the shop") || hasNote(res, KindApproximated, "1.shp:2", "wanders") {
		t.Errorf("the keeper loaded in its shop room, a sentinel, is noted:%s", notes(res))
	}
	wantIn(t, string(res.Files["IMPORT.md"]), "- shop 10 (1.shp:2), kept by `shops_1:mob:m10`:\n  - keeper has no such item: ` %s None of that here. `",
		"  - after a sale: ` %s Here is %d. `", "| 1 Shops | `shops_1.toml` | 2 | 2 | 3 | 3 | 1 |", "1 of 1 shops")
	if res.Shops != 1 || res.ShopsSeen != 1 {
		t.Errorf("shops counted %d of %d, want 1 of 1", res.Shops, res.ShopsSeen)
	}
}

// The old format (no version line) has five product lines, five type
// lines and one room; negative entries are empty.
func TestFormat_ShopOldFormat(t *testing.T) {
	shp := "#10~\n1\n-1\n3\n-1\n-1\n1.5\n0.5\n5\n-1\n-1\n-1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n0\n28\n0\n0\n$~\n"
	w, res := convertFS(t, with(shp))
	s := w.Shops[10]
	if s == nil || s.V3 || len(s.Products) != 2 || len(s.Types) != 1 || len(s.Rooms) != 1 || s.Rooms[0].Vnum != 100 {
		t.Fatalf("old-format shop read as %+v", s)
	}
	z := zoneText(t, res)
	wantIn(t, z, "stock = [\n  { item = \"o1\" },\n  { item = \"o3\" },\n]\nbuy_factor = 1.5\nsell_factor = 0.5\ntrades = [\"weapon\"]\n")
	if strings.Contains(z, "open =") {
		t.Errorf("hours 0-28 are always open, want no open/close:\n%s", z)
	}
}

// The two windows of a Circle shop's hours become zonemud's one.
func TestFormat_ShopHours(t *testing.T) {
	for _, c := range []struct {
		h           [4]int
		open, close int
		exact       bool
	}{
		{[4]int{0, 28, 0, 0}, 0, 0, true},
		{[4]int{0, 23, 0, 0}, 0, 0, true},
		{[4]int{6, 19, 0, 0}, 6, 20, true},
		{[4]int{1, 23, 0, 0}, 1, 0, true},     // to midnight
		{[4]int{0, 5, 20, 28}, 20, 6, true},   // across midnight, as two windows
		{[4]int{8, 12, 13, 18}, 8, 19, true},  // two windows that touch
		{[4]int{8, 12, 14, 18}, 8, 19, false}, // a lunch break: approximated
		{[4]int{1, 2, 20, 21}, 20, 3, false},  // the longest closed run is left out
		{[4]int{9, 3, 0, 0}, 0, 0, false},     // never open
	} {
		o, cl, ex := shopHours(c.h)
		if o != c.open || cl != c.close || ex != c.exact {
			t.Errorf("hours %v: open %d close %d exact %v; want %d %d %v", c.h, o, cl, ex, c.open, c.close, c.exact)
		}
	}
}

// Each kind of bad shop is noted at its file and line with what was
// expected there, and the import goes on: the good shop after it (or the
// world, for a shop left out) converts, and the output loads.
func TestFormat_ShopBadInput(t *testing.T) {
	good := "#20~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n-1\n0\n28\n0\n0\n"
	v3 := "CircleMUD v3.0 Shop File~\n"
	tail := shopMsgs + "0\n0\n10\n0\n100\n-1\n0\n28\n0\n0\n"
	for _, tc := range []struct {
		name        string
		shp         string
		goodAfter   bool
		kind, where string
		want        string
	}{
		{"a vnum that is not a number", v3 + "#ten~\n1\n-1\n" + good + "$~\n", true,
			KindError, "1.shp:2", "expected #<vnum>~ to start a shop"},
		{"a profit that is not a number", v3 + "#10~\n1\n-1\nlots\n0.5\n1\n-1\n" + tail + good + "$~\n", true,
			KindError, "1.shp:5", "expected the buy profit"},
		{"a profit that is not finite", v3 + "#10~\n1\n-1\nNaN\n0.5\n1\n-1\n" + tail + good + "$~\n", true,
			KindError, "1.shp:5", "expected the buy profit"},
		{"a product list without its -1", v3 + "#10~\n1\n2\n1.5\n0.5\n1\n-1\n" + tail + good + "$~\n", true,
			KindError, "1.shp:5", "an object vnum it makes or -1"},
		{"an unknown trade type", v3 + "#10~\n1\n-1\n1.5\n0.5\nGADGET\n-1\n" + tail + good + "$~\n", true,
			KindError, "1.shp:7", "expected a trade type"},
		{"a keeper that is not a number", v3 + "#10~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\nkeeper\n0\n100\n-1\n0\n28\n0\n0\n" + good + "$~\n", true,
			KindError, "1.shp:18", "expected <keeper mob vnum>"},
		{"hours that are words", v3 + "#10~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n-1\ndawn\n" + good + "$~\n", true,
			KindError, "1.shp:22", "expected the opening hours"},
		{"a file that stops in the messages", v3 + "#10~\n1\n-1\n1.5\n0.5\n1\n-1\n%s None.~\n%s You have", false,
			KindError, "1.shp:10", "never ends with ~"},
		{"a file that stops before the hours", v3 + "#10~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n-1\n0\n", false,
			KindError, "1.shp:22", "unexpected end of file; expected <open 1>"},
		{"no $~ at the end", v3 + good, false,
			KindApproximated, "1.shp:25", "no $~ at its end"},
		{"not a shop file", "\x7fELF\x02\x01binary junk\n\x00\xff", false,
			KindError, "1.shp:1", "expected #<vnum>~, $~ or the version line"},
		{"a keeper that does not exist", v3 + "#10~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n77\n0\n100\n-1\n0\n28\n0\n0\n" + good + "$~\n", true,
			KindBroken, "1.shp:18", "its keeper, mob 77, does not exist"},
		{"a product that does not exist", v3 + "#20~\n1\n99\n-1\n" + good[strings.Index(good, "1.5"):] + "$~\n", false,
			KindBroken, "1.shp:4", "object 99, which does not exist"},
		{"a room that does not exist", v3 + "#20~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n555\n-1\n0\n28\n0\n0\n$~\n", false,
			KindBroken, "1.shp:21", "room 555 does not exist"},
		{"a shop vnum twice", v3 + good + good + "$~\n", false,
			KindError, "1.shp:26", "shop 20 is already defined at 1.shp:2"},
		{"a keeper of two shops", v3 + "#10~\n3\n-1\n1.5\n0.5\n5\n-1\n" + tail + good + "$~\n", false,
			KindDropped, "1.shp:26", "mob 10 already keeps shop 10"},
		{"absurd profits", v3 + "#20~\n1\n-1\n1e300\n-4\n1\n-1\n" + tail + "$~\n", false,
			KindApproximated, "1.shp:5", "buy profit 1e+300 is out of zonemud's range"},
		{"a sell profit above the buy profit", v3 + "#20~\n1\n-1\n0.5\n1.5\n1\n-1\n" + tail + "$~\n", false,
			KindApproximated, "1.shp:6", "a player could buy and sell back for profit"},
		{"a shop that never opens", v3 + "#20~\n1\n-1\n1.5\n0.5\n1\n-1\n" + shopMsgs + "0\n0\n10\n0\n100\n-1\n9\n3\n0\n0\n$~\n", false,
			KindApproximated, "1.shp:22", "it never opens"},
		{"money as a trade type", v3 + "#20~\n1\n-1\n1.5\n0.5\n20\n99\n-1\n" + tail + "$~\n", false,
			KindDropped, "1.shp:7", "MONEY"},
		{"Latin-1 messages", v3 + "#20~\n1\n-1\n1.5\n0.5\n1\n-1\n%s Caf\xe9?~\n" + tail[strings.Index(tail, "\n")+1:] + "$~\n", false,
			KindApproximated, "1.shp", "read as Latin-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, res := convertFS(t, with(tc.shp))
			if !hasNote(res, tc.kind, tc.where, tc.want) {
				t.Errorf("no %s note at %s saying %q; notes:%s", tc.kind, tc.where, tc.want, notes(res))
			}
			if tc.goodAfter && w.Shops[20] == nil {
				t.Errorf("the good shop 20 after the bad one was not read")
			}
			if w.Rooms[100] == nil || !strings.Contains(zoneText(t, res), "[mobs.m10]") {
				t.Errorf("the world was not imported beside the bad shop")
			}
		})
	}
}
