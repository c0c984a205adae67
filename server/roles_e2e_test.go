package server_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
	"zonemud/zone"
)

// quietAreas is the starter world with no wandering mobs, so that two
// answers to the same kind of command can be compared byte for byte.
func quietAreas(t *testing.T) string {
	return servertest.CopyAreas(t, func(name string, data []byte) []byte {
		return bytes.ReplaceAll(data, []byte(`flags = ["wander"]`), []byte(`flags = []`))
	})
}

// A command above a player's role does not exist for that player: typing
// it, with or without arguments, says exactly what an unknown word says;
// help knows nothing of it and commands does not list it. The table is
// walked, so a command added later with a role is held to this too.
func TestRoles_CommandsAboveYourRoleSayHuh(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = quietAreas(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	admin := servertest.Dial(t, srv.TelnetAddr())
	admin.Login("Ada", "secret-ada")
	player := servertest.Dial(t, srv.TelnetAddr())
	player.Create("Piet", "secret-piet")
	builder := servertest.Dial(t, srv.TelnetAddr())
	builder.Create("Bob", "secret-bob")
	// Everything the room tells comes before the answers compared below.
	player.Expect("Bob has entered the world.")
	player.Expect("> ")
	admin.DoExpect("grant bob builder", "Bob is now a builder of every zone.")
	builder.Expect("You are now a builder.")
	builder.Expect("> ")

	priv := zone.PrivilegedCommandsForTest()
	if len(priv) < 2 {
		t.Fatalf("only %d commands above a player's role; the table walk found nothing to hold", len(priv))
	}
	for _, who := range []struct {
		c    *servertest.Client
		role string
	}{{player, "player"}, {builder, "builder"}} {
		huh := who.c.Do("xyzzy")
		if !strings.Contains(huh, "Huh?") {
			t.Fatalf("an unknown word answered %q", huh)
		}
		unknownHelp := who.c.Do("help xyzzy")
		list := who.c.Do("commands")
		for _, cmd := range priv {
			if cmd.Role == "builder" && who.role == "builder" {
				continue
			}
			for _, typed := range []string{cmd.Name, cmd.Name + " piet 10 now"} {
				if got := who.c.Do(typed); got != huh {
					t.Errorf("%s typed %q (a %s command) and got %q, want exactly %q", who.role, typed, cmd.Role, got, huh)
				}
			}
			first, _, _ := strings.Cut(cmd.Usage, "\n")
			if got := who.c.Do("help " + cmd.Name); strings.Contains(got, first) || (got != unknownHelp && strings.Contains(got, "(admin)")) {
				t.Errorf("%s: help %s shows it: %q", who.role, cmd.Name, got)
			}
			if strings.Contains(" "+strings.Join(strings.Fields(list), " ")+" ", " "+cmd.Name+" ") {
				t.Errorf("%s: commands lists %s", who.role, cmd.Name)
			}
		}
	}
	// The same commands exist for the admin.
	if got := admin.Do("grant piet"); strings.Contains(got, "Huh?") {
		t.Fatalf("grant to the admin: %q", got)
	}
	// Help topics go by level too: building is for builders (and admins),
	// backups for admins alone; each is listed and read by whom it is for.
	for _, tc := range []struct {
		c                 *servertest.Client
		role              string
		building, backups bool
	}{{player, "player", false, false}, {builder, "builder", true, false}, {admin, "admin", true, true}} {
		list := tc.c.DoExpect("help", "commands lists every command.")
		for _, topic := range []struct {
			word, title string
			shown       bool
		}{{"building", "Building", tc.building}, {"backups", "Backups", tc.backups}} {
			if listed := slices.Contains(strings.Fields(list), topic.word); listed != topic.shown {
				t.Errorf("%s: help lists %s: %v, want %v", tc.role, topic.word, listed, topic.shown)
			}
			got := tc.c.Do("help " + topic.word)
			if read := strings.HasPrefix(got, topic.title+"\r\n"); read != topic.shown {
				t.Errorf("%s: help %s shows the topic: %v, want %v", tc.role, topic.word, read, topic.shown)
			}
		}
	}
}

// Roles are granted and revoked in game, apply at once to a player who is
// online, are kept with the account across a restart, and refuse what
// would lock an admin out or name what does not exist.
func TestRoles_GrantRevokeAndKeep(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	admin := servertest.Dial(t, srv.TelnetAddr())
	admin.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")

	admin.DoExpect("grant bob builder ashridge", "Bob is now a builder of ashridge.")
	bob.Expect("You are now a builder.")
	admin.DoExpect("grant bob builder whisperwood", "Bob is now a builder of ashridge, whisperwood.")
	bob.Expect("You may now build in ashridge, whisperwood.")
	admin.DoExpect("revoke bob builder ashridge", "Bob is now a builder of whisperwood.")
	admin.DoExpect("grant bob builder nowhere", `There is no zone "nowhere"`)
	admin.DoExpect("grant bob wizard", "The roles are admin and builder.")
	admin.DoExpect("grant nobody admin", "There is no character named Nobody.")
	admin.DoExpect("revoke ada admin", "You cannot revoke your own admin role")

	admin.DoExpect("grant bob admin", "Bob is now an admin and a builder of whisperwood.")
	bob.Expect("You are now an admin.")
	bob.DoExpect("revoke ada admin", "Ada is named in [world] admins in the config file")
	bob.DoExpect("grant bob", "Bob is an admin and a builder of whisperwood.")
	bob.Quit()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	srv2 := servertest.Start(t, cfg)
	bob = servertest.Dial(t, srv2.TelnetAddr())
	bob.Login("Bob", "secret-bob")
	bob.DoExpect("grant bob", "Bob is an admin and a builder of whisperwood.")
	admin = servertest.Dial(t, srv2.TelnetAddr())
	admin.Login("Ada", "secret-ada")
	admin.DoExpect("revoke bob admin", "Bob is now a builder of whisperwood.")
	bob.Expect("You are now a builder.")
	bob.Expect("> ")
	if got := bob.Do("grant bob"); !strings.Contains(got, "Huh?") {
		t.Fatalf("a builder typed grant and got %q", got)
	}
	admin.DoExpect("revoke bob builder", "Bob is now a player, with no roles.")
	bob.Expect("You are now a player.")
}
