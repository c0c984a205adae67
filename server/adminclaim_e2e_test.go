package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/config"
	"zonemud/server/servertest"
)

// startAndLog starts a server whose log the test reads, and returns a
// function that shuts it down.
func startAndLog(t *testing.T, cfg *config.Config) (*server.Server, *lockedBuffer, func()) {
	t.Helper()
	buf := &lockedBuffer{}
	srv, err := server.Start(cfg, server.Options{Log: slog.New(slog.NewTextHandler(buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}
	t.Cleanup(stop)
	return srv, buf, stop
}

// Issue 19, item 9: a name in [world] admins that nobody has made yet
// goes to nobody. Whoever makes it at the name prompt gets no admin
// command, nor after a restart (when the character exists and the config
// still names it); start-up logs the unclaimed name (4303), then the
// listed name whose character holds no role (4304). The admin made on
// the shell (zonemud admin create, here servertest.Admin) is an admin.
func TestAdmin_ListedNameMadeInGameIsNotAdmin(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.World.Admins = []string{"Ada", "Mallory"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")

	srv, logs, stop := startAndLog(t, cfg)
	boot := logs.String()
	if !strings.Contains(boot, "event=4303 player=Mallory") {
		t.Errorf("start-up did not log the unclaimed admin name Mallory (4303):\n%s", boot)
	}
	if strings.Contains(boot, "player=Ada") {
		t.Errorf("start-up warned of Ada, who was made with admin create:\n%s", boot)
	}
	mal := servertest.Dial(t, srv.TelnetAddr())
	mal.Create("Mallory", "stolen-pass")
	mal.DoExpect("wall I am the admin now", "Huh?")
	mal.DoExpect("grant mallory admin", "Huh?")
	mal.DoExpect("goto market row", "Huh?")
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("grant ada", "Ada is an admin.")
	ada.DoExpect("grant mallory", "Mallory is a player, with no roles. (Named in [world] admins in the config file, but not an admin")
	mal.Quit()
	ada.Quit()
	stop()

	// A restart reads the same list, and Mallory's character now exists:
	// still not an admin.
	srv, logs, _ = startAndLog(t, cfg)
	if boot := logs.String(); !strings.Contains(boot, "event=4304 player=Mallory") || strings.Contains(boot, "event=4303") {
		t.Errorf("the second start did not log Mallory's character as holding no role (4304), alone:\n%s", boot)
	}
	mal = servertest.Dial(t, srv.TelnetAddr())
	mal.Login("Mallory", "stolen-pass")
	mal.DoExpect("wall I am the admin now", "Huh?")
	mal.DoExpect("shutdown 5", "Huh?")
	ada = servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("wall hello all", "hello all")
}
