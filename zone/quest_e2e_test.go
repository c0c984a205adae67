package zone_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// stop shuts a server down, for a test that starts another on its data.
func stop(t *testing.T, srv interface{ Shutdown(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// killRat makes a giant rat where c stands and kills it.
func killRat(c *servertest.Client) string {
	c.DoExpect("load emberfall:mob:rat", "> ")
	c.Send("kill rat")
	return c.Expect("is DEAD!")
}

// The rats job from the Emberfall board, over telnet: taken at the board,
// refused when taken twice or out of order, its kills counted and kept
// across a restart, finished by speaking to Marda, paid once, and still
// done after another restart.
func TestQuest_AcceptToRewardAcrossRestart(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Ada", "secret-a")
	a.DoExpect("quest", "You have no quests under way.")
	out := a.DoExpect("quest list", "quest accept <n> takes one")
	for _, want := range []string{"Quests offered here:", "1. Rats in the Cellar (level 1)", "2. Wolves on the Road (level 2): after Rats in the Cellar", "The Broken Barrow (level 8): not yet for you"} {
		if !strings.Contains(out, want) {
			t.Errorf("quest list lacks %q:\n%s", want, out)
		}
	}
	a.DoExpect("quest accept 9", "There are only 4 quests offered here.")
	a.DoExpect("quest accept wolves", "You must finish Rats in the Cellar before Wolves on the Road.")
	a.DoExpect("quest accept barrow", "The Broken Barrow is for level 8 and above; you are level 1.")
	a.DoExpect("quest accept rats", "You take on Rats in the Cellar.")
	a.Expect("First: Kill giant rats in the inn's cellar (0/3).")
	a.DoExpect("quest accept rats", "You are already on Rats in the Cellar.")
	a.DoExpect("quest info 2", "There is only 1 quest in your log.")
	a.DoExpect("quest abandon mine", "No quest in your log is called that.")
	a.DoExpect("quest info 1", "[>] Kill giant rats in the inn's cellar (0/3)")
	a.DoExpect("advance self 10", "Ada is now level 10.")
	killRat(a)
	a.Expect("Quest Rats in the Cellar: Kill giant rats in the inn's cellar (1/3).")
	a.Quit()

	stop(t, srv)
	srv = servertest.Start(t, cfg)
	a = servertest.Dial(t, srv.TelnetAddr())
	a.Login("Ada", "secret-a")
	a.DoExpect("quest", "1. Rats in the Cellar: Kill giant rats in the inn's cellar (1/3)")
	killRat(a)
	a.Expect("(2/3)")
	killRat(a)
	a.Expect("Kill giant rats in the inn's cellar: done.")
	a.Expect("Next: Tell Marda the cellar is clear.")
	a.DoExpect("goto emberfall:room:inn", "The Banked Fire")
	gold := goldOf(t, a)
	a.DoExpect("say the cellar is clear", "You have finished Rats in the Cellar!")
	a.Expect("You receive 10 gold coins.")
	a.Expect("You receive a loaf of brown bread.")
	a.Expect("You gain 150 experience.")
	if got := a.Do("say and the rats are gone"); strings.Contains(got, "finished") || strings.Contains(got, "You receive") {
		t.Errorf("paid twice: %q", got)
	}
	if g := goldOf(t, a); g != gold+10 {
		t.Errorf("gold %d after the reward, want %d", g, gold+10)
	}
	a.Quit()

	stop(t, srv)
	srv = servertest.Start(t, cfg)
	a = servertest.Dial(t, srv.TelnetAddr())
	a.Login("Ada", "secret-a")
	a.DoExpect("quest", "Done: Rats in the Cellar.")
	a.DoExpect("inventory", "a loaf of brown bread")
	if g := goldOf(t, a); g != gold+10 {
		t.Errorf("gold %d after a restart, want %d", g, gold+10)
	}
	a.DoExpect("goto emberfall:room:square", "Emberfall Square")
	a.DoExpect("quest accept rats", "You have already done Rats in the Cellar.")
	a.DoExpect("quest accept wolves", "You take on Wolves on the Road.")
	a.DoExpect("quest abandon 1", "You abandon Wolves on the Road.")
	a.DoExpect("quest abandon 1", "There are no quests in your log.")
	a.DoExpect("quest", "You have no quests under way.")
}

// goldOf reads the gold score shows.
func goldOf(t *testing.T, c *servertest.Client) int {
	t.Helper()
	out := c.DoExpect("score", "> ")
	i := strings.Index(out, "you carry ")
	if i < 0 {
		t.Fatalf("score shows no gold: %q", out)
	}
	n := 0
	for _, r := range out[i+len("you carry "):] {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
