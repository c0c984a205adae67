package server_test

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// sparring is a cellar mob no fight in a test can kill, so that a test
// which must flee from a fight always has one to flee from, whatever the
// dice.
const sparring = `[mobs.sparring]
keywords = ["sparring", "dummy"]
short = "a sparring dummy"
long = "A straw sparring dummy hangs from a beam, swaying."
description = "Straw and sacking, stitched over and over."
level = 1
hp = "5000"
damage = "1d1"
damage_type = "bludgeon"
attack_verb = "sway"
attacks = 1
armor = 0
dodge = 0

[[resets]]
mob = "sparring"
room = "cellar"
max = 1

`

// gameServer runs the starter world with Emberfall resetting every 3
// seconds, so repops can be seen, and a sparring dummy in the inn's
// cellar, and returns a client of it.
func gameServer(t *testing.T, admins ...string) (*servertest.Client, string) {
	t.Helper()
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			data = bytes.Replace(data, []byte("reset_secs = 300"), []byte("reset_secs = 3"), 1)
			return bytes.Replace(data, []byte("# --------------------------------------------------------------- resets\n"), []byte(sparring), 1)
		}
		return data
	})
	cfg.World.Admins = admins
	for _, a := range admins {
		servertest.Admin(t, cfg, a, strings.ToLower(a)+"-pass")
	}
	srv := servertest.Start(t, cfg)
	return servertest.Dial(t, srv.TelnetAddr()), srv.TelnetAddr()
}

// fightUntil sends cmd and waits until one of the endings shows, within the
// given number of combat rounds.
func waitAny(t *testing.T, c *servertest.Client, d time.Duration, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		s := c.Since()
		for _, w := range wants {
			if i := strings.Index(s, w); i >= 0 {
				c.Skip()
				return w
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("none of %q within %v; got:\n%s", wants, d, c.Since())
	return ""
}

// A new player takes a lantern; walking out of a fight is refused and flee
// works (against a dummy no dice can kill, so the flee always has a fight
// to leave); the player kills a rat in the dark cellar seeing the round
// messages, loots the corpse, gains experience; the rats come back after
// the reset time.
func TestGame_FirstFight(t *testing.T) {
	p, _ := gameServer(t)
	p.Create("Rookie", "rookie-pass")
	p.DoExpect("south", "Banked Fire")
	p.DoExpect("get lantern", "You get a brass lantern")
	p.DoExpect("hold lantern", "You light a brass lantern")
	p.DoExpect("down", "Inn Cellar")
	p.Expect("giant rat")

	// Walking out of a fight is refused; flee works (it may take tries).
	p.DoExpect("kill dummy", "You attack a sparring dummy!")
	p.DoExpect("up", "Flee first")
	for i := 0; ; i++ {
		p.Skip()
		p.Send("flee")
		if w := waitAny(t, p, servertest.ExpectTimeout, "You flee", "could not get away"); w == "You flee" {
			break
		}
		if i > 40 {
			t.Fatal("flee never succeeded in 40 tries")
		}
	}
	p.DoExpect("look", "Exits:")
	// Back down: kill a rat, counting rounds (one round is 2.5 s).
	p.Skip()
	p.Send("down")
	p.Expect("Inn Cellar")
	p.Skip()
	p.Send("kill rat")
	start := time.Now()
	fightText := p.ExpectWithin("is DEAD!", 25*2500*time.Millisecond)
	if !strings.Contains(fightText, "Your punch") {
		t.Fatalf("no round messages before the kill: %q", fightText)
	}
	rounds := int(time.Since(start)/(2500*time.Millisecond)) + 1
	t.Logf("the rat died after about %d rounds", rounds)
	p.Expect("experience")
	p.DoExpect("look in corpse", "corpse")
	p.DoExpect("score", "Experience 32 of 100")

	// The rats come back with the zone's reset.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out := p.DoExpect("look", "Exits:")
		out += p.Expect("> ")
		if strings.Count(out, "giant rat scrabbles") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rats did not repop after the reset time: %q", out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// The path from the square to the spider's hollow in the Whisperwood.
var toSpider = []struct{ cmd, want string }{
	{"north", "Temple Street"}, {"north", "Before the Temple"}, {"north", "The North Gate"},
	{"open gate", "You open the north gate"}, {"north", "Edge of the Whisperwood"}, {"north", "The North Path"},
	{"north", "The Split Oak"}, {"east", "The Thornbrake"}, {"east", "The Wolf Run"},
}

// An aggressive mob attacks on arrival; a player it kills wakes, whole and
// protected, in the recall room (the Whisperwood has no start room).
func TestGame_AggressiveMobAndDeath(t *testing.T) {
	p, _ := gameServer(t)
	p.Create("Victim", "victim-pass")
	for _, step := range toSpider {
		p.DoExpect(step.cmd, step.want)
	}
	p.DoExpect("east", "pitch black")
	p.ExpectWithin("attacks you!", 15*time.Second)
	p.ExpectWithin("You have been slain", 90*time.Second)
	p.Expect("You awaken in")
	p.Expect("Temple")
	out := p.DoExpect("score", "Hit points")
	out += p.Expect("> ")
	if !strings.Contains(out, "42/42") {
		t.Fatalf("not at full health after death: %q", out)
	}
	p.DoExpect("look", "Temple")
}

// A root affect stops movement until it expires. Both players agree to
// player fights; the admin advances to learn entangle.
func TestGame_RootPreventsMovementUntilItExpires(t *testing.T) {
	a, addr := gameServer(t, "Druid")
	a.Login("Druid", "druid-pass")
	b := servertest.Dial(t, addr)
	b.Create("Target", "target-pass")
	a.DoExpect("advance self 3", "Druid is now level 3")
	a.DoExpect("north", "Temple Street")
	b.DoExpect("north", "Temple Street")
	a.DoExpect("pvp", "willing")
	a.DoExpect("entangle target", "You may only fight players who have agreed")
	b.DoExpect("pvp", "willing")
	b.Skip()
	a.DoExpect("entangle target", "Roots burst")
	b.Expect("Roots hold your feet fast")
	b.DoExpect("south", "You cannot move: rooted")
	b.DoExpect("flee", "You cannot flee: rooted")
	b.DoExpect("affects", "rooted")
	b.ExpectWithin("The roots let go of you", 30*time.Second)
	for i := 0; ; i++ {
		b.Skip()
		b.Send("flee")
		if w := waitAny(t, b, servertest.ExpectTimeout, "You flee", "could not get away", "not fighting"); w != "could not get away" {
			break
		}
		if i > 20 {
			t.Fatal("flee never succeeded once the root was gone")
		}
	}
	b.Skip()
	b.Send("look")
	if out := b.Expect("Exits:"); strings.Contains(out, "Temple Street") && !strings.Contains(out, "Emberfall Square") && !strings.Contains(out, "Before the Temple") {
		t.Fatalf("still in Temple Street after the root expired and a flee: %q", out)
	}
}

// What a newcomer tries first does what it says: help names this server's
// SSH port; areas, time, save and score answer truly; the lantern says it
// lights the way; bread is eaten; quit in a fight is refused; get all
// corpse loots the corpse.
func TestGame_NewcomerEdges(t *testing.T) {
	cfg := servertest.Config(t)
	srv := servertest.Start(t, cfg)
	_, port, _ := net.SplitHostPort(srv.SSHAddr())
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Newby", "newby-pass")

	p.DoExpect("help ssh", "-p "+port)
	p.DoExpect("sshkey", "-p "+port)
	out := p.DoExpect("areas", "help world")
	for _, z := range []string{"Emberfall", "The Whisperwood", "Ash Ridge", "The Sunken Crypt"} {
		if !strings.Contains(out, z) {
			t.Errorf("areas does not list %s: %q", z, out)
		}
	}
	if out := p.DoExpect("time", "The world has been up"); strings.Contains(out, "pulses") || !strings.Contains(out, "on day") {
		t.Errorf("time shows the machinery, not the game's time: %q", out)
	}
	p.DoExpect("save", "saved by itself every 10 seconds")
	p.DoExpect("score", "You have played for ") // the figures: zone TestScore_PlayedTimeCountsTheClock

	p.DoExpect("south", "Banked Fire")
	p.DoExpect("get lantern", "You get a brass lantern")
	p.DoExpect("wear lantern", "You light a brass lantern and hold it up to see by.")
	p.DoExpect("east", "Exits:")
	p.DoExpect("get bread", "You get")
	p.DoExpect("eat lantern", "You do not have that.") // worn, not carried
	p.DoExpect("eat bread", "You eat a loaf of brown bread.")
	p.DoExpect("drink bread", "You do not have that.")
	p.DoExpect("west", "Banked Fire")

	p.DoExpect("down", "Inn Cellar")
	p.DoExpect("kill rat", "You attack a giant rat!")
	p.DoExpect("quit", "No way! You are fighting for your life.")
	p.ExpectWithin("is DEAD!", 25*2500*time.Millisecond)
	if out := p.DoExpect("get all corpse", "> "); strings.Contains(out, "You do not see that here") {
		t.Fatalf("get all corpse did not look in the corpse: %q", out)
	}
	p.Quit()
}

// The north gate is one door, though its two sides are in two zones: a
// player who opens it and walks through finds it open behind them and
// walks back; closed from one side, it is closed on the other, and the
// people there hear it.
func TestGame_NorthGateIsOneDoor(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Walker", "walker-pass")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Warder", "warder-pass")
	for _, c := range []*servertest.Client{a, b} {
		c.DoExpect("north", "Temple Street")
		c.DoExpect("north", "Before the Temple")
		c.DoExpect("north", "The North Gate")
	}
	a.DoExpect("open gate", "You open the north gate.")
	a.DoExpect("north", "Edge of the Whisperwood")
	if out := a.Expect("Exits:") + a.Expect("\n"); !strings.Contains(out, "south") || strings.Contains(out, "[south]") {
		t.Fatalf("the gate shows closed behind a player who walked through it: %q", out)
	}
	a.DoExpect("south", "The North Gate")
	a.DoExpect("north", "Edge of the Whisperwood")

	b.DoExpect("close gate", "You close the north gate.")
	a.Expect("The north gate closes from the other side.")
	a.DoExpect("south", "The north gate is closed.")
	a.DoExpect("open gate", "You open the north gate.")
	b.Expect("The north gate opens from the other side.")
	b.DoExpect("north", "Edge of the Whisperwood")
	b.DoExpect("south", "The North Gate")
	a.DoExpect("south", "The North Gate")
}
