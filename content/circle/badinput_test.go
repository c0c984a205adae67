package circle

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// A room file the bad-input cases add their broken records to: a source
// needs one room that reads to convert at all.
const goodRoom = "#100\nA Good Room~\nIt reads.\n~\n1 0 0\nS\n"

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for n, s := range files {
		fsys[n] = &fstest.MapFile{Data: []byte(s)}
	}
	return fsys
}

// convertFS reads and converts files, and checks the output loads.
func convertFS(t *testing.T, files map[string]string) (*World, *Result) {
	t.Helper()
	w, err := Read(mapFS(files))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	res, err := Convert(w, Options{Game: starterGame(t)})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	load(t, res)
	return w, res
}

// hasNote reports whether a note of kind at file:line says want.
func hasNote(res *Result, kind, where, want string) bool {
	for _, n := range res.Notes {
		if n.Kind == kind && strings.HasPrefix(n.String(), where+":") && strings.Contains(n.Msg, want) {
			return true
		}
	}
	return false
}

func notes(res *Result) string {
	var b strings.Builder
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "\n  %s: %s", n.Kind, n)
	}
	return b.String()
}

// Each kind of bad input is noted with its file and line and what was
// expected, and the import goes on with the rest: the good room is there.
func TestImport_BadInputIsNotedAndTheRestImported(t *testing.T) {
	huge := strings.Repeat("A very long line of a description that goes on. ", 220000) // over 10 MB
	for _, tc := range []struct {
		name        string
		files       map[string]string
		kind, where string
		want        string
	}{
		{"truncated description", map[string]string{"a.wld": goodRoom + "#101\nCut Off~\nThe text stops"},
			KindError, "a.wld:9", "never ends with ~"},
		{"truncated after the flags", map[string]string{"a.wld": goodRoom + "#101\nCut Off~\nText.\n~\n1 0 0\nD0\n"},
			KindError, "a.wld:12", "unexpected end of file; expected the exit description"},
		{"not a Circle file", map[string]string{"a.wld": goodRoom, "b.wld": "\x7fELF\x02\x01\x01\x00\x00\x00binary junk\n\x00\xff\xfe"},
			KindError, "b.wld:1", "expected #<vnum> to start a room"},
		{"a vnum that is not a number", map[string]string{"a.wld": goodRoom + "#10x1\nName~\nText.\n~\n1 0 0\nS\n"},
			KindError, "a.wld:7", "expected #<vnum>"},
		{"a vnum past 32 bits", map[string]string{"a.wld": goodRoom + "#99999999999\nName~\nText.\n~\n1 0 0\nS\n"},
			KindError, "a.wld:7", "expected #<vnum>"},
		{"a vnum out of range", map[string]string{"a.wld": goodRoom + "#2000000000\nName~\nText.\n~\n1 0 0\nS\n"},
			KindError, "a.wld:7", "out of range"},
		{"vnums out of order", map[string]string{"a.wld": "#200\nLater~\nText.\n~\n1 0 0\nS\n" + goodRoom},
			KindApproximated, "a.wld:7", "out of order"},
		{"a vnum twice, in two files", map[string]string{"a.wld": goodRoom, "b.wld": goodRoom},
			KindError, "b.wld:1", "already defined at a.wld:1"},
		{"an exit to nowhere", map[string]string{"a.wld": "#100\nA Good Room~\nIt reads.\n~\n1 0 0\nD0\n~\n~\n0 -1 555\nS\n"},
			KindBroken, "a.wld:6", "room 555, which does not exist"},
		{"a bad exit direction", map[string]string{"a.wld": goodRoom + "#101\nName~\nText.\n~\n1 0 0\nD12\n~\n~\n0 -1 100\nS\n"},
			KindError, "a.wld:12", "expected D0 to D9"},
		{"a room line with letters for the sector", map[string]string{"a.wld": goodRoom + "#101\nName~\nText.\n~\n1 0 city\nS\n"},
			KindError, "a.wld:11", "sector"},
		{"a room without S", map[string]string{"a.wld": "#99\nName~\nText.\n~\n1 0 0\n" + goodRoom},
			KindError, "a.wld:5", "no S before the next record"},
		{"a mob of 2^31 hit points", map[string]string{"a.wld": goodRoom, "a.mob": "#1\nhuge~\na huge thing~\nA huge thing is here.\n~\n~\n0 0 0 S\n1 20 10 0d0+2147483647 1d2+0\n0 0\n8 8 0\n$\n"},
			KindApproximated, "a.mob:1", "beyond zonemud's range"},
		{"a mob of hit points past 32 bits", map[string]string{"a.wld": goodRoom, "a.mob": "#1\nhuge~\na huge thing~\nA huge thing is here.\n~\n~\n0 0 0 S\n1 20 10 0d0+99999999999 1d2+0\n0 0\n8 8 0\n$\n"},
			KindError, "a.mob:8", "hit points as dice"},
		{"a mob of an unknown type", map[string]string{"a.wld": goodRoom, "a.mob": "#1\nodd~\nan odd thing~\nAn odd thing.\n~\n~\n0 0 0 X\n"},
			KindError, "a.mob:7", "not S or E"},
		{"an enhanced mob that never ends", map[string]string{"a.wld": goodRoom, "a.mob": "#1\nodd~\nan odd thing~\nAn odd thing.\n~\n~\n0 0 0 E\n1 20 10 1d1+1 1d1+0\n0 0\n8 8 0\nStr: 10\n"},
			KindError, "a.mob:11", "unexpected end of file; expected E"},
		{"a negative weight", map[string]string{"a.wld": goodRoom, "a.obj": "#1\nstone~\na stone~\nA stone.~\n~\n12 0 a\n0 0 0 0\n-5 1 0\n$\n"},
			KindApproximated, "a.obj:1", "weight -5 is out of zonemud's range"},
		{"an object with three values", map[string]string{"a.wld": goodRoom, "a.obj": "#1\nstone~\na stone~\nA stone.~\n~\n12 0 a\n0 0 0\n1 1 0\n$\n"},
			KindError, "a.obj:7", "4 numbers"},
		{"Latin-1 text", map[string]string{"a.wld": "#100\nLa Caf\xe9~\nUn caf\xe9 tr\xe8s calme.\n~\n1 0 0\nS\n"},
			KindApproximated, "a.wld", "read as Latin-1"},
		{"a 10 MB description", map[string]string{"a.wld": "#100\nLong~\n" + huge + "\n~\n1 0 0\nS\n"},
			KindApproximated, "a.wld:1", "cut to zonemud's limit"},
		{"resets of things that do not exist", map[string]string{"a.wld": goodRoom, "a.zon": "#1\nZone~\n199 10 2\nM 0 77 1 100\nO 0 78 1 100\nD 0 100 0 1\nS\n$\n"},
			KindBroken, "a.zon:4", "mob 77, which does not exist"},
		{"a reset into a room that does not exist", map[string]string{"a.wld": goodRoom, "a.obj": "#1\nstone~\na stone~\nA stone.~\n~\n12 0 a\n0 0 0 0\n1 1 0\n$\n", "a.zon": "#1\nZone~\n199 10 2\nO 0 1 1 150\nS\n$\n"},
			KindBroken, "a.zon:4", "room 150, which does not exist"},
		{"a door reset with no door", map[string]string{"a.wld": goodRoom, "a.zon": "#1\nZone~\n199 10 2\nD 0 100 0 1\nS\n$\n"},
			KindBroken, "a.zon:4", "no door that way"},
		{"a zone command with too few numbers", map[string]string{"a.wld": goodRoom, "a.zon": "#1\nZone~\n199 10 2\nM 0 1\nS\n$\n"},
			KindError, "a.zon:4", "expected M <if-flag> and 3 numbers"},
		{"an index naming a missing file", map[string]string{"wld/index": "1.wld\n2.wld\n$\n", "wld/1.wld": goodRoom},
			KindBroken, "wld/index:2", "not there"},
		{"an index naming a file outside", map[string]string{"wld/index": "1.wld\n../../etc/passwd\n$\n", "wld/1.wld": goodRoom},
			KindError, "wld/index:2", "not a file name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, res := convertFS(t, tc.files)
			if !hasNote(res, tc.kind, tc.where, tc.want) {
				t.Errorf("no %s note at %s saying %q; notes:%s", tc.kind, tc.where, tc.want, notes(res))
			}
			if w.Rooms[100] == nil {
				t.Errorf("the good room 100 was not imported beside the bad input")
			}
		})
	}
}

// Latin-1 text is read as such and written as UTF-8, and a 10 MB
// description is cut to what the schema takes, without a crash or a
// reader that holds it all.
func TestImport_TextIsConvertedAndBounded(t *testing.T) {
	_, res := convertFS(t, map[string]string{"a.wld": "#100\nLa Caf\xe9~\nUn caf\xe9 tr\xe8s calme.\n~\n1 0 0\nS\n"})
	for n, b := range res.Files {
		if strings.HasSuffix(n, ".toml") && strings.Contains(string(b), "name = \"La Café\"") {
			return
		}
	}
	t.Errorf("no zone file names the room \"La Café\"")
}

// A source with nothing that reads is refused as a whole, with a reason.
func TestImport_NothingToImportIsRefused(t *testing.T) {
	if _, err := Read(mapFS(map[string]string{"readme.txt": "hello"})); err != ErrNoWorld {
		t.Errorf("a folder of no world files: %v, want ErrNoWorld", err)
	}
	w, err := Read(mapFS(map[string]string{"a.wld": "junk\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(w, Options{Game: starterGame(t)}); err != ErrNoRooms {
		t.Errorf("a world of no rooms: %v, want ErrNoRooms", err)
	}
}
