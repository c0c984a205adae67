package server_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// strawAreas adds a straw target to the edge of the Whisperwood, just over
// the border from Emberfall's north gate: one blow fells it, and it is
// worth a fixed 120 experience.
func strawAreas(t *testing.T) string {
	return servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name != "whisperwood.toml" {
			return data
		}
		return bytes.Replace(data, []byte("# --------------------------------------------------------------- resets\n"), []byte(`[mobs.straw]
keywords = ["straw", "target"]
short = "a straw target"
long = "A straw target stands propped against the woodpile."
description = "A sack of straw lashed to a post, for practice."
level = 1
hp = "1d1"
damage = "1d1"
damage_type = "blunt"
attack_verb = "sway"
attacks = 1
exp = 120

[[resets]]
mob = "straw"
room = "forest_edge"
max = 1

`), 1)
	})
}

// expectRaw waits until what c has read, telnet bytes and all, holds want
// after the byte offset from, and returns the offset just past it.
func expectRaw(t *testing.T, c *servertest.Client, from int, want string) int {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		raw := c.Raw()
		if i := bytes.Index(raw[min(from, len(raw)):], []byte(want)); i >= 0 {
			return min(from, len(raw)) + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in the raw stream: %q", want, raw[min(from, len(raw)):])
		}
	}
}

// A party walks from Emberfall over the zone border into the Whisperwood
// together, each member by their own follow; gsay reaches every member
// but one who ignores the speaker; a kill's experience is shared by
// game.toml's rule among the three standing there; and a member whose
// client asked for it is sent GMCP Group.Info as the party changes.
func TestParty_BorderGsayAndSharedKill(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = strawAreas(t)
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	c := servertest.Dial(t, srv.TelnetAddr(), 201) // agrees to GMCP
	c.Create("Cato", "secret-c")
	if err := c.Write(append(append([]byte{255, 250, 201}, `Core.Supports.Set ["Group 1", "Comm 1"]`...), 255, 240)); err != nil {
		t.Fatal(err)
	}
	b.DoExpect("follow aria", "You now follow Aria.")
	c.DoExpect("follow aria", "You now follow Aria.")
	a.DoExpect("group bran", "Bran joins your party.")
	a.DoExpect("group cato", "Cato joins your party.")
	at := expectRaw(t, c, 0, `Group.Info {"leader":"Aria","members":[{"name":"Aria"`)
	expectRaw(t, c, at, `{"name":"Cato","level":1`)

	b.Skip()
	c.Skip()
	for _, d := range []string{"north", "north", "north"} {
		a.DoExpect(d, "Exits:")
	}
	b.Expect("The North Gate")
	c.Expect("The North Gate")
	a.DoExpect("open gate", "You open")
	a.DoExpect("north", "Edge of the Whisperwood")
	b.Expect("You follow Aria.")
	b.Expect("Edge of the Whisperwood")
	c.Expect("Edge of the Whisperwood")
	// Group.Info follows a member's room over the border.
	at = expectRaw(t, c, at, `"room":"Edge of the Whisperwood"`)

	// gsay, over the border, honours ignore.
	c.DoExpect("ignore bran", "You ignore Bran")
	b.DoExpect("gsay over here", "You tell your party, 'over here'")
	a.Expect("Bran tells the party, 'over here'")
	a.DoExpect("gsay coming", "You tell your party, 'coming'")
	got := c.Expect("Aria tells the party, 'coming'")
	if strings.Contains(got, "over here") {
		t.Fatalf("Cato, who ignores Bran, heard his gsay: %q", got)
	}
	if raw := string(c.Raw()); !strings.Contains(raw, `Comm.Channel.Text {"channel":"party","talker":"Aria","text":"coming"}`) || strings.Contains(raw, `"talker":"Bran"`) {
		t.Fatalf("Cato's GMCP party talk: want Aria's, never Bran's: %q", raw)
	}

	// Three level 1 members share 120 * (100 + 2*10) / 100 = 144 in
	// three equal parts of 48.
	a.Skip()
	b.Skip()
	c.Skip()
	a.Send("kill straw")
	a.Expect("is DEAD!")
	for _, p := range []*servertest.Client{a, b, c} {
		p.Expect("You take your share of the kill.")
		p.Expect("You gain 48 experience.")
	}
	a.DoExpect("ungroup", "You disband your party.")
	expectRaw(t, c, at, `Group.Info {"leader":"","members":[]}`)
}
