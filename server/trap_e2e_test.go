package server_test

import (
	"strings"
	"testing"

	"zonemud/server/servertest"
)

// trapItem is a worn item that will not be dropped and whose on_command
// swallows every command its holder types (but the get and wear that put
// it on them), as a hostile builder might write one. A reset leaves one on
// Temple Street.
const trapItem = `
[items.circlet]
keywords = ["circlet", "iron"]
short = "an iron circlet"
long = "An iron circlet lies here."
wear = "head"
flags = ["nodrop"]
script = """
function on_command(actor, verb, args)
  if verb == "get" or verb == "wear" then return false end
  actor:send("The circlet tightens.")
  return true
end
"""

[[resets]]
item = "circlet"
room = "north_street"
max = 1
`

// A player holding an item whose script swallows every command can still
// look, list what they carry, take it off, drop things, ask for help, walk
// away and quit, in this login and the next; an admin in another zone can
// move them and take the item off them by its prototype.
func TestScripts_TrappingItemLeavesEveryWayOut(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, b []byte) []byte {
		if name == "emberfall.toml" {
			return append(b, trapItem...)
		}
		return b
	})
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("goto whisperwood:room:forest_edge", "Exits:")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	bob.DoExpect("north", "Temple Street")
	bob.DoExpect("get circlet", "You get an iron circlet")
	bob.DoExpect("wear circlet", "an iron circlet")

	// Each command a player needs is the script's for three tries in a
	// row, then goes through.
	escapes := func() {
		t.Helper()
		for _, c := range []struct{ line, want string }{
			{"look", "Temple Street climbs north"},
			{"inventory", "You are carrying"},
			{"equipment", "<worn on head"},
			{"help look", "look"},
			{"remove circlet", "You stop using an iron circlet"},
			{"drop circlet", "circlet"},
		} {
			for i := 0; i < 3; i++ {
				if out := bob.Do(c.line); !strings.Contains(out, "The circlet tightens") {
					t.Fatalf("%s #%d: %q, want the script's answer", c.line, i+1, out)
				}
			}
			out := bob.Do(c.line)
			if !strings.Contains(out, "this time it goes through") || !strings.Contains(out, c.want) {
				t.Fatalf("%s after three swallowed: %q, want it let through (%q)", c.line, out, c.want)
			}
		}
	}
	escapes()
	// The circlet will not be dropped (nodrop) and goes on holding its
	// holder's commands, but not for ever: once every way out was
	// refused they walk.
	bob.DoExpect("wear circlet", "an iron circlet")
	for i := 0; i < 2; i++ {
		if out := bob.Do("north"); !strings.Contains(out, "The circlet tightens") {
			t.Fatalf("north #%d: %q, want the script's refusal", i+1, out)
		}
	}
	bob.DoExpect("south", "you are let through")
	bob.Expect("Emberfall Square")
	// Quit quits, and the next login is no more a prison than this one.
	bob.Quit()
	bob = servertest.Dial(t, srv.TelnetAddr())
	bob.Login("Bob", "secret-bob")
	for i := 0; i < 3; i++ {
		bob.DoExpect("look", "The circlet tightens")
	}
	bob.DoExpect("look", "this time it goes through")
	bob.Expect("Emberfall Square")

	// An admin in another zone moves them, and takes the circlet by its
	// prototype; a player cannot.
	bob.DoExpect("purge ada emberfall:item:circlet", "The circlet tightens")
	ada.DoExpect("transfer bob emberfall:room:inn", "You bring Bob to emberfall:room:inn.")
	ada.DoExpect("purge bob emberfall:item:circlet", "Took 1 item(s) from Bob: an iron circlet.")
	bob.Expect("An iron circlet is taken from you by Ada.")
	if out := bob.Do("inventory"); strings.Contains(out, "circlet") {
		t.Fatalf("inventory after the purge: %q", out)
	}
	bob.DoExpect("equipment", "You are wearing nothing special.")
	ada.DoExpect("purge bob emberfall:item:circlet", "Bob carries nothing that answers to emberfall:item:circlet.")
	bob.Quit()
	bob = servertest.Dial(t, srv.TelnetAddr())
	bob.Login("Bob", "secret-bob")
	bob.DoExpect("equipment", "You are wearing nothing special.")
	bob.DoExpect("purge ada emberfall:item:bread", "Huh?")
}
