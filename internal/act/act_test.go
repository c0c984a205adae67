package act

import "testing"

func TestFormat(t *testing.T) {
	cases := []struct{ tmpl, actor, victim, want string }{
		{"$n strikes $N hard.", "a kobold digger", "you", "A kobold digger strikes you hard."},
		{"$n strikes $N hard.", "the wolf", "Aria", "The wolf strikes Aria hard."},
		{"{R}$n is DEAD!{x}", "a kobold digger", "", "{R}A kobold digger is DEAD!{x}"},
		{"{R}{W}$n is DEAD!{x}", "a rat", "", "{R}{W}A rat is DEAD!{x}"},
		{"{{$n}", "a rat", "", "{{a rat}"},
		{"$n has lost $s link.", "Aria", "", "Aria has lost their link."},
		{"Roots hold $n fast.", "a rat", "", "Roots hold a rat fast."},
		{"$n costs $$5 and $x stays.", "an ale", "", "An ale costs $5 and $x stays."},
		{"$n says hi.", "a $N thief", "Bob", "A $N thief says hi."},
		{"trailing $", "x", "", "Trailing $"},
		{"", "x", "", ""},
		{"Élan $n", "Bo", "", "Élan Bo"},
		{"éclair", "", "", "Éclair"},
		{"{#ff8800}$n glows.", "a lamp", "", "{#ff8800}A lamp glows."},
		{"{R", "", "", "{R"},
	}
	for _, c := range cases {
		if got := Format(c.tmpl, c.actor, c.victim); got != c.want {
			t.Errorf("Format(%q, %q, %q) = %q, want %q", c.tmpl, c.actor, c.victim, got, c.want)
		}
	}
}

func TestEscape(t *testing.T) {
	if got := Format("$n's "+Escape("$N-bite")+" hits $N.", "a rat", "you"); got != "A rat's $N-bite hits you." {
		t.Errorf("got %q", got)
	}
}
