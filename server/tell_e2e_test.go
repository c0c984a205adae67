package server_test

import (
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
	"zonemud/zone"
)

// A tell to a player who is not in the world is kept and shown at their
// next login; one to a name that is no character, or to oneself, is
// refused with a line.
func TestTell_OfflineDeliveredAtLogin(t *testing.T) {
	srv := servertest.Start(t, nil)
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.Quit()
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("tell bran the inn at dusk", "kept for them (1 waiting)")
	a.DoExpect("tell bran and bring a light", "(2 waiting)")
	a.DoExpect("tell zed hello", "There is no player called Zed.")
	a.DoExpect("tell aria hello", "You mutter to yourself.")
	a.DoExpect("tell 1234 hello", "There is no player by that name.")

	b2 := servertest.Dial(t, srv.TelnetAddr())
	b2.Enter("Bran", "secret-b")
	b2.Expect("While you were away, 2 tells came for you:")
	b2.Expect("Aria told you, 'the inn at dusk'")
	b2.Expect("Aria told you, 'and bring a light'")
	// reply answers the last of them; the tells are gone once shown.
	b2.DoExpect("reply on my way", "You tell Aria, '")
	a.Expect("Bran tells you, 'on my way'")
	b2.Quit()
	b3 := servertest.Dial(t, srv.TelnetAddr())
	b3.Login("Bran", "secret-b")
	b3.DoExpect("look", "Exits:")
	if got := string(b3.Raw()); strings.Contains(got, "While you were away") {
		t.Errorf("kept tells shown twice: %q", got)
	}
}

// A player who is away answers tells with their message, and hears how
// many came when back; a tell flood is refused with a line.
func TestTell_AFKAndFlood(t *testing.T) {
	zone.SetTellRateForTest(t, 3, 24*time.Hour)
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bran", "secret-b")
	b.DoExpect("afk gone fishing", "You are away from the keyboard")
	a.DoExpect("tell bran one", "You tell Bran")
	a.Expect("Bran is away from the keyboard: gone fishing")
	b.Expect("Aria tells you, 'one'")
	a.DoExpect("tell bran two", "You tell Bran")
	a.DoExpect("tell bran three", "You tell Bran")
	a.DoExpect("tell bran four", "sending tells too fast")
	b.Expect("Aria tells you, 'three'")
	b.DoExpect("afk", "You are back at the keyboard. 3 tells came while you were away.")
	if strings.Contains(string(b.Raw()), "four") {
		t.Error("a refused tell was delivered")
	}
}
