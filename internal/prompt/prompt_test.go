package prompt

import (
	"strings"
	"testing"
)

type values map[byte]string

func (v values) Value(l byte) string { return v[l] }

var fighter = values{
	'h': "17", 'H': "20", 'm': "5", 'M': "10", 'v': "30", 'V': "40",
	'x': "85", 'X': "15", 'g': "42", 'r': "Emberfall Square", 'e': "n e [s] w",
	'c': "small wounds",
}

func render(format string, v values) string { return string(Render(nil, format, v)) }

func TestRender(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"%h/%H hp %m mana %v mv %g gold %x tnl %r %e %c", "17/20 hp 5 mana 30 mv 42 gold 85 tnl Emberfall Square n e [s] w small wounds > "},
		{"<%hhp %mm %vmv>", "<17hp 5m 30mv> "},
		{"<%hhp %mm %vmv> ", "<17hp 5m 30mv> "},
		{"%h hp ", "17 hp > "},
		{"100%% sure %X", "100% sure 15 > "},
		{"plain", "plain > "},
		{">", "> "},
		{"%c", "> "}, // out of a fight %c is empty: still a prompt
		{"{R}%h{x}hp>", "{R}17{x}hp{x}> "},
		{"{G}%h", "{G}17{x} > "},
	} {
		v := fighter
		if tc.format == "%c" {
			v = values{}
		}
		if got := render(tc.format, v); got != tc.want {
			t.Errorf("Render(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
}

// TestRenderEndsWithPrompt: whatever is typed, the line ends with "> ",
// the mark scripted clients wait for.
func TestRenderEndsWithPrompt(t *testing.T) {
	for _, f := range []string{"", " ", "  >  ", "%%", "%r", "{", "{R}", ">>", "a>b", "%g>%g"} {
		if got := render(f, fighter); !strings.HasSuffix(got, "> ") {
			t.Errorf("Render(%q) = %q: does not end with \"> \"", f, got)
		}
	}
}

func TestRenderAppends(t *testing.T) {
	got := string(Render([]byte("before\n"), "%h", fighter))
	if got != "before\n17 > " {
		t.Errorf("Render after text = %q", got)
	}
}

func TestCheck(t *testing.T) {
	for _, ok := range []string{"%h/%H hp %m mana %v mv %g gold %x tnl %r %e %c", "<%hhp>", "100%%", "{R}%h{x}", "héllo ✓", strings.Repeat("x", MaxLen)} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q) = %v, want nil", ok, err)
		}
	}
	for _, tc := range []struct{ format, says string }{
		{"%q", "%q is not a token"},
		{"%é", "%é is not a token"},
		{"50%", "names no token"},
		{"red \x1b[31m", "control"},
		{"bell\a", "control"},
		{"two\nlines", "control"},
		{"iac \xff\xfb\x01", "control"},
		{"c1 \u009b31m", "control"},
		{"bidi \u202e", "control"},
		{strings.Repeat("x", MaxLen+1), "at most 120"},
	} {
		err := Check(tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Check(%q) = %v, want an error saying %q", tc.format, err, tc.says)
		}
	}
}

func TestCondition(t *testing.T) {
	for _, tc := range []struct {
		hp, most int
		want     string
	}{
		{20, 20, "excellent"}, {19, 20, "a few scratches"}, {15, 20, "small wounds"},
		{10, 20, "quite a few wounds"}, {6, 20, "big nasty wounds"}, {3, 20, "pretty hurt"},
		{1, 20, "awful"}, {0, 20, "bleeding, close to death"}, {5, 0, "excellent"},
	} {
		if got := Condition(tc.hp, tc.most); got != tc.want {
			t.Errorf("Condition(%d, %d) = %q, want %q", tc.hp, tc.most, got, tc.want)
		}
	}
}
