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

// appendLong writes what capFirst(long()) says, for players with and
// without a title, link-dead, with a name in lower case, and for a mob.
func TestAppendLong_IsCapFirstOfLong(t *testing.T) {
	mob := &Char{name: "rat", mob: &content.Mob{Long: "a giant rat gnaws at a bone."}}
	chars := []*Char{
		mob,
		{name: "Aria", pl: &Player{}},
		{name: "Aria", pl: &Player{title: "the Bold", linkDead: true}},
		{name: "brom", pl: &Player{title: "of {Rthe Red{x}"}},
		{name: "Éowyn", pl: &Player{}},
	}
	for _, c := range chars {
		want := "x:" + capFirst(c.long())
		if got := string(appendLong([]byte("x:"), c)); got != want {
			t.Errorf("%s: appendLong gave %q, want %q", c.name, got, want)
		}
	}
}
