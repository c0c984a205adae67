package server_test

import (
	"strings"
	"testing"

	"zonemud/server/servertest"
)

// An admin who goes wizinvis is gone for a player: not in who, not in the
// room, unseen coming and going and logging in, and "Someone" in speech;
// the setting is kept across a login. A player is refused both toggles,
// and the admin's holylight sees in a dark room.
func TestStaff_WizinvisAndHolylight(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = quietAreas(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	player := servertest.Dial(t, srv.TelnetAddr())
	player.Create("Piet", "secret-piet")
	admin := servertest.Dial(t, srv.TelnetAddr())
	admin.Login("Ada", "secret-ada")
	player.Expect("Ada has entered the world.")

	player.DoExpect("wizinvis", "Only staff (builders and admins) can go wizinvis.")
	player.DoExpect("holylight", "Only staff (builders and admins) have holylight.")
	if got := player.Do("who"); !strings.Contains(got, "Ada") {
		t.Fatalf("before wizinvis, who does not list the admin: %q", got)
	}

	admin.DoExpect("wizinvis", "You are wizinvis at level")
	player.Expect("Ada slowly fades into nothingness.")
	// unseen checks that nothing the player read names Ada.
	unseen := func(what, got string) {
		t.Helper()
		if strings.Contains(got, "Ada") {
			t.Errorf("%s: the player sees the wizinvis admin: %q", what, got)
		}
	}
	who := player.Do("who")
	unseen("who", who)
	if !strings.Contains(who, "One player is in the world.") {
		t.Errorf("who counts the wizinvis admin: %q", who)
	}
	unseen("look", player.Do("look"))
	if got := player.Do("look ada"); !strings.Contains(got, "You do not see that here.") {
		t.Errorf("look ada finds the wizinvis admin: %q", got)
	}

	// Walking out and back, then speaking: everything the player is told
	// comes in order, so what arrives before the speech holds any
	// departure or arrival line.
	player.Skip()
	admin.DoExpect("north", "Exits:")
	admin.DoExpect("south", "Exits:")
	admin.DoExpect("say hello there", "You say")
	got := player.Expect("Someone says, 'hello there'")
	unseen("walking out and back", got)
	if strings.Contains(got, "leaves") || strings.Contains(got, "arrives") {
		t.Errorf("the player is told the wizinvis admin came or went: %q", got)
	}
	admin.DoExpect("emote waves.", "Ada waves.")
	got = player.Expect("Someone waves.")
	unseen("emote", got)

	// Kept with the character: quit and log in again unseen.
	admin.Quit()
	admin = servertest.Dial(t, srv.TelnetAddr())
	admin.Login("Ada", "secret-ada")
	admin.DoExpect("say back", "You say")
	got = player.Expect("Someone says, 'back'")
	unseen("quit and login", got)
	if strings.Contains(got, "the world") {
		t.Errorf("the player is told the wizinvis admin left or entered the world: %q", got)
	}
	unseen("who after login", player.Do("who"))

	// A level the player reaches shows the admin to them.
	admin.DoExpect("wizinvis 1", "You are wizinvis at level 1")
	player.Expect("Ada slowly fades into existence.")
	if got := player.Do("who"); !strings.Contains(got, "Ada") {
		t.Errorf("wizinvis 1: a level-1 player's who does not list the admin: %q", got)
	}
	admin.DoExpect("wizinvis off", "You are visible again.")
	admin.DoExpect("wizinvis 99999", "wizinvis [level | off]")

	// Holylight: the admin sees the dark gallery; without it, nothing.
	admin.DoExpect("goto ashridge:room:main_gallery", "It is pitch black.")
	admin.DoExpect("holylight", "Holylight on")
	if got := admin.Do("look"); !strings.Contains(got, "The Main Gallery") {
		t.Errorf("holylight on, look in the dark gallery: %q", got)
	}
	admin.DoExpect("holylight", "Holylight off")
	if got := admin.Do("look"); !strings.Contains(got, "pitch black") {
		t.Errorf("holylight off, look in the dark gallery: %q", got)
	}
}
