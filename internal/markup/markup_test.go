package markup

import "testing"

func TestRenderMarkup(t *testing.T) {
	for _, tc := range []struct {
		in    string
		level Level
		want  string
	}{
		{"{r}red{x} plain", Color16, "\x1b[31mred\x1b[0m plain"},
		{"{r}red{x} plain", None, "red plain"},
		{"{R}bright", Color16, "\x1b[91mbright\x1b[0m"},
		{"{#ff8800}orange{x}", TrueColor, "\x1b[38;2;255;136;0morange\x1b[0m"},
		{"{#ff8800}orange{x}", Color256, "\x1b[38;5;208morange\x1b[0m"},
		{"{#ff0000}red{x}", Color16, "\x1b[91mred\x1b[0m"},
		{"a {{b} c", Color16, "a {b} c"},
		{"{nope} {", Color16, "{nope} {"},
		{"{", TrueColor, "{"},
		{"unclosed {r", Color16, "unclosed {r"},
	} {
		if got := string(Render(nil, tc.in, tc.level)); got != tc.want {
			t.Errorf("Render(%q, %v) = %q, want %q", tc.in, tc.level, got, tc.want)
		}
		if got := string(Render(nil, []byte(tc.in), tc.level)); got != tc.want {
			t.Errorf("Render([]byte %q, %v) = %q, want %q", tc.in, tc.level, got, tc.want)
		}
	}
}

// Whatever a player types renders as itself: no colour, no escapes.
func TestEscapeMarkup_PlayerTextRendersAsTyped(t *testing.T) {
	for _, in := range []string{"{R}red{x}", "a {{ b", "{#ff0000}", "}{", "plain"} {
		esc := Escape(in)
		for _, lvl := range Levels {
			if got := string(Render(nil, esc, lvl)); got != in {
				t.Errorf("level %v: %q escaped as %q renders %q", lvl, in, esc, got)
			}
		}
	}
	if got := Escape("a\x1b[2Jb\x07c\u202ed"); got != "abcd" && got != "a[2Jbcd" {
		t.Errorf("control characters kept: %q", got)
	}
}

func TestRenderMarkup_NamedColoursAllocateNothing(t *testing.T) {
	buf := make([]byte, 0, 256)
	src := []byte("{C}The Square{x}\n{y}A dog is here.{x}")
	if n := testing.AllocsPerRun(100, func() { buf = Render(buf[:0], src, Color16) }); n != 0 {
		t.Fatalf("rendering named colours allocated %v times", n)
	}
}

func FuzzRenderMarkup(f *testing.F) {
	for _, s := range []string{"{r}x{x}", "{{", "{#zzzzzz}", "{", "}{", "{#ff00ff}a", "\xff{r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lvl := range Levels {
			out := Render(nil, s, lvl)
			if lvl == None && len(out) > len(s) {
				t.Fatalf("stripping grew %q to %q", s, out)
			}
		}
		esc := Escape(s)
		if got := string(Render(nil, esc, Color16)); got != string(Render(nil, Escape(got), None)) {
			t.Fatalf("escaped text does not render as itself: %q", s)
		}
	})
}

// BenchmarkRenderMarkup renders a line as a crowd's say is rendered for
// every hearer.
func BenchmarkRenderMarkup(b *testing.B) {
	line := []byte("Botabc says, '{W}hello{x}'\n")
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = Render(dst[:0], line, Color256)
	}
}

// What String writes into a character's settings, Parse reads back.
func TestParse_ReadsWhatStringWrote(t *testing.T) {
	for _, l := range Levels {
		if !l.Valid() {
			t.Errorf("%v not valid", l)
		}
		if got, ok := Parse(l.String()); !ok || got != l {
			t.Errorf("Parse(%q) = %v, %v; want %v", l.String(), got, ok, l)
		}
	}
	if (TrueColor + 1).Valid() {
		t.Error("a level past truecolor is valid")
	}
	if _, ok := Parse("loud"); ok {
		t.Error(`Parse("loud") took it`)
	}
}
