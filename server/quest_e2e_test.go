package server_test

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
	servertest.Admin(t, cfg, "Ada", "secret-a")
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Login("Ada", "secret-a")
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
	a.DoExpect("ask zed is it clear", "There is nobody here by that name.")
	a.DoExpect("ask marda", "Ask whom what?")
	a.DoExpect("ask marda the cellar is clear", "You have finished Rats in the Cellar!")
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

// withoutCryptGuards edits the areas so the Sunken Crypt holds only its
// wight, and a frail one: the test is about the quest, not the fights.
func withoutCryptGuards(name string, data []byte) []byte {
	if name != "sunken_crypt.toml" {
		return data
	}
	data = []byte(strings.Replace(string(data), `hp = "8d10+50"`, `hp = "1d4"`, 1))
	blocks := strings.Split(string(data), "\n[[resets]]\n")
	out := blocks[0]
	for _, b := range blocks[1:] {
		if strings.HasPrefix(b, "mob = ") && !strings.HasPrefix(b, `mob = "wight"`) {
			continue
		}
		out += "\n[[resets]]\n" + b
	}
	return []byte(out)
}

// The barrow quest ends at the wight in a private copy of the Sunken
// Crypt. A party of two goes down together and kills it: both are paid.
// A third member of the party who has the quest too but waits at the door
// outside is not: what happens in the copy counts for those inside it.
func TestQuest_BarrowFinishedInACopyByAParty(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada", "Bob", "Cy"}
	for _, n := range cfg.World.Admins {
		servertest.Admin(t, cfg, n, "secret-"+n)
	}
	cfg.Server.AreasDir = servertest.CopyAreas(t, withoutCryptGuards)
	srv := servertest.Start(t, cfg)
	var cs []*servertest.Client
	for _, n := range []string{"Ada", "Bob", "Cy"} {
		c := servertest.Dial(t, srv.TelnetAddr())
		c.Login(n, "secret-"+n)
		c.DoExpect("quest accept barrow", "The Broken Barrow is for level 8 and above")
		c.DoExpect("advance self 20", "is now level 20.")
		c.DoExpect("quest accept barrow", "You take on The Broken Barrow.")
		c.DoExpect("load emberfall:item:lantern", "> ")
		c.DoExpect("wear lantern", "> ")
		c.DoExpect("goto "+barrowRef, "Find the barrow mound in the Whisperwood: done.")
		c.Expect("Next: Lay the barrow-wight to rest.")
		cs = append(cs, c)
	}
	ada, bob, cy := cs[0], cs[1], cs[2]
	bob.DoExpect("follow ada", "You now follow Ada.")
	cy.DoExpect("follow ada", "You now follow Ada.")
	ada.DoExpect("group bob", "> ")
	ada.DoExpect("group cy", "> ")
	// Cy steps away from the door, so only Ada and Bob go down.
	cy.DoExpect("unfollow", "You stop following Ada.")
	cy.DoExpect("south", "> ")
	ada.DoExpect("down", "The Crumbling Stair")
	bob.Expect("The Crumbling Stair")
	for _, d := range []string{"north", "north", "north", "down", "north", "north"} {
		ada.DoExpect(d, "> ")
		bob.Expect("Exits:")
	}
	ada.Expect("barrow-wight")
	ada.Send("kill wight")
	ada.Expect("is DEAD!")
	for _, c := range []*servertest.Client{ada, bob} {
		c.Expect("Lay the barrow-wight to rest: done.")
		c.Expect("You have finished The Broken Barrow!")
		c.Expect("You receive 60 gold coins.")
		c.Expect("You gain 1200 experience.")
		c.DoExpect("quest", "Done: The Broken Barrow.")
	}
	cy.DoExpect("quest", "1. The Broken Barrow: Lay the barrow-wight to rest")
	if strings.Contains(string(cy.Raw()), "finished The Broken Barrow") {
		t.Error("a party member outside the copy was paid for the kill inside it")
	}
}

// The mine job: a fetch step met by picking the stone up, a give step that
// takes the stone from the player for good (one of two carried), a reward
// item made new, and after a restart the sword is there and no stone.
// The store's checks at the end of the test hold the item ledger to it.
func TestQuest_FetchAndGiveAtTheSmith(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-a")
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Login("Ada", "secret-a")
	a.DoExpect("advance self 4", "Ada is now level 4.")
	a.DoExpect("goto emberfall:room:smithy", "Brannoc the smith")
	a.DoExpect("quest list", "1. Ember-stone for the Forge (level 4)")
	a.DoExpect("quest accept ember", "You take on Ember-stone for the Forge.")
	a.DoExpect("give stone brannoc", "You do not have that.")
	a.DoExpect("load ashridge:item:ember_stone", "> ")
	a.DoExpect("drop stone", "> ")
	a.DoExpect("get stone", "Find a lump of ember-stone in the Ashridge mine: done.")
	a.Expect("Next: Give the ember-stone to Brannoc.")
	a.DoExpect("load ashridge:item:ember_stone", "> ")
	a.DoExpect("give stone brannoc", "Give the ember-stone to Brannoc: done.")
	a.Expect("You have finished Ember-stone for the Forge!")
	a.Expect("You receive a plain short sword.")
	inv := a.DoExpect("inventory", "> ")
	if strings.Count(inv, "ember-stone") != 1 || !strings.Contains(inv, "a plain short sword") {
		t.Errorf("after the give, want one stone and the sword:\n%s", inv)
	}
	// The quest is done: the second stone is only a gift, kept by Brannoc.
	if got := a.DoExpect("give stone brannoc", "> "); strings.Contains(got, "finished") {
		t.Errorf("paid twice: %q", got)
	}
	a.Quit()
	stop(t, srv)
	srv = servertest.Start(t, cfg)
	a = servertest.Dial(t, srv.TelnetAddr())
	a.Login("Ada", "secret-a")
	inv = a.DoExpect("inventory", "> ")
	if strings.Contains(inv, "ember-stone") || strings.Count(inv, "a plain short sword") != 1 {
		t.Errorf("after a restart, want the sword and no stone:\n%s", inv)
	}
	a.DoExpect("quest", "Done: Ember-stone for the Forge.")
}

// Sister Maelis's script gives the barrow quest to whoever speaks of the
// barrow, refusing one below its level with the quest's own line; a
// client that asked for Char gets the log as GMCP Char.Quests.
func TestQuest_ScriptStartsTheBarrow(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-a")
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr(), 201) // agrees to GMCP
	a.Login("Ada", "secret-a")
	if err := a.Write(append(append([]byte{255, 250, 201}, `Core.Supports.Set ["Char 1"]`...), 255, 240)); err != nil {
		t.Fatal(err)
	}
	a.DoExpect("goto emberfall:room:temple", "Sister Maelis")
	a.DoExpect("say the barrow", "The Broken Barrow is for level 8 and above; you are level 1.")
	a.DoExpect("advance self 8", "Ada is now level 8.")
	a.DoExpect("say the barrow", "You take on The Broken Barrow.")
	a.Expect("Then go with the Hearth's blessing")
	a.DoExpect("say the barrow?", "North through the Whisperwood")
	a.DoExpect("quest list", "The Broken Barrow (level 8): under way")
	want := `Char.Quests {"active":[{"id":"barrow","name":"The Broken Barrow","step":1,"steps":2,"text":"Find the barrow mound in the Whisperwood","count":0,"needed":1}],"done":[]}`
	if !strings.Contains(string(a.Raw()), want) {
		t.Errorf("no GMCP %s in %q", want, a.Raw())
	}
}
