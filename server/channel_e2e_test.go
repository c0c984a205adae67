package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// Two players on a channel hear each other wherever they stand; a third,
// who ignores one of them, hears the other but not the ignored one, on
// the channel, in a tell or in a say.
func TestChannel_TwoPlayersAndAnIgnorer(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	c := servertest.Dial(t, srv.TelnetAddr(), 201) // agrees to GMCP
	c.Create("Cato", "secret-c")
	if err := c.Write(append(append([]byte{255, 250, 201}, `Core.Supports.Set ["Comm 1"]`...), 255, 240)); err != nil {
		t.Fatal(err)
	}
	// Bran walks to another zone: the channel reaches across zones.
	for _, dir := range []string{"north", "north", "north"} {
		b.Do(dir)
	}
	c.DoExpect("ignore aria", "You ignore Aria")

	a.DoExpect("gossip hello all", "[Gossip] Aria: hello all")
	b.Expect("[Gossip] Aria: hello all")
	b.DoExpect("gossip hi aria", "[Gossip] Bran: hi aria")
	a.Expect("[Gossip] Bran: hi aria")
	got := c.Expect("[Gossip] Bran: hi aria")
	if strings.Contains(got, "hello all") {
		t.Errorf("Cato, who ignores Aria, heard her: %q", got)
	}
	if !strings.Contains(string(c.Raw()), `Comm.Channel.Text {"channel":"gossip","talker":"Bran","text":"hi aria"}`) {
		t.Errorf("no GMCP Comm.Channel.Text for the line: %q", c.Raw())
	}
	if strings.Contains(string(c.Raw()), `"talker":"Aria"`) {
		t.Error("GMCP carried an ignored talker's line")
	}

	// Tells and says from Aria do not reach Cato either; Bran's do.
	c.Skip()
	a.DoExpect("tell cato psst", "You tell Cato")
	a.DoExpect("say anyone here", "You say")
	b.DoExpect("tell cato hey", "You tell Cato")
	got = c.Expect("Bran tells you, 'hey'")
	if strings.Contains(got, "psst") || strings.Contains(got, "anyone here") {
		t.Errorf("Cato heard Aria's tell or say: %q", got)
	}
	// A tell's GMCP is the object a client's chat capture reads, and comes
	// with the tell's line.
	tell := `Comm.Channel.Text {"channel":"tell","talker":"Bran","text":"hey"}`
	if raw := string(c.Raw()); !strings.Contains(raw, tell) || strings.Index(raw, tell) > strings.Index(raw, "Bran tells you") {
		t.Errorf("the tell's GMCP: want %q just before the line in %q", tell, raw)
	}
	// Unignored, Aria is heard again.
	c.DoExpect("ignore", "You ignore: Aria.")
	c.DoExpect("ignore aria", "You hear Aria again")
	a.DoExpect("gossip back", "[Gossip] Aria: back")
	c.Expect("[Gossip] Aria: back")
}

// A channel alone toggles it; off, a player neither hears it nor speaks
// on it; the role-gated channels are not there for a player.
func TestChannel_ToggleAndRoles(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.DoExpect("ooc", "You no longer hear ooc")
	b.DoExpect("ooc hello", "You have ooc turned off")
	a.DoExpect("ooc one", "[Ooc] Aria: one")
	a.DoExpect("gossip two", "[Gossip] Aria: two")
	if got := b.Expect("[Gossip] Aria: two"); strings.Contains(got, "one") {
		t.Errorf("Bran, with ooc off, heard it: %q", got)
	}
	out := b.DoExpect("channels", "Channels:") + b.Expect("> ")
	if !strings.Contains(out, "ooc") || !strings.Contains(out, "gossip") || strings.Contains(out, "Builders and admins") {
		t.Errorf("channels for a player:\n%s", out)
	}
	b.DoExpect("builder hi", "Huh?")
	b.DoExpect("admin hi", "Huh?")
	// The choice is kept with the character.
	b.Quit()
	b2 := servertest.Dial(t, srv.TelnetAddr())
	b2.Login("Bran", "secret-b")
	b2.DoExpect("ooc hello", "You have ooc turned off")
}

// A channel's history outlives a restart of the server.
func TestChannel_HistoryAfterRestart(t *testing.T) {
	cfg := servertest.Config(t)
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("newbie where is the inn", "[Newbie] Aria: where is the inn")
	a.DoExpect("newbie found it", "[Newbie] Aria: found it")
	// History is read in the order the lines were kept.
	a.DoExpect("newbie history", "The last lines on newbie:")
	a.Expect("where is the inn")
	a.Expect("found it")
	a.Quit()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	srv = servertest.Start(t, cfg)
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.DoExpect("newbie history", "The last lines on newbie:")
	b.Expect("[Newbie] Aria: where is the inn")
	b.Expect("[Newbie] Aria: found it")
	b.DoExpect("ooc history", "nothing yet")
}

// A flood is refused with a line once past the channel's rate; a 4 KiB
// line and one with escape codes and control bytes reach nobody as they
// were typed; the others play on.
func TestChannel_FloodLongAndControlBytes(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "channels.toml" {
			// A window no machine is slow enough to outlast.
			return []byte(strings.Replace(string(data), "[gossip]\n", "[gossip]\nrate = 3\nper_secs = 86400\n", 1))
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	for _, s := range []string{"one", "two", "three"} {
		a.DoExpect("gossip "+s, "[Gossip] Aria: "+s)
	}
	a.DoExpect("gossip four", "talking too fast on gossip")
	b.Expect("[Gossip] Aria: three")
	a.DoExpect("ooc "+strings.Repeat("x", 4096), "too long")
	a.DoExpect("ooc "+strings.Repeat("y", 400), "too long for a channel")
	if err := a.Write([]byte("ooc red \x1b[31mALERT\x07 {R}brace\r\n")); err != nil {
		t.Fatal(err)
	}
	a.Expect("[Ooc] Aria: red")
	got := b.Expect("brace")
	if strings.Contains(got, "\x1b[31m") || strings.Contains(got, "\x07") {
		t.Errorf("control bytes reached another player: %q", got)
	}
	if !strings.Contains(got, "{R}brace") {
		t.Errorf("markup a player typed was not shown as typed: %q", got)
	}
	if strings.Contains(string(b.Raw()), "xxxxxxxxxx") || strings.Contains(string(b.Raw()), "yyyyyyyyyy") {
		t.Error("a refused long line reached another player")
	}
	b.DoExpect("say still here", "You say, 'still here'")
}
