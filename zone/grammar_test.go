package zone

import (
	"testing"

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
