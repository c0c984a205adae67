package server_test

import (
	"strings"
	"testing"

	"zonemud/server/servertest"
)

// An alias that chains commands runs each of them once, in order; `;`
// chains on a typed line too, and `\;` keeps one; aliases are kept
// across a new login.
func TestAlias_ChainRunsOnceInOrderAndIsKept(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	a.Expect("Bran has entered")

	a.DoExpect("alias", "You have no aliases.")
	a.DoExpect("alias greet say one;say $1 two;emote waves $*.", "Alias greet now stands for: say one;say $1 two;emote waves $*.")
	out := a.DoExpect("greet big hello", "Aria waves big hello.")
	out += a.Expect("> ")
	for _, w := range []string{"You say, 'one'", "You say, 'big two'"} {
		if strings.Count(out, w) != 1 {
			t.Errorf("%q shown %d times, want once:\n%s", w, strings.Count(out, w), out)
		}
	}
	if i, j := strings.Index(out, "'one'"), strings.Index(out, "'big two'"); i < 0 || j < i || strings.Index(out, "waves") < j {
		t.Errorf("commands out of order:\n%s", out)
	}
	heard := b.Expect("Aria waves big hello.")
	if strings.Count(heard, "Aria says, 'one'") != 1 || strings.Count(heard, "Aria says, 'big two'") != 1 {
		t.Errorf("the room heard:\n%s", heard)
	}

	// A typed line chains; an escaped ; stays in the text.
	a.DoExpect(`say wait\; listen;north`, "You say, 'wait; listen'")
	a.Expect("Temple")
	a.DoExpect("south", "Exits:")
	a.DoExpect("alias zz say got", "Alias zz now stands for: say got")
	a.DoExpect("zz it", "You say, 'got it'")
	a.DoExpect("unalias zz", "Alias zz is forgotten.")
	a.DoExpect("zz it", "Huh?")
	a.DoExpect("alias quit say bye", "You cannot alias quit")
	a.DoExpect("alias unalias n", "You cannot alias unalias")

	a.Quit()
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Login("Aria", "secret-a")
	list := a2.DoExpect("alias", "Your aliases (1 of 50):")
	list += a2.Expect("> ")
	if !strings.Contains(list, "greet  say one;say $1 two;emote waves $*.") {
		t.Errorf("alias list after a new login:\n%s", list)
	}
	a2.DoExpect("greet x", "Aria waves x.")
}

// An alias that would run itself through two others is refused when it is
// made, and so is one that would run 10,000 commands; control and telnet
// bytes never get into an alias.
func TestAlias_LoopAndFloodRefused(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("alias la lb", "now stands for")
	a.DoExpect("alias lb lc", "now stands for")
	a.DoExpect("alias lc la", "That alias would run itself in a loop (lc -> la -> lb -> lc); it was not kept.")
	a.DoExpect("la", "Huh?") // lc is no alias: la runs the command lc

	ten := func(w string) string { return strings.TrimSuffix(strings.Repeat(w+";", 10), ";") }
	a.DoExpect("alias t3 "+ten("say x"), "now stands for")
	a.DoExpect("alias t2 "+ten("t3"), "more than 20 commands; it was not kept.")
	a.DoExpect(strings.Repeat("say y;", 21), "more than 20 commands; nothing was done.")
	if strings.Contains(a.Since()+a.Expect("> "), "You say, 'y'") {
		t.Error("a refused line ran some of its commands")
	}

	a.Skip()
	if err := a.Write([]byte("alias bell say ding\x07\x1b[31m\xff\xffdong\r\n")); err != nil {
		t.Fatal(err)
	}
	def := a.Expect("dong")
	said := a.DoExpect("bell", "dong'")
	for _, s := range []string{def, said} {
		if strings.ContainsAny(s, "\x07\x1b") || strings.Contains(s, "\xff") {
			t.Errorf("control or telnet bytes came back: %q", s)
		}
	}
}
