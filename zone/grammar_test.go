package zone

import (
	"testing"

	"zonemud/content"
	"zonemud/internal/act"
)

// The act lines of a fight and a death read as English: the victim sits
// where the words put it, and a line that opens with a colour code still
// opens with a capital.
func TestActGrammar(t *testing.T) {
	cases := []struct {
		line, want string
	}{
		{act.Format("$n's bite "+damageWord(7)+".", "a wolf", "you"), "A wolf's bite strikes you hard."},
		{act.Format("Your punch "+damageWord(7)+".", "", "a kobold digger"), "Your punch strikes a kobold digger hard."},
		{act.Format("$n's bite "+damageWord(1)+".", "a wolf", "you"), "A wolf's bite scratches you."},
		{act.Format("$n's bite "+damageWord(0)+".", "a wolf", "Aria"), "A wolf's bite glances off Aria."},
		{act.Format("$n's bite "+damageWord(99)+".", "a wolf", "you"), "A wolf's bite obliterates you."},
		{capFirst("{R}a kobold digger is DEAD!{x}"), "{R}A kobold digger is DEAD!{x}"},
		{act.Format("{R}$n is DEAD!{x}", "a kobold digger", ""), "{R}A kobold digger is DEAD!{x}"},
	}
	for _, c := range cases {
		if c.line != c.want {
			t.Errorf("got %q, want %q", c.line, c.want)
		}
	}
}

// appendLong writes what capFirst(long()) says, and both say what a room
// listing shows, for players with and
// without a title, link-dead, with a name in lower case, and for a mob.
func TestAppendLong_IsCapFirstOfLong(t *testing.T) {
	cases := []struct {
		c    *Char
		want string
	}{
		{&Char{name: "rat", mob: &content.Mob{Long: "a giant rat gnaws at a bone."}}, "A giant rat gnaws at a bone."},
		{&Char{name: "Aria", pl: &Player{}}, "Aria is here."},
		{&Char{name: "Aria", pl: &Player{title: "the Bold", linkDead: true}}, "Aria the Bold is here. (link-dead)"},
		{&Char{name: "brom", pl: &Player{title: "of {Rthe Red{x}"}}, "Brom of {Rthe Red{x} is here."},
		{&Char{name: "Éowyn", pl: &Player{}}, "Éowyn is here."},
	}
	for _, tc := range cases {
		if got := capFirst(tc.c.long()); got != tc.want {
			t.Errorf("%s: long gave %q, want %q", tc.c.name, got, tc.want)
		}
		if got := string(appendLong([]byte("x:"), tc.c)); got != "x:"+tc.want {
			t.Errorf("%s: appendLong gave %q, want %q", tc.c.name, got, "x:"+tc.want)
		}
	}
}
