package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"zonemud/internal/mail"
	"zonemud/server/servertest"
)

// A letter is written over several lines to a player who is away, kept
// across a restart of the server, announced at their login, read and
// thrown away; a name that is no character is refused before any line is
// written, and ~q gives a letter up.
func TestMail_SentReadAfterLoginDeleted(t *testing.T) {
	cfg := servertest.Config(t)
	srv := servertest.Start(t, cfg)
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.Quit()

	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("mail zed", "There is no player called Zed.")
	a.DoExpect("say still a command", "You say, 'still a command'")
	a.DoExpect("mail 12", "There is no player by that name.")
	a.DoExpect("mail bran Hello there", "Just the name: mail bran.")
	a.DoExpect("mail bran", "You write a letter to Bran.")
	a.DoExpect("The inn", "Now the body")
	// Every line is the letter's: no ; chain, no command, no alias.
	a.DoExpect("alias x say oops", "> ")
	a.DoExpect("Meet me at dusk; bring a light.", "> ")
	a.DoExpect("", "> ")
	a.DoExpect("quit", "> ")
	a.DoExpect(".", "Your letter to Bran is sent.")
	a.DoExpect("say back to commands", "You say, 'back to commands'")
	a.DoExpect("mail bran", "You write a letter to Bran.")
	a.DoExpect("never sent", "Now the body")
	a.DoExpect("~q", "You give up your letter to Bran.")
	a.Quit()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	srv = servertest.Start(t, cfg)

	b = servertest.Dial(t, srv.TelnetAddr())
	b.Enter("Bran", "secret-b")
	b.Expect("You have new mail.")
	list := b.DoExpect("mail", "Type mail read <n>")
	if !strings.Contains(list, "holds 1 letter (50 at most)") || !strings.Contains(list, " 1  new  ") || !strings.Contains(list, "Aria") || !strings.Contains(list, "The inn") {
		t.Fatalf("the list:\n%s", list)
	}
	b.DoExpect("mail read 1", "Letter 1, from Aria,")
	b.Expect("Subject: The inn")
	b.Expect("alias x say oops")
	b.Expect("Meet me at dusk; bring a light.")
	b.Expect("quit")
	if got := b.DoExpect("mail", "Type mail read <n>"); strings.Contains(got, "new") {
		t.Errorf("a letter read is still new:\n%s", got)
	}
	b.DoExpect("mail read 2", "You have no letter 2.")
	b.DoExpect("mail read two", "Which letter?")
	b.DoExpect("mail delete 1", "You throw away letter 1, from Aria (The inn).")
	b.DoExpect("mail", "You have no mail.")
	b.DoExpect("mail read 1", "You have no letter 1.")
	b.Quit()
	b = servertest.Dial(t, srv.TelnetAddr())
	b.Login("Bran", "secret-b")
	if got := b.Do("look"); strings.Contains(got, "new mail") {
		t.Errorf("told of new mail with an empty box: %q", got)
	}
}

// A player in the world is told at once when a letter comes, in another
// zone than its writer's. A box holds 50 letters: the 51st is refused,
// before and at its sending, and the 50 are all kept; a deleted letter
// makes room again.
func TestMail_RecipientToldAndBoxBound(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.DoExpect("east", "Cinder Lane")
	b.DoExpect("east", "Exits:")
	b.DoExpect("east", "Ridge Road")
	if za, zb := srv.World().Where("Aria"), srv.World().Where("Bran"); za == nil || zb == nil || za.ID() != "emberfall" || zb.ID() != "ashridge" {
		t.Fatalf("Aria held by %v, Bran by %v: want emberfall and ashridge", za, zb)
	}
	for i := 1; i <= mail.BoxSize; i++ {
		a.Skip()
		// The lines wait their turn behind each answer.
		a.Send("mail bran")
		a.Send(fmt.Sprintf("letter %d", i))
		a.Send("body")
		a.Send(".")
		a.Expect("Your letter to Bran is sent.")
		if i == 1 {
			b.Expect("You have new mail.")
		}
	}
	a.DoExpect("mail bran", "Bran's mailbox is full (50 letters)")
	a.DoExpect("say not writing", "You say, 'not writing'")

	// Room checked at the start, then the box filled while writing: the
	// letter is refused at its sending.
	b.DoExpect("mail delete 1", "You throw away letter 1")
	a.DoExpect("mail bran", "You write a letter to Bran.")
	a.DoExpect("late", "Now the body")
	a.DoExpect("body", "> ")
	c := servertest.Dial(t, srv.TelnetAddr())
	c.Create("Cole", "secret-c")
	c.DoExpect("mail bran", "You write a letter to Bran.")
	c.Send("first")
	c.Send("body")
	c.DoExpect(".", "Your letter to Bran is sent.")
	a.DoExpect(".", "Bran's mailbox is full (50 letters); your letter was not sent.")

	list := b.DoExpect("mail", "Type mail read <n>")
	if !strings.Contains(list, "holds 50 letters") || !strings.Contains(list, "letter 2\r\n") || !strings.Contains(list, "first") || strings.Contains(list, "late") {
		t.Fatalf("the box after the bound:\n%s", list)
	}
	if n := strings.Count(list, "\n  "); n != mail.BoxSize {
		t.Fatalf("%d letters listed, want %d", n, mail.BoxSize)
	}
}

// What a writer types reaches the reader cleaned: no escape code, bell or
// stray byte, colour markup shown as typed; lines past the bounds are
// refused with a line and the letter goes on.
func TestMail_GarbageInput(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")

	a.DoExpect("mail bran", "You write a letter to Bran.")
	a.DoExpect(strings.Repeat("s", mail.MaxSubjectRunes+1), "A subject is 60 characters at most")
	a.Skip()
	// An escape code, an escaped IAC (a 255 data byte), an IAC NOP the
	// decoder takes out, a bell and a C1 control.
	if err := a.Write([]byte("\x1b[2J{R}Hi\xff\xff\xff\xf1 there\a\xc2\x9b\r\n")); err != nil {
		t.Fatal(err)
	}
	a.Expect("Now the body")
	a.DoExpect(".", "Your letter has nothing in it yet")
	a.DoExpect(strings.Repeat("x", mail.MaxLineRunes+1), "A line of a letter is 200 characters at most")
	a.Skip()
	if err := a.Write([]byte("body\x1b]0;title\a {x}{B}end\r\n")); err != nil {
		t.Fatal(err)
	}
	a.Expect("> ")
	a.DoExpect(".", "Your letter to Bran is sent.")

	b.Expect("You have new mail.")
	start := len(b.Raw())
	b.DoExpect("mail read 1", "Letter 1, from Aria")
	// The gate's decoder takes escape sequences out whole and reads a
	// line that is not UTF-8 as Latin-1; whatever is left, the letter
	// holds no control byte and its markup is shown as typed.
	b.Expect("Subject: {R}Hi")
	b.Expect(" there")
	b.Expect("body")
	b.Expect(" {x}{B}end")
	b.Expect("> ")
	raw := string(b.Raw()[start:])
	i := strings.Index(raw, "Subject:")
	letter := raw[i : i+strings.Index(raw[i:], "> ")]
	for _, bad := range []string{"\x1b", "\a", "\x9b", "\xff", "xxxxx"} {
		if strings.Contains(letter, bad) {
			t.Errorf("the reader got %q:\n%q", bad, letter)
		}
	}
}
