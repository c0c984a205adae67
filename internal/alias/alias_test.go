package alias

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func whole(w string) bool { return w == "alias" }

func TestExpand(t *testing.T) {
	e := Expander{Whole: whole, Aliases: map[string]string{
		"gs":   "get sword",
		"k":    "stand;kill $1",
		"ka":   "k $1;say die, $1!",
		"all":  "say $*",
		"lk":   "look auto",
		"look": "look $1;exits",
		"cost": "say it costs $$5",
		"mk":   "say made $1;alias $1 say $2;say unseen",
	}}
	cases := []struct {
		line string
		want []string
	}{
		{"north", []string{"north"}},
		{"n;s; ;e", []string{"n", "s", "e"}},
		{"say one\\; two;s", []string{"say one; two", "s"}},
		{"gs", []string{"get sword"}},
		{"gs bag", []string{"get sword bag"}},
		{"GS bag", []string{"get sword bag"}},
		{"k rat", []string{"stand", "kill rat"}},
		{"ka rat", []string{"stand", "kill rat", "say die, rat!"}},
		{"all hello  there", []string{"say hello  there"}},
		{"look bob", []string{"look bob", "exits"}},
		{"cost", []string{"say it costs $5"}},
		{"alias x n;s", []string{"alias x n;s"}},
		{"n;alias x n;s", []string{"n", "alias x n;s"}},
		{"mk hi hello", []string{"say made hi", "alias hi say hello;say unseen"}},
		{"gsx", []string{"gsx"}},
	}
	for _, c := range cases {
		got, r := e.Expand(c.line)
		if r != "" || !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q) = %q, %q; want %q", c.line, got, r, c.want)
		}
	}
}

// A loop through other aliases is refused whole at expansion, with the
// path it took, and nothing runs; one made by a word typed after an alias
// is caught the same way.
func TestExpand_Loop(t *testing.T) {
	e := Expander{Aliases: map[string]string{"a": "b", "b": "c;n", "c": "a", "x": "$1"}}
	got, r := e.Expand("n;a")
	if got != nil || !strings.Contains(r, "a -> b -> c -> a") {
		t.Errorf("got %q, %q; want a refusal naming a -> b -> c -> a", got, r)
	}
	if got, r := e.Expand("x x"); r != "" || !slices.Equal(got, []string{"x"}) {
		t.Errorf("x x: got %q, %q; want the command x (an alias naming itself)", got, r)
	}
	if _, r := e.Expand("x a"); !strings.Contains(r, "loop") {
		t.Errorf("x a: got %q; want a loop refused", r)
	}
}

// Definitions that would loop, nest too deep or run too much are refused
// with the reason; a wrapper of a command of the same name is not a loop.
func TestCheck(t *testing.T) {
	e := Expander{Whole: whole, Aliases: map[string]string{"a": "b", "b": "c"}}
	if r := e.Check("c", "a"); !strings.Contains(r, "c -> a -> b -> c") {
		t.Errorf("c = a: got %q; want the loop c -> a -> b -> c", r)
	}
	if r := e.Check("c", "say hi;c"); r != "" {
		t.Errorf("c wrapping c: got %q; want it kept", r)
	}
	if r := e.Check("look", "look $1;exits"); r != "" {
		t.Errorf("look wrapping look: got %q", r)
	}
	for _, name := range []string{"alias", "unalias", "quit"} {
		if r := e.Check(name, "n"); !strings.Contains(r, "cannot alias") {
			t.Errorf("%s: got %q; want it refused", name, r)
		}
	}
	for _, name := range []string{"", "a b", "semi;colon", strings.Repeat("x", MaxNameRunes+1), "esc\x1b"} {
		if r := e.Check(name, "n"); r == "" {
			t.Errorf("name %q kept", name)
		}
	}
	if r := e.Check("z", strings.Repeat("n;", MaxBodyRunes)); !strings.Contains(r, "too long") {
		t.Errorf("long body: got %q", r)
	}
	if r := e.Check("z", "  "); r == "" {
		t.Error("an empty expansion was kept")
	}
	// Six deep is one too many.
	deep := Expander{Aliases: map[string]string{"d1": "d2", "d2": "d3", "d3": "d4", "d4": "d5"}}
	if r := deep.Check("d5", "n"); r != "" {
		t.Errorf("five deep: got %q; want it kept", r)
	}
	deep.Aliases["d5"] = "d6"
	if r := deep.Check("d6", "n"); !strings.Contains(r, "deep") {
		t.Errorf("six deep: got %q; want it refused", r)
	}
	if r := deep.Check("d0", "d1"); !strings.Contains(r, "deep") {
		t.Errorf("six deep from above: got %q; want it refused", r)
	}
	// 10 x 10 x 10 x 10 commands: refused long before they are built.
	ten := func(w string) string { return strings.TrimSuffix(strings.Repeat(w+";", 10), ";") }
	big := Expander{Aliases: map[string]string{"t1": ten("t2"), "t2": ten("t3"), "t3": ten("n")}}
	if r := big.Check("t0", ten("t1")); !strings.Contains(r, "more than 20 commands") {
		t.Errorf("10,000 commands: got %q; want it refused", r)
	}
	if _, r := big.Expand("t1"); !strings.Contains(r, "more than 20 commands") {
		t.Errorf("expanding 1,000 commands: got %q; want it refused", r)
	}
	full := Expander{Aliases: map[string]string{}}
	for i := range MaxAliases {
		full.Aliases[fmt.Sprint("a", i)] = "n"
	}
	if r := full.Check("one", "n"); !strings.Contains(r, "as many as you may keep") {
		t.Errorf("alias 51: got %q", r)
	}
	if r := full.Check("a3", "s"); r != "" {
		t.Errorf("redefining one of 50: got %q", r)
	}
}

// $* repeated through nested aliases would build a huge line; it is
// refused as text grows, not after.
func TestExpand_Huge(t *testing.T) {
	e := Expander{Aliases: map[string]string{
		"h1": "h2 $* $* $* $* $* $* $* $*",
		"h2": "h3 $* $* $* $* $* $* $* $*",
		"h3": "h4 $* $* $* $* $* $* $* $*",
		"h4": "say $* $* $* $* $* $* $* $*",
	}}
	got, r := e.Expand("h1 " + strings.Repeat("x", 900))
	if got != nil || !strings.Contains(r, "too much text") {
		t.Errorf("got %d commands, %q; want a refusal", len(got), r)
	}
}

// Control characters and bytes that are not UTF-8 never come out.
func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"say hi":                    "say hi",
		"say \x1b[31mred":           "say [31mred",
		"say \xff\xfb\x01iac":       "say iac",
		"say bell\x07 and\u2028sep": "say bell andsep",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	e := Expander{Aliases: map[string]string{"x": "say \x1bhi\xff"}}
	if got, _ := e.Expand("x"); !slices.Equal(got, []string{"say hi"}) {
		t.Errorf("expansion kept control bytes: %q", got)
	}
}

func TestNeeded(t *testing.T) {
	e := Expander{Aliases: map[string]string{"gs": "get sword"}}
	for line, want := range map[string]bool{"north": false, "gs": true, "GS bag": true, "n;s": true, "gsx": false} {
		if got := e.Needed(line); got != want {
			t.Errorf("Needed(%q) = %v, want %v", line, got, want)
		}
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"n;s", "a x y", "say \\;", "b $1", "alias q n;s", "\xff;\x1b"} {
		f.Add(s)
	}
	e := Expander{Whole: whole, Aliases: map[string]string{"a": "b $2;say $*", "b": "c $1 $1", "c": "say $*;$1", "d": "a;a;a;a"}}
	f.Fuzz(func(t *testing.T, line string) {
		got, r := e.Expand(line)
		if r != "" && got != nil {
			t.Fatalf("both commands and a refusal for %q", line)
		}
		if len(got) > MaxCommands {
			t.Fatalf("%d commands for %q", len(got), line)
		}
		for _, c := range got {
			if c == "" || Clean(c) != c {
				t.Fatalf("command %q from %q", c, line)
			}
		}
	})
}
