package server_test

import (
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// The core journey of two players over real telnet connections: they meet
// in the start room, talk, one walks into another zone, both appear in
// who, a dropped line leaves a link-dead character that resumes, and quit
// leaves at once.
func TestE2E_TwoPlayers(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()

	a := servertest.Dial(t, addr)
	a.Create("Aria", "aria-pass")
	b := servertest.Dial(t, addr)
	b.Create("Bren", "bren-pass")
	a.Expect("Bren has entered the world.")

	// Both stand in the start room and see each other.
	a.DoExpect("look", "Emberfall Square")
	a.Expect("Bren is here.")
	b.DoExpect("look", "Emberfall Square")
	b.Expect("Aria is here.")

	// A say reaches the other.
	a.Skip()
	b.Do("say well met")
	a.Expect("Bren says, 'well met'")

	// Bren walks east twice, then over the border into Ash Ridge.
	b.DoExpect("east", "Cinder Lane")
	a.Expect("Bren leaves east.")
	b.DoExpect("east", "Exits:")
	b.DoExpect("east", "Ridge Road")
	if z := srv.World().Where("Bren"); z == nil || z.ID() != "ashridge" {
		t.Fatalf("Bren is held by %v, want ashridge", z)
	}
	b.DoExpect("west", "Exits:")
	b.DoExpect("east", "Ridge Road")

	// who lists both, from either zone.
	for _, c := range []*servertest.Client{a, b} {
		out := c.DoExpect("who", "players are in the world")
		if !strings.Contains(out, "Aria") || !strings.Contains(out, "Bren") || !strings.Contains(out, "2 players") {
			t.Fatalf("who: %q", out)
		}
	}

	// A tell crosses zones.
	a.Skip()
	b.Do("tell aria the ridge is cold")
	a.Expect("Bren tells you, 'the ridge is cold'")
	a.DoExpect("reply good", "You tell Bren, 'good'")
	b.Expect("Aria tells you, 'good'")

	// Bren's line drops: the character stays, link-dead, and resumes on a
	// new login within the window, where it stood.
	b.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := a.DoExpect("who", "in the world")
		if strings.Contains(out, "Bren") && strings.Contains(out, "(link-dead)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Bren not shown link-dead: %q", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b2 := servertest.Dial(t, addr)
	b2.Expect("name")
	b2.Send("bren")
	b2.Expect("password")
	b2.Send("bren-pass")
	b2.Expect("Reconnecting")
	b2.DoExpect("look", "Ridge Road")

	// quit removes the character at once.
	b2.Send("quit")
	b2.Expect("Farewell")
	if !b2.WaitClosed(15 * time.Second) {
		t.Fatal("quit did not close the connection")
	}
	// Other zones read a roster the quitter's zone publishes after the
	// batch that held the quit, so who may lag the farewell by a moment.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out := a.DoExpect("who", "in the world")
		if !strings.Contains(out, "Bren") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Bren still in who after quit: %q", out)
		}
	}
	if z := srv.World().Where("Bren"); z != nil {
		t.Fatalf("Bren still resident in %s after quit", z.ID())
	}
}

// A second login of a character that is online takes it over and tells the
// old connection why.
func TestE2E_TakeoverTellsOldConnection(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Cato", "cato-pass")
	a.DoExpect("north", "Temple Street")
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Expect("name")
	a2.Send("Cato")
	a2.Expect("password")
	a2.Send("cato-pass")
	a2.Expect("You take over your character")
	a.Expect("logged in from another connection")
	if !a.WaitClosed(15 * time.Second) {
		t.Fatal("old connection not closed on takeover")
	}
	a2.DoExpect("look", "Temple Street")
}

// A character left link-dead past the window is saved and leaves the world;
// the next login loads it where it stood.
func TestE2E_LinkDeadReap(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Zone.LinkDeadSecs = 1
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Dara", "dara-pass")
	a.DoExpect("west", "Market")
	a.Close()
	deadline := time.Now().Add(30 * time.Second)
	for srv.World().Where("Dara") != nil {
		if time.Now().After(deadline) {
			t.Fatal("link-dead character not reaped after the window")
		}
		time.Sleep(50 * time.Millisecond)
	}
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Login("Dara", "dara-pass")
	a2.DoExpect("look", "Market")
}

func TestE2E_WrongPasswordAndBadNames(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Esme", "esme-pass")
	a.Quit()

	c := servertest.Dial(t, srv.TelnetAddr())
	c.Expect(servertest.NamePrompt)
	for _, bad := range []string{"", "x", "Esme the Great", "Ünïcode", "self", "north", strings.Repeat("a", 21), "rat"} {
		c.Send(bad)
		c.Expect(servertest.NamePrompt) // refused, asked again
	}
	// An escape sequence never reaches a name: the telnet decoder drops it
	// from the line, so what is left is offered as the name.
	c.Send("A\x1b[31mB")
	c.Expect("Did I get that right, Ab (y/n)?")
	c.Send("n")
	c.Expect(servertest.NamePrompt)
	c.Send("esme")
	c.Expect("password")
	c.Send("wrong")
	c.ExpectWithin("Wrong password", 30*time.Second)
	c.Send("esme-pass")
	c.Expect("Exits:")

	// An empty password is refused for a new character.
	d := servertest.Dial(t, srv.TelnetAddr())
	d.Expect("name")
	d.Send("Fenn")
	d.Expect("(y/n)")
	d.Send("y")
	d.Expect("password")
	d.Send("")
	d.Expect("empty password")
	d.Expect("password")
}
