package mail

import (
	"strings"
	"testing"
	"time"
)

func feedAll(t *testing.T, d *Draft, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if st, why := d.Feed(l); st != Took {
			t.Fatalf("Feed(%q) = %v %q, want Took", l, st, why)
		}
	}
}

func TestDraft_SubjectThenBodyThenEnd(t *testing.T) {
	d := NewDraft("Ada", "Bob")
	if d.HasSubject() {
		t.Fatal("a new draft has a subject")
	}
	feedAll(t, d, "  Bread  ", "", "Bring two loaves.", "  indented", "")
	if st, _ := d.Feed(" . "); st != Send {
		t.Fatalf("a lone . = %v, want Send", st)
	}
	at := time.Unix(1000, 0)
	got := d.Letter(at)
	want := Letter{From: "Ada", To: "Bob", At: at, Subject: "Bread", Body: "Bring two loaves.\n  indented"}
	if got != want {
		t.Fatalf("Letter = %+v, want %+v", got, want)
	}
	if err := Check(got); err != nil {
		t.Fatalf("Check of a drafted letter: %v", err)
	}
}

func TestDraft_EmptySubjectAndEmptyBody(t *testing.T) {
	d := NewDraft("Ada", "Bob")
	if st, why := d.Feed("."); st != Refused || why == "" {
		t.Fatalf(". before the subject = %v %q, want Refused with a reason", st, why)
	}
	feedAll(t, d, "")
	if st, _ := d.Feed("."); st != Refused {
		t.Fatalf(". with an empty body = %v, want Refused", st)
	}
	feedAll(t, d, "   ")
	if st, _ := d.Feed("."); st != Refused {
		t.Fatalf(". with a blank body = %v, want Refused", st)
	}
	feedAll(t, d, "hi")
	if st, _ := d.Feed("."); st != Send {
		t.Fatal("not sent with a line in it")
	}
	if l := d.Letter(time.Time{}); l.Subject != NoSubject || l.Body != "hi" {
		t.Fatalf("Letter = %+v", l)
	}
}

func TestDraft_Abort(t *testing.T) {
	d := NewDraft("Ada", "Bob")
	if st, _ := d.Feed("~q"); st != Aborted {
		t.Fatalf("~q as the subject = %v", st)
	}
	feedAll(t, d, "s", "a line")
	if st, _ := d.Feed(" ~q"); st != Aborted {
		t.Fatalf("~q in the body = %v", st)
	}
}

func TestDraft_Bounds(t *testing.T) {
	d := NewDraft("Ada", "Bob")
	if st, why := d.Feed(strings.Repeat("s", MaxSubjectRunes+1)); st != Refused || !strings.Contains(why, "60") {
		t.Fatalf("a long subject = %v %q", st, why)
	}
	if d.HasSubject() {
		t.Fatal("a refused subject was taken")
	}
	feedAll(t, d, strings.Repeat("é", MaxSubjectRunes)) // runes, not bytes
	if st, _ := d.Feed(strings.Repeat("x", MaxLineRunes+1)); st != Refused {
		t.Fatal("a long line was taken")
	}
	feedAll(t, d, strings.Repeat("ü", MaxLineRunes))
	for d.Lines() < MaxLines {
		feedAll(t, d, "short")
	}
	if st, _ := d.Feed("one more"); st != Refused {
		t.Fatal("a line past MaxLines was taken")
	}
	if d.Lines() != MaxLines {
		t.Fatalf("%d lines, want %d", d.Lines(), MaxLines)
	}
	if st, _ := d.Feed("."); st != Send {
		t.Fatal("a full letter cannot be sent")
	}
	if err := Check(d.Letter(time.Time{})); err != nil {
		t.Fatalf("Check of a letter at the bounds: %v", err)
	}

	d = NewDraft("Ada", "Bob")
	feedAll(t, d, "s")
	line := strings.Repeat("y", MaxLineRunes)
	refused := false
	for i := 0; i < MaxLines; i++ {
		if st, _ := d.Feed(line); st == Refused {
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("the body ran past MaxBodyRunes")
	}
	if st, _ := d.Feed("."); st != Send {
		t.Fatal("a letter at its rune bound cannot be sent")
	}
	if l := d.Letter(time.Time{}); len([]rune(l.Body)) > MaxBodyRunes || Check(l) != nil {
		t.Fatalf("body of %d runes, check %v", len([]rune(l.Body)), Check(l))
	}
}

func TestClean_ControlBytesAndIAC(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                            "plain",
		"\x1b[31mred\x1b[0m":               "[31mred[0m",
		"bell\a and\x00 nul":               "bell and nul",
		"iac \xff\xfb\x01 here":            "iac  here",
		"cr\r\nlf":                         "crlf",
		"del\x7f":                          "del",
		"c1 \u009b2J":                      "c1 2J",
		"sep\u2028arator\u2029":            "separator",
		"repl\ufffdacement":                "replacement",
		"  trimmed \t":                     "trimmed",
		"tab\tinside":                      "tab\tinside",
		"{R}markup is the zone's{x}":       "{R}markup is the zone's{x}",
		"caf\xc3\xa9 and half \xc3 a rune": "café and half  a rune",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	d := NewDraft("Ada", "Bob")
	feedAll(t, d, "\x1b[2Jsubj\xff", "line\x07 one\xff\xf9")
	d.Feed(".")
	l := d.Letter(time.Time{})
	if l.Subject != "[2Jsubj" || l.Body != "line one" {
		t.Fatalf("letter %+v", l)
	}
}

func TestCheck_RefusesWhatADraftNeverMakes(t *testing.T) {
	good := Letter{From: "Ada", To: "Bob", Subject: "s", Body: "b"}
	if err := Check(good); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]Letter{
		"no sender":    {To: "Bob", Subject: "s", Body: "b"},
		"no recipient": {From: "Ada", Subject: "s", Body: "b"},
		"no subject":   {From: "Ada", To: "Bob", Body: "b"},
		"long subject": {From: "Ada", To: "Bob", Subject: strings.Repeat("s", MaxSubjectRunes+1), Body: "b"},
		"ESC subject":  {From: "Ada", To: "Bob", Subject: "\x1bs", Body: "b"},
		"empty body":   {From: "Ada", To: "Bob", Subject: "s"},
		"IAC body":     {From: "Ada", To: "Bob", Subject: "s", Body: "a\xffb"},
		"long line":    {From: "Ada", To: "Bob", Subject: "s", Body: strings.Repeat("x", MaxLineRunes+1)},
		"many lines":   {From: "Ada", To: "Bob", Subject: "s", Body: strings.Repeat("x\n", MaxLines) + "x"},
		"long body":    {From: "Ada", To: "Bob", Subject: "s", Body: strings.Repeat(strings.Repeat("x", 100)+"\n", 40) + "x"},
	} {
		if Check(l) == nil {
			t.Errorf("%s: Check passed %+v", name, l)
		}
	}
}
