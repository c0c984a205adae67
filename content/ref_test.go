package content

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The authored charset must never admit '#': instance ids are
// <template>#<hex>, and that is what keeps them from ever colliding with
// anything a builder can write.
func TestRefCharset_NeverAdmitsHash(t *testing.T) {
	for b := 0; b < 256; b++ {
		want := b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == ':'
		if got := IsRefByte(byte(b)); got != want {
			t.Errorf("IsRefByte(%q) = %v, want %v", rune(b), got, want)
		}
	}
	if IsRefByte('#') {
		t.Fatal("'#' is an authored ref byte")
	}
	for _, s := range []string{"crypt#00ff", "crypt#00ff:room:x", "a:room:b#c", "#:room:x"} {
		if _, err := ParseRef(s); err == nil {
			t.Errorf("ParseRef(%q) accepted a '#'", s)
		}
		if ValidName(s) {
			t.Errorf("ValidName(%q) accepted a '#'", s)
		}
	}
}

func TestParseRef(t *testing.T) {
	r, err := ParseRef("emberfall:room:square")
	if err != nil || r != (Ref{Zone: "emberfall", Kind: KindRoom, Local: "square"}) {
		t.Fatalf("got %+v, %v", r, err)
	}
	for _, bad := range []string{"", "a", "a:b", "a:room:", ":room:x", "a:thing:x", "A:room:x", "a:room:x:y", "a b:room:x", "a:room:x\x00"} {
		if _, err := ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) accepted", bad)
		}
	}
}

// A zone file whose names use '#' or other bytes outside the charset is
// refused at load, with the key named.
func TestLoad_RefusesHashInAuthoredNames(t *testing.T) {
	fsys := minimalWorld()
	fsys["bad.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
id = "bad#1"
name = "Bad"
[rooms.a]
name = "A"
description = "A room."
`)}
	fsys["worse.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Worse"
[rooms."b#2"]
name = "B"
description = "A room."
exits = { north = "town:room:sq#uare" }
`)}
	_, err := Load(fsys)
	assertProblems(t, err,
		"bad.toml:3: zone.id",
		`worse.toml: rooms.b#2`,
	)
}

func minimalWorld() fstest.MapFS {
	return fstest.MapFS{
		"game.toml": {Data: []byte(`
[world]
start_room = "town:room:square"
[[slots]]
name = "body"
[[slots]]
name = "wield"
`)},
		"town.toml": {Data: []byte(`
[zone]
name = "Town"
start_room = "square"
[rooms.square]
name = "The Square"
description = "A square."
exits = { north = "road" }
[rooms.road]
name = "A Road"
description = "A road."
exits = { south = "square" }
`)},
	}
}

// assertProblems checks that err lists a problem starting with each prefix.
func assertProblems(t *testing.T, err error, prefixes ...string) {
	t.Helper()
	ps, ok := err.(Problems)
	if !ok {
		t.Fatalf("got error %v (%T), want Problems", err, err)
	}
	for _, want := range prefixes {
		found := false
		for _, p := range ps {
			if strings.HasPrefix(p.String(), want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem starting %q in:\n%v", want, err)
		}
	}
}
