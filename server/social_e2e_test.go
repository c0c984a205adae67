package server_test

import (
	"strings"
	"testing"

	"zonemud/server/servertest"
)

// A social without a target, at a target, and at oneself, as the actor,
// the target and a bystander each see it.
func TestSocial_SeenByActorTargetAndBystander(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	c := servertest.Dial(t, srv.TelnetAddr())
	c.Create("Cato", "secret-c")
	a.Expect("Cato has entered")
	b.Expect("Cato has entered")

	a.DoExpect("smile", "You smile happily.")
	b.Expect("Aria smiles happily.")
	c.Expect("Aria smiles happily.")

	a.DoExpect("smile bran", "You smile at Bran.")
	b.Expect("Aria smiles at you.")
	c.Expect("Aria smiles at Bran.")
	// The target sees its own line, not the room's as well.
	b.DoExpect("look", "Exits:")
	if strings.Contains(b.Since()+b.Expect("> "), "Aria smiles at Bran") {
		t.Error("the target also saw the room's line")
	}

	a.DoExpect("pat self", "You pat yourself on the back.")
	c.Expect("Aria pats themself on the back.")
	a.DoExpect("pat cato", "You pat Cato on their head.")
	c.Expect("Aria pats you on your head.")
	b.Expect("Aria pats Cato on their head.")

	// socials lists them.
	out := a.DoExpect("socials", "Socials:")
	out += a.Expect("> ")
	for _, s := range []string{"bow", "hug", "wave", "thank"} {
		if !strings.Contains(out, s) {
			t.Errorf("socials does not list %s:\n%s", s, out)
		}
	}
}

// A target who is not there is refused without echoing what was typed,
// so escape codes or telnet bytes in it reach nobody, and the room hears
// nothing.
func TestSocial_MissingTargetNotEchoed(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	a.Expect("Bran has entered")
	a.Skip()
	b.Skip()
	if err := a.Write([]byte("smile \x1b[31mzed\x07\r\n")); err != nil {
		t.Fatal(err)
	}
	a.Expect("They aren't here.")
	a.DoExpect("hug nobody", "They aren't here.")
	b.Send("say done")
	if got := b.Expect("You say, 'done'"); strings.Contains(got, "Aria") {
		t.Errorf("the room heard a refused social: %q", got)
	}
	for _, raw := range [][]byte{a.Raw(), b.Raw()} {
		if strings.Contains(string(raw), "\x1b[31mzed") || strings.Contains(string(raw), "zed") {
			t.Errorf("the typed target came back: %q", raw)
		}
	}
	// Asleep, a social that needs one awake is refused; snore is not.
	a.DoExpect("sleep", "go to sleep")
	a.DoExpect("dance", "In your dreams")
	a.DoExpect("snore", "You snore loudly.")
	b.Expect("Aria snores loudly.")
}
