package server_test

import (
	"strings"
	"testing"

	"zonemud/server/servertest"
	"zonemud/zone"
)

// Every command, typed by an admin (who may type them all) with garbage
// after it, answers with a prompt and harms nobody: no fault in any zone,
// the admin still connected and answered, another player untouched. The
// table is walked, so a command added later is fed garbage too. Left out:
// the ones whose whole point is to end or copy the world or the session
// (quit, shutdown, reboot, backup), each of which has tests of its own.
func TestCommands_GarbageArgumentsAreRefusedNotFatal(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = quietAreas(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	ada.Expect("Bob has entered the world.")
	ada.Expect("> ")

	skip := map[string]bool{"quit": true, "shutdown": true, "reboot": true, "backup": true}
	garbage := []string{
		"$%^&*()", strings.Repeat("x", 300), "-1", "99999999999999999999999",
		"emberfall:room:nowhere", "#", "'", "\"", "a b c d e f g h i j k l m n o p",
	}
	names := zone.CommandNamesForTest()
	if len(names) < 50 {
		t.Fatalf("only %d commands in the table", len(names))
	}
	tried := 0
	for _, name := range names {
		if skip[name] {
			continue
		}
		for _, g := range garbage {
			ada.Do(name + " " + g) // an answer ending in a prompt, or the test fails on the connection
			tried++
		}
	}
	ada.Do("wake")
	ada.DoExpect("look", "Exits:")
	bob.DoExpect("look", "Exits:")
	for _, z := range srv.World().Zones() {
		if n := z.Faults(); n != 0 {
			t.Errorf("zone %s recovered %d faults from garbage arguments", z.ID(), n)
		}
	}
	t.Logf("%d commands with garbage, %d lines", len(names)-len(skip), tried)
}
