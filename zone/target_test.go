package zone

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want targetSpec
		ok   bool
	}{
		{"sword", targetSpec{nth: 1, word: "sword"}, true},
		{"2.sword", targetSpec{nth: 2, word: "sword"}, true},
		{"all", targetSpec{all: true}, true},
		{"all.coin", targetSpec{all: true, word: "coin"}, true},
		{"  Long Sw ", targetSpec{nth: 1, word: "long sw"}, true},
		{"", targetSpec{}, false},
		{"all.", targetSpec{}, false},
		{"0.sword", targetSpec{}, false},
		{"-1.sword", targetSpec{}, false},
		{"99999999999.sword", targetSpec{}, false},
		{"10001.sword", targetSpec{}, false},
		{"3.", targetSpec{}, false},
		{".sword", targetSpec{nth: 1, word: ".sword"}, true},
	} {
		got, ok := parseTarget(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseTarget(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMatches(t *testing.T) {
	kw := []string{"long", "sword", "steel"}
	for in, want := range map[string]bool{"sw": true, "long sw": true, "st sw": true, "axe": false, "long axe": false, "": true} {
		if got := matches(in, kw); got != want {
			t.Errorf("matches(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzParseTarget: whatever a player types as a target parses to something
// bounded or is refused, and picking with it never panics.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"sword", "2.sword", "all", "all.coin", "99999999999.sword", "-1.x", "all.", ".", "1..2", "\x00", "all.all.all"} {
		f.Add(s)
	}
	items := []*Item{}
	f.Fuzz(func(t *testing.T, s string) {
		spec, ok := parseTarget(s)
		if !ok {
			return
		}
		if !spec.all && (spec.nth < 1 || spec.nth > maxNth) {
			t.Fatalf("%q parsed to an out-of-range count %d", s, spec.nth)
		}
		if strings.ToLower(spec.word) != spec.word {
			t.Fatalf("%q: word not lower case", s)
		}
		_ = pickItems(spec, items)
		_ = pickItem(spec, items)
	})
}

func FuzzWrap(f *testing.F) {
	for _, s := range []string{"a b c", "   indented\nline", "{R}colour{x} words", strings.Repeat("long ", 100), "\n\n\n", "{{"} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		out := wrap(s, width)
		w := max(width, 20)
		for _, ln := range strings.Split(out, "\n") {
			// A single word longer than the width may overflow; nothing
			// else may.
			if visibleLen(ln) > w && len(strings.Fields(ln)) > 1 && !strings.HasPrefix(ln, " ") {
				t.Fatalf("wrap(%q, %d) made a line of %d: %q", s, width, visibleLen(ln), ln)
			}
		}
	})
}

// An indented row that fits keeps the spaces that line up its columns; one
// too long for the window is reflowed as any line, its indent kept.
func TestWrap_KeepsTheColumnsOfATableRow(t *testing.T) {
	in := "Try:\n\n  look        see where you are\n  north, n    walk through an exit\nThat is all."
	want := "Try:\n\n  look        see where you are\n  north, n    walk through an exit That\nis all."
	if got := wrap(in, 40); got != want {
		t.Errorf("wrap kept no columns:\n got %q\nwant %q", got, want)
	}
	long := "  look        see where you are, and much more besides"
	want = "  look see where you are, and much more\nbesides"
	if got := wrap(long, 40); got != want {
		t.Errorf("a row too long for the window:\n got %q\nwant %q", got, want)
	}
}
