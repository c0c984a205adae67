package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/config"
	"zonemud/server/servertest"
)

// lockedBuffer is a log sink tests read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLogged runs a server whose log (info and up) the test can read,
// and shuts it down when the test ends.
func startLogged(t *testing.T, cfg *config.Config) (*server.Server, *lockedBuffer) {
	t.Helper()
	buf := &lockedBuffer{}
	srv, err := server.Start(cfg, server.Options{Log: slog.New(slog.NewTextHandler(buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv, buf
}

// waitLog waits until the log holds every one of want.
func waitLog(t *testing.T, buf *lockedBuffer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(servertest.ExpectTimeout)
	for {
		s := buf.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log never held %q:\n%s", missing, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func adminConfig(t *testing.T, admins ...string) *config.Config {
	cfg := servertest.Config(t)
	cfg.World.Admins = admins
	for _, a := range admins {
		servertest.Admin(t, cfg, a, "secret-"+strings.ToLower(a))
	}
	return cfg
}

// shutdown and reboot count down to every player, refuse a second
// countdown, cancel, and at the end ask the process to stop (reboot: and
// start again).
func TestAdmin_ShutdownCountdownCancelReboot(t *testing.T) {
	srv, logs := startLogged(t, adminConfig(t, "Ada"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")

	ready := func() int {
		t.Helper()
		code, _ := get(t, "http://"+srv.HTTPAddr()+"/readyz", "")
		return code
	}
	if code := ready(); code != http.StatusOK {
		t.Fatalf("/readyz before the countdown: %d, want 200", code)
	}
	ada.DoExpect("shutdown 600 maintenance", "The world will shut down in 10 minutes; every player is told. Type shutdown cancel to stop it.")
	bob.Expect("The world will shut down in 10 minutes: maintenance")
	if code := ready(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz during a countdown: %d, want 503: a load balancer sends no new players to a server about to stop", code)
	}
	ada.DoExpect("shutdown 10", "A shutdown by Ada is counting down already")
	ada.DoExpect("reboot 5", "A shutdown by Ada is counting down already")
	ada.DoExpect("shutdown cancel", "The countdown is cancelled.")
	bob.Expect("The countdown is cancelled; the world goes on.")
	ada.DoExpect("shutdown cancel", "No shutdown or reboot is counting down.")
	if code := ready(); code != http.StatusOK {
		t.Errorf("/readyz after the countdown was cancelled: %d, want 200", code)
	}
	ada.DoExpect("shutdown -5", "Give the countdown in seconds")
	select {
	case r := <-srv.StopRequested():
		t.Fatalf("a cancelled countdown asked to stop (reboot %v)", r)
	default:
	}

	ada.DoExpect("reboot 2 new areas", "The world will reboot in 2 seconds; every player is told. Type reboot cancel to stop it.")
	bob.Expect("The world will reboot in 2 seconds: new areas")
	bob.Expect("It will be back a few seconds later")
	bob.Expect("The world will reboot in 1 second")
	select {
	case reboot := <-srv.StopRequested():
		if !reboot {
			t.Fatal("a reboot's countdown asked for a shutdown")
		}
	case <-time.After(servertest.ExpectTimeout):
		t.Fatal("the reboot's countdown never asked the process to stop")
	}
	waitLog(t, logs, "event=8102", "event=8103", "event=8104", "event=8123")
}

// wall reaches everyone; goto and transfer move players between rooms
// and zones, and refuse what cannot be reached.
func TestAdmin_WallGotoTransfer(t *testing.T) {
	srv, logs := startLogged(t, adminConfig(t, "Ada"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")

	ada.DoExpect("wall The inn serves free ale tonight", "Ada announces: The inn serves free ale tonight")
	bob.Expect("Ada announces: The inn serves free ale tonight")
	ada.DoExpect("wall", "Tell everyone what?")

	for range 3 {
		bob.DoExpect("east", "Exits:")
	}
	bob.Expect("> ")
	ada.DoExpect("goto bob", "Ridge Road")
	bob.Expect("Ada arrives.")
	ada.DoExpect("goto emberfall:room:square", "Emberfall Square")
	ada.DoExpect("transfer bob", "You bring Bob to emberfall:room:square.")
	bob.Expect("Ada has moved you.")
	bob.Expect("Emberfall Square")
	ada.DoExpect("transfer bob emberfall:room:inn", "You bring Bob to emberfall:room:inn.")
	bob.Expect("The Banked Fire")

	ada.DoExpect("goto emberfall:room:nowhere", "There is no room emberfall:room:nowhere.")
	ada.DoExpect("transfer bob sunken_crypt:room:stair", "sunken_crypt is instanceable: its rooms exist only in its copies")
	ada.DoExpect("goto nobody", "Nobody is not in the world.")
	ada.DoExpect("transfer ada", "To move yourself, use goto.")
	waitLog(t, logs, "event=8105", "event=8106", "event=8107")
}

// stat shows a player's account, connection and state; sessions lists
// every connection.
func TestAdmin_StatAndSessions(t *testing.T) {
	srv, logs := startLogged(t, adminConfig(t, "Ada"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	bob.Do("brief")

	got := ada.DoExpect("stat bob", "Epoch")
	got += ada.Expect("> ")
	for _, want := range []string{"Bob, level 1", "Emberfall Square [emberfall:room:square]", "Account: made", "a player, with no roles",
		"telnet from 127.0.0.1:", "client telnet", "colour 16", "MCCP off", "brief on", "idle"} {
		if !strings.Contains(got, want) {
			t.Errorf("stat bob lacks %q:\n%s", want, got)
		}
	}
	ada.DoExpect("stat nobody", "There is no character named Nobody.")

	lobby := servertest.Dial(t, srv.TelnetAddr())
	lobby.Expect("name")
	got = ada.DoExpect("sessions", "3 connections")
	got += ada.Expect("> ")
	for _, want := range []string{"Ada", "Bob", "(login)", "telnet", "127.0.0.1:"} {
		if !strings.Contains(got, want) {
			t.Errorf("sessions lacks %q:\n%s", want, got)
		}
	}
	waitLog(t, logs, "event=8108", "event=8109")
}

// dialFrom connects to addr from a given loopback address, so tests can
// tell players apart by address.
func dialFrom(t *testing.T, from, addr string) (*servertest.Client, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return servertest.Wrap(t, c), nil
}

// A ban by address closes the connections it catches, refuses new ones at
// connect, holds across a restart, and is lifted by unban; a ban by name
// refuses the login; an admin cannot ban their own address.
func TestAdmin_BanByAddressHoldsAcrossRestart(t *testing.T) {
	cfg := adminConfig(t, "Ada")
	srv, logs := startLogged(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob, err := dialFrom(t, "127.0.0.2", srv.TelnetAddr())
	if err != nil {
		t.Skipf("this machine cannot dial from 127.0.0.2: %v", err)
	}
	bob.Create("Bob", "secret-bob")

	ada.DoExpect("ban 127.0.0.1", "That would ban your own address (127.0.0.1)")
	ada.DoExpect("ban 127.0.0.0/8", "That would ban your own address")
	ada.DoExpect("ban 0.0.0.0/0", "too wide")
	ada.DoExpect("ban ada", "You cannot ban yourself.")
	ada.DoExpect("ban 127.0.0.2 7d spamming the market", "Banned 127.0.0.2/32 until")
	bob.Expect("You are banned from this world until")
	bob.Expect("(spamming the market)")
	if !bob.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("the banned player's connection stayed open")
	}
	again, err := dialFrom(t, "127.0.0.2", srv.TelnetAddr())
	if err != nil {
		t.Fatal(err)
	}
	again.Expect("Your address is banned")
	if !again.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("a banned address's new connection stayed open")
	}
	ada.DoExpect("ban", "127.0.0.2/32")
	waitLog(t, logs, "event=8110")
	ada.Quit()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	srv, logs = startLogged(t, cfg)
	again, err = dialFrom(t, "127.0.0.2", srv.TelnetAddr())
	if err != nil {
		t.Fatal(err)
	}
	again.Expect("Your address is banned")
	if !again.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("after a restart, a banned address's connection stayed open")
	}
	ada = servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("unban 127.0.0.2", "The ban on 127.0.0.2/32 is lifted.")
	ada.DoExpect("unban 127.0.0.2", "There is no ban on 127.0.0.2/32.")
	bob, err = dialFrom(t, "127.0.0.2", srv.TelnetAddr())
	if err != nil {
		t.Fatal(err)
	}
	bob.Login("Bob", "secret-bob")
	bob.Quit()

	ada.DoExpect("ban bob 2h cheating", "Banned Bob until")
	bob = servertest.Dial(t, srv.TelnetAddr())
	bob.Expect("name")
	bob.Send("Bob")
	bob.Expect("Bob is banned from this world until")
	if !bob.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("a banned name's login stayed open")
	}
	waitLog(t, logs, "event=8111", "event=2301")
}

// ban alone lists the bans one a line, each line whole, at any width.
func TestAdmin_BanListsOneBanALine(t *testing.T) {
	srv, _ := startLogged(t, adminConfig(t, "Ada"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.DoExpect("ban 203.0.113.0/24 7d bots from the market", "Banned 203.0.113.0/24 until")
	ada.DoExpect("ban cleo spam", "Banned Cleo for ever")
	ada.DoExpect("ban", "2 bans:")
	list := ada.Expect("> ")
	var lines []string
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, "203.0.113.0/24") || strings.Contains(l, "cleo") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || strings.Contains(lines[0], "cleo") == strings.Contains(lines[0], "203.0.113.0/24") ||
		!strings.Contains(lines[0], "(bots from the market)") {
		t.Errorf("ban lists two bans on %d line(s), want one a line, each whole:\n%s", len(lines), list)
	}
}

// snoop shows an admin what a player sees and types; the player is told;
// snooping oneself and a watch that would loop back are refused.
func TestAdmin_SnoopTellsAndRefusesALoop(t *testing.T) {
	srv, logs := startLogged(t, adminConfig(t, "Ada", "Cy"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	cy := servertest.Dial(t, srv.TelnetAddr())
	cy.Login("Cy", "secret-cy")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")

	ada.DoExpect("snoop ada", "You cannot snoop yourself.")
	ada.DoExpect("snoop bob", "You watch Bob's screen.")
	bob.Expect("Ada is watching your screen.")
	bob.DoExpect("say the well is dry", "You say, 'the well is dry'")
	ada.Expect("% [typed] say the well is dry")
	ada.Expect("% You say, 'the well is dry'")
	ada.DoExpect("snoop cy", "You are watching Bob already")

	cy.DoExpect("snoop ada", "You watch Ada's screen.")
	ada.Expect("Cy is watching your screen.")
	ada.DoExpect("snoop", "You stop watching Bob.")
	bob.Expect("Ada stops watching your screen.")
	ada.DoExpect("snoop cy", "That would make a loop: Cy watches you")
	// The loop is refused however long: Cy watches Ada, Bob (an admin
	// now) watches Cy, and Ada may not watch Bob.
	ada.DoExpect("grant bob admin", "Bob is now an admin.")
	bob.DoExpect("snoop cy", "You watch Cy's screen.")
	ada.DoExpect("snoop bob", "That would make a loop: Bob watches Cy watches you")
	waitLog(t, logs, "event=8112", "event=8113")
}

// freeze leaves a player only quit, across a login; log writes a player's
// input into the log; force save saves everyone now.
func TestAdmin_FreezeLogForceSave(t *testing.T) {
	srv, logs := startLogged(t, adminConfig(t, "Ada"))
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")

	ada.DoExpect("freeze ada", "Admins cannot be frozen.")
	ada.DoExpect("freeze bob", "Bob is frozen")
	bob.Expect("You are frozen solid.")
	for _, cmd := range []string{"look", "north", "'hello", "say hello"} {
		bob.DoExpect(cmd, "You are frozen solid.")
	}
	bob.Quit()
	bob = servertest.Dial(t, srv.TelnetAddr())
	bob.Login("Bob", "secret-bob")
	bob.DoExpect("look", "You are frozen solid.")
	ada.DoExpect("freeze bob", "Bob is thawed.")
	bob.Expect("You can move again.")
	bob.DoExpect("look", "Exits:")

	ada.DoExpect("log bob", "Every line Bob types now goes into the log")
	bob.DoExpect("say the password is swordfish", "You say")
	waitLog(t, logs, "event=8119", `line="say the password is swordfish"`)
	ada.DoExpect("log bob", "Bob's input is no longer logged.")

	ada.DoExpect("force", "force save")
	ada.DoExpect("force save", "Every character is saved")
	waitLog(t, logs, "event=8114", "event=8115", "event=8116", "event=8117", "event=8118")
}

// A ban by name reaches a login already past the name: a player banned at
// the password prompt, or while making a new character, does not get in.
func TestAdmin_BanReachesALoginInProgress(t *testing.T) {
	srv, _ := startLogged(t, adminConfig(t, "Ada"))
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	bob.Quit()
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")

	bob = servertest.Dial(t, srv.TelnetAddr())
	bob.Expect("name")
	bob.Send("Bob")
	bob.Expect("password")
	ada.DoExpect("ban bob cheating", "Banned Bob for ever")
	bob.Send("secret-bob")
	bob.Expect("Bob is banned from this world (cheating).")
	if !bob.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("a login banned at its password prompt stayed open")
	}

	cleo := servertest.Dial(t, srv.TelnetAddr())
	cleo.Expect("name")
	cleo.Send("Cleo")
	cleo.Expect("(y/n)")
	ada.DoExpect("ban cleo", "Banned Cleo for ever")
	cleo.Send("y")
	cleo.Expect("password")
	cleo.Send("secret-cleo")
	cleo.Expect("again")
	cleo.Send("secret-cleo")
	cleo.Expect("Cleo is banned from this world.")
	if !cleo.WaitClosed(servertest.ExpectTimeout) {
		t.Fatal("a new character banned while it was made stayed open")
	}
}
