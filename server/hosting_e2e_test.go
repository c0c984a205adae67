package server_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
	"zonemud/store"
	"zonemud/world"
)

// A zone hosted while the server runs is a zone like any other: a player
// walks into it over telnet, and who, /metrics and /healthz count them.
// Once they quit, the zone is unhosted: its goroutine is gone from the
// labelled goroutine profile, its lease is released in the data file, and
// nothing it wrote, or could write, commits after the unhost. A login
// while it is unhosted lands in the start room, told why.
func TestE2E_HostAndUnhostAZoneAtRuntime(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.Pprof = true
	srv := servertest.Start(t, cfg)
	w := srv.World()
	ctx := t.Context()
	goroutines := func() string {
		t.Helper()
		code, body := get(t, "http://"+srv.HTTPAddr()+"/debug/pprof/goroutine?debug=1", "")
		if code != http.StatusOK {
			t.Fatalf("goroutine profile: %d", code)
		}
		return string(body)
	}
	const label = `"zone":"ashridge"`

	// Ash Ridge starts hosted; out it goes while it is empty.
	if err := w.Unhost(ctx, "ashridge"); err != nil {
		t.Fatalf("unhost the empty Ash Ridge: %v", err)
	}
	if strings.Contains(goroutines(), label) {
		t.Fatal("Ash Ridge's goroutine is still running after its unhost")
	}
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Prospector", "prospect-pass")
	p.DoExpect("east", "Cinder Lane")
	p.DoExpect("east", "Exits:")
	p.DoExpect("east", "That way is blocked for now.")

	// In again, at runtime, under a new lease.
	z, err := w.Host(ctx, world.HostSpec{Template: "ashridge"})
	if err != nil {
		t.Fatalf("host Ash Ridge at runtime: %v", err)
	}
	p.DoExpect("east", "The Ridge Road")
	if !strings.Contains(goroutines(), label) {
		t.Fatal("the goroutine profile shows no goroutine labelled with the zone hosted at runtime")
	}
	p.DoExpect("who", "Ash Ridge")
	f := scrape(t, srv.HTTPAddr())
	if got := f.value("zonemud_players"); got != 1 {
		t.Errorf("/metrics zonemud_players %v, want 1", got)
	}
	if got := f.value("zonemud_zone_players", "template", "ashridge"); got != 1 {
		t.Errorf("/metrics zonemud_zone_players for ashridge %v, want 1", got)
	}
	if code, body := get(t, "http://"+srv.HTTPAddr()+"/healthz", ""); code != http.StatusOK || !strings.Contains(string(body), "players 1") {
		t.Errorf("/healthz %d %q, want 200 counting one player", code, body)
	}
	if err := w.Unhost(ctx, "ashridge"); !errors.Is(err, world.ErrBusy) {
		t.Fatalf("unhost with a player inside: %v, want ErrBusy", err)
	}

	p.Quit()
	for w.Where("Prospector") != nil {
		time.Sleep(10 * time.Millisecond) // the hand-back lands on the zone's goroutine
	}
	refused := srv.Store().Refused()
	if err := w.Unhost(ctx, z.ID()); err != nil {
		t.Fatalf("unhost once the player left: %v", err)
	}
	if strings.Contains(goroutines(), label) {
		t.Fatal("Ash Ridge's goroutine is still running after Unhost returned")
	}
	if w.Zone("ashridge") != nil {
		t.Fatal("Ash Ridge is still found after its unhost")
	}

	// The data file: the character was saved where it quit; the lease the
	// zone held is released, so a batch written under it is refused; and
	// the zone tried to write nothing after the unhost.
	if err := w.SaveAll(ctx); err != nil {
		t.Fatal(err)
	}
	db := srv.Store()
	if c, err := db.Character("Prospector"); err != nil || c.Place.Room != "ashridge:room:ridge_road" {
		t.Fatalf("stored Prospector %+v, %v; want saved at the Ridge Road", c, err)
	}
	l, err := db.ZoneLease("ashridge")
	if err != nil || !l.Released {
		t.Fatalf("Ash Ridge's lease in the data file: %+v, %v; want released", l, err)
	}
	res, err := db.Commit([]*store.Batch{{Zone: "ashridge", Gen: l.Gen, Rooms: []store.RoomObjects{{Room: "ashridge:room:pithead"}}}})
	if err != nil || !errors.Is(res[0], store.ErrFenced) {
		t.Fatalf("a batch under the released lease: %v, %v; want store.ErrFenced", res, err)
	}
	if got := db.Refused(); got != refused+1 {
		t.Fatalf("the store refused %d batches since the unhost, want only the forged one", got-refused)
	}

	// Back while Ash Ridge is unhosted: the start room, and a word why.
	p2 := servertest.Dial(t, srv.TelnetAddr())
	p2.Expect("name")
	p2.Send("Prospector")
	p2.Expect("password")
	p2.Send("prospect-pass")
	p2.Expect("The place where you last stood is no longer there")
	p2.DoExpect("look", "Emberfall Square")
}
