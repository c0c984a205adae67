package server_test

import (
	"context"
	"testing"

	"zonemud/server/servertest"
	"zonemud/world"
)

// Nobody is moved into an instance copy by an admin: not by goto to a
// player inside one, nor by transfer to an admin standing in one. Moving
// out of one works.
func TestAdmin_NoTransferIntoAnInstanceCopy(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	copyZone, err := srv.World().Host(context.Background(), world.HostSpec{Template: "sunken_crypt", Instance: true})
	if err != nil {
		t.Fatal(err)
	}
	town := srv.World().Zone("emberfall")
	town.MoveIntoForTest("Bob", copyZone, "sunken_crypt:room:stair")
	bob.Expect("The Crumbling Stair")

	ada.DoExpect("goto bob", "That is inside an instance copy of sunken_crypt; nobody is moved into one.")
	ada.DoExpect("goto sunken_crypt:room:stair", "sunken_crypt is instanceable")

	town.MoveIntoForTest("Ada", copyZone, "sunken_crypt:room:stair")
	ada.Expect("The Crumbling Stair")
	ada.DoExpect("transfer bob", "You stand in an instance copy; nobody is transferred into one.")
	ada.DoExpect("transfer bob emberfall:room:square", "You bring Bob to emberfall:room:square.")
	bob.Expect("Emberfall Square")
	ada.DoExpect("goto emberfall:room:inn", "The Banked Fire")
}

// A builder's goto takes them only into the zones they build.
func TestBuilder_GotoOnlyIntoTheirZones(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	ada.DoExpect("grant bob builder ashridge", "Bob is now a builder of ashridge.")
	bob.Expect("You are now a builder.")
	bob.DoExpect("goto whisperwood:room:forest_edge", "You build only in ashridge; goto takes you there.")
	bob.DoExpect("goto ashridge:room:ridge_road", "Ridge Road")
	ada.DoExpect("goto emberfall:room:inn", "The Banked Fire")
	bob.DoExpect("goto ada", "You build only in ashridge")
	ada.DoExpect("goto bob", "Ridge Road")
}
