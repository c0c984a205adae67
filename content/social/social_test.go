package social

import (
	"strings"
	"testing"
)

func TestAct_FillsEveryToken(t *testing.T) {
	aria := Them("Aria")
	rat := It("a giant rat")
	for _, tc := range []struct{ format, want string }{
		{"$n smiles at $N.", "Aria smiles at a giant rat."},
		{"$N bites $n.", "A giant rat bites Aria."},
		{"$n pats $M on $S head; $E purrs.", "Aria pats it on its head; it purrs."},
		{"$n hugs $mself; $e beams and waves $s hands.", "Aria hugs themself; they beams and waves their hands."},
		{"costs $$5, $q and $", "Costs $5, $q and $"},
		{"", ""},
	} {
		if got := Act(tc.format, aria, rat); got != tc.want {
			t.Errorf("Act(%q): got %q, want %q", tc.format, got, tc.want)
		}
	}
}

func TestCheck_RefusesUnknownAndMisplacedTokens(t *testing.T) {
	for _, tc := range []struct {
		format string
		target bool
		bad    string
	}{
		{"$n smiles.", false, ""},
		{"$n smiles at $N.", true, ""},
		{"$n smiles at $N.", false, "names a target"},
		{"$n costs $$3.", false, ""},
		{"$x", true, "unknown token $x"},
		{"trailing $", true, "at the end"},
	} {
		err := Check(tc.format, tc.target)
		if tc.bad == "" && err != nil || tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("Check(%q, %v): got %v, want %q", tc.format, tc.target, err, tc.bad)
		}
	}
}

func TestNew_ReportsEveryProblem(t *testing.T) {
	_, probs := New(map[string]Spec{
		"smile":  {CharNoArg: "You smile.", OthersNoArg: "$n smiles at $N."},
		"Bad":    {CharNoArg: "x"},
		"poke":   {CharNoArg: "Poke whom?", CharFound: "You poke $N."},
		"dance":  {Position: "flying"},
		"wave":   {CharNoArg: "You wave.", CharAuto: "You wave at yourself."},
		"listen": {CharNoArg: "You listen.\nHard."},
	})
	want := []string{
		"Bad.: ", "dance.char_no_arg", "dance.position", "listen.char_no_arg", "poke.char_found",
		"smile.others_no_arg", "wave.char_auto",
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.Social+"."+p.Key+": "+p.Msg)
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem %q in:\n%s", w, all)
		}
	}
	tab, probs := New(map[string]Spec{"nod": {CharNoArg: "You nod."}, "bow": {CharNoArg: "You bow."}})
	if probs != nil || tab.Len() != 2 || tab.Names()[0] != "bow" || tab.Find("nod") == nil || tab.Find("no") != nil {
		t.Fatalf("good table: %v, %v", tab.Names(), probs)
	}
	var none *Table
	if none.Find("nod") != nil || none.Len() != 0 {
		t.Fatal("a nil table has socials")
	}
}
