package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/config"
	"zonemud/server/servertest"
	"zonemud/zone"
)

const barrowRef = "whisperwood:room:barrow_mound"

// instConfig is a test config whose named characters are admins, so that
// they may goto the barrow.
func instConfig(t *testing.T, admins ...string) *config.Config {
	cfg := servertest.Config(t)
	cfg.World.Admins = admins
	for _, a := range admins {
		servertest.Admin(t, cfg, a, strings.ToLower(a)+"-pass")
	}
	return cfg
}

// toBarrow makes a new character and takes it to the crypt's door.
func toBarrow(t *testing.T, srv *server.Server, name string) *servertest.Client {
	t.Helper()
	c := servertest.Dial(t, srv.TelnetAddr())
	c.Login(name, strings.ToLower(name)+"-pass") // made an admin by instConfig
	c.DoExpect("goto "+barrowRef, "The Barrow of Thane Berrick")
	c.Expect("> ")
	return c
}

// eventually waits (a generous bound on a hang) for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after 30 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two players who go down separately land in two copies that cannot see
// or hear each other; who, stat and the admin's instances list show both
// inside, and /metrics counts the copies under their template alone.
func TestE2E_Instance_TwoPlayersTwoCopies(t *testing.T) {
	srv := servertest.Start(t, instConfig(t, "Ama", "Bex"))
	w := srv.World()
	ama, bex := toBarrow(t, srv, "Ama"), toBarrow(t, srv, "Bex")
	ama.DoExpect("down", "The way begins to open...")
	ama.Expect("The Crumbling Stair")
	ama.Expect("You may open 2 more copies of your own.")
	bex.DoExpect("down", "The Crumbling Stair")
	za, zb := w.Where("Ama"), w.Where("Bex")
	if za == zb || !zone.IsInstanceID(za.ID()) || !zone.IsInstanceID(zb.ID()) {
		t.Fatalf("Ama in %s, Bex in %s: want two copies", za.ID(), zb.ID())
	}
	out := ama.DoExpect("look", "Exits:")
	out += ama.Expect("> ")
	if strings.Contains(out, "Bex") {
		t.Fatalf("Ama sees Bex, who is in another copy:\n%s", out)
	}
	ama.DoExpect("say anyone down here?", "You say")
	if got := bex.DoExpect("look", "Exits:") + bex.Expect("> "); strings.Contains(got, "anyone down here") || strings.Contains(got, "Ama") {
		t.Fatalf("Bex, in another copy, heard or saw Ama:\n%s", got)
	}
	ama.DoExpect("who", "Bex")
	ama.Expect("The Sunken Crypt")
	ama.DoExpect("stat Bex", "in The Crumbling Stair [sunken_crypt:room:stair] of a copy of sunken_crypt")
	list := ama.DoExpect("instances", "2 copies.")
	for _, want := range []string{"sunken_crypt", "#" + za.ID()[len("sunken_crypt#"):][:8], "Ama", "Bex"} {
		if !strings.Contains(list, want) {
			t.Errorf("instances does not show %q:\n%s", want, list)
		}
	}
	f := scrape(t, srv.HTTPAddr())
	if got := f.value("zonemud_instances", "template", "sunken_crypt"); got != 2 {
		t.Errorf("zonemud_instances for sunken_crypt: %v, want 2", got)
	}
	if got := f.value("zonemud_instance_mints_total", "template", "sunken_crypt"); got != 2 {
		t.Errorf("zonemud_instance_mints_total: %v, want 2", got)
	}
	for _, lv := range f.labelValues() {
		if strings.Contains(lv, "#") {
			t.Errorf("a label carries an instance id: %s", lv)
		}
	}
}

// A party goes in together and shares one copy: they hear each other, and
// a member who comes to the door later joins them.
func TestE2E_Instance_PartySharesOneCopy(t *testing.T) {
	srv := servertest.Start(t, instConfig(t, "Cai", "Dee", "Eli"))
	w := srv.World()
	cai, dee, eli := toBarrow(t, srv, "Cai"), toBarrow(t, srv, "Dee"), toBarrow(t, srv, "Eli")
	dee.DoExpect("follow cai", "You now follow Cai.")
	eli.DoExpect("follow cai", "You now follow Cai.")
	cai.DoExpect("group dee", "Dee joins your party.")
	cai.DoExpect("group eli", "Eli joins your party.")
	eli.DoExpect("south", "Exits:")
	cai.DoExpect("down", "The Crumbling Stair")
	dee.Expect("You follow Cai in.")
	dee.Expect("The Crumbling Stair")
	if w.Where("Cai") != w.Where("Dee") || !zone.IsInstanceID(w.Where("Cai").ID()) {
		t.Fatalf("Cai in %s, Dee in %s: want one copy", w.Where("Cai").ID(), w.Where("Dee").ID())
	}
	cai.DoExpect("say stay close", "You say")
	dee.Expect("stay close")
	eli.DoExpect("north", "The Barrow of Thane Berrick")
	eli.DoExpect("down", "The way opens onto the copy your party holds.")
	eli.Expect("The Crumbling Stair")
	if w.Where("Eli") != w.Where("Cai") {
		t.Fatal("Eli, coming later, did not join the party's copy")
	}
	// Walking inside stays inside.
	cai.DoExpect("north", "Exits: north east south west")
	if w.Where("Cai") != w.Where("Dee") || w.Where("Dee") != w.Where("Eli") {
		t.Fatal("walking north inside the copy split the party")
	}
}

// Dying inside the copy wakes the player at the copy's own start room: the
// player stays in the copy.
func TestE2E_Instance_DeathInsideWakesOnTheStair(t *testing.T) {
	cfg := instConfig(t, "Fen")
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "sunken_crypt.toml" {
			// The skeletons hit hard enough to kill a newcomer at once.
			data = bytes.Replace(data, []byte("damage = \"1d6+1\""), []byte("damage = \"100d10\""), 1)
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	fen := toBarrow(t, srv, "Fen")
	fen.DoExpect("down", "The Crumbling Stair")
	copy := srv.World().Where("Fen")
	fen.DoExpect("north", "Exits:")
	fen.ExpectWithin("You have been slain", time.Minute)
	fen.Expect("You awaken in The Crumbling Stair, whole again.")
	if srv.World().Where("Fen") != copy {
		t.Fatalf("Fen woke in %s, want the copy %s", srv.World().Where("Fen").ID(), copy.ID())
	}
}

// Quitting inside a copy saves the character at the door: the next login
// is at the barrow.
func TestE2E_Instance_QuitInsideComesBackAtTheDoor(t *testing.T) {
	srv := servertest.Start(t, instConfig(t, "Gil"))
	gil := toBarrow(t, srv, "Gil")
	gil.DoExpect("down", "The Crumbling Stair")
	gil.DoExpect("north", "Exits:")
	gil.Quit()
	eventually(t, "Gil out of the world", func() bool { return srv.World().Where("Gil") == nil })
	again := servertest.Dial(t, srv.TelnetAddr())
	again.Expect("name")
	again.Send("Gil")
	again.Expect("password")
	again.Send("gil-pass")
	again.Expect("The Barrow of Thane Berrick")
	if z := srv.World().Where("Gil"); z == nil || z.ID() != "whisperwood" {
		t.Fatalf("Gil logged in again in %v, want whisperwood", z)
	}
}

// Once its last player has left, the copy is reaped: gone from the zone
// list, its goroutine gone from the labelled goroutine profile, and
// /metrics counts no copy.
func TestE2E_Instance_ReapedOnceEmpty(t *testing.T) {
	cfg := instConfig(t, "Hal")
	cfg.Server.Pprof = true
	cfg.Instance.SweepEvery = 50 * time.Millisecond
	cfg.Instance.Grace = time.Millisecond
	cfg.Instance.IdleSweeps = 2
	srv := servertest.Start(t, cfg)
	hal := toBarrow(t, srv, "Hal")
	hal.DoExpect("down", "The Crumbling Stair")
	id := srv.World().Where("Hal").ID()
	label := `"zone":"` + id + `"`
	profile := func() string {
		code, body := get(t, "http://"+srv.HTTPAddr()+"/debug/pprof/goroutine?debug=1", "")
		if code != http.StatusOK {
			t.Fatalf("goroutine profile: %d", code)
		}
		return string(body)
	}
	if !strings.Contains(profile(), label) {
		t.Fatal("the copy's goroutine is not in the profile")
	}
	hal.DoExpect("up", "The Barrow of Thane Berrick")
	// The reap is counted once the copy is out of the world and its
	// goroutine has stopped: wait for the count, then look at the rest.
	eventually(t, "the copy reaped", func() bool {
		return scrape(t, srv.HTTPAddr()).value("zonemud_instance_reaped_total", "template", "sunken_crypt") >= 1
	})
	if srv.World().Zone(id) != nil {
		t.Fatal("the reaped copy is still hosted")
	}
	if strings.Contains(profile(), label) {
		t.Fatal("the reaped copy's goroutine is still running")
	}
	f := scrape(t, srv.HTTPAddr())
	if got := f.value("zonemud_instances", "template", "sunken_crypt"); got != 0 {
		t.Errorf("zonemud_instances after the reap: %v", got)
	}
	if got := f.value("zonemud_instance_reaped_total", "template", "sunken_crypt"); got != 1 {
		t.Errorf("zonemud_instance_reaped_total: %v, want 1", got)
	}
	hal.DoExpect("instances", "No private copies are open.")
}

// The account's cap and the mint rate refuse with clear lines, and the
// player plays on at the door.
func TestE2E_Instance_CapAndRateRefuse(t *testing.T) {
	t.Run("account cap", func(t *testing.T) {
		cfg := instConfig(t, "Ivo")
		cfg.Instance.PerAccount = 2
		srv := servertest.Start(t, cfg)
		ivo := toBarrow(t, srv, "Ivo")
		ivo.DoExpect("down", "You may open 1 more copy of your own.")
		ivo.DoExpect("up", "The Barrow of Thane Berrick")
		ivo.DoExpect("down", "You may open 0 more copies of your own.")
		ivo.DoExpect("up", "The Barrow of Thane Berrick")
		ivo.DoExpect("down", "You already hold 2 private copies open, as many as one may.")
		ivo.DoExpect("look", "The Barrow of Thane Berrick")
	})
	t.Run("rate", func(t *testing.T) {
		cfg := instConfig(t, "Jax")
		cfg.Instance.MintBurst = 2
		srv := servertest.Start(t, cfg)
		jax := toBarrow(t, srv, "Jax")
		for range 2 {
			jax.DoExpect("down", "The Crumbling Stair")
			jax.DoExpect("up", "The Barrow of Thane Berrick")
		}
		jax.DoExpect("down", "You have opened the way too often of late; it will not open for you again for")
		jax.DoExpect("look", "The Barrow of Thane Berrick")
	})
}

// A mint held up on the worker never holds up the door: another player at
// the barrow is answered, and talks with the one waiting, until the copy
// is made and the waiting player goes in.
func TestE2E_Instance_SlowMintKeepsTheDoorAnswering(t *testing.T) {
	cfg := instConfig(t, "Kit", "Lux")
	hold := make(chan struct{})
	cfg.Instance.MintHook = func(string) { <-hold }
	srv := servertest.Start(t, cfg)
	kit, lux := toBarrow(t, srv, "Kit"), toBarrow(t, srv, "Lux")
	kit.DoExpect("down", "The way begins to open...")
	for i := 0; i < 5; i++ {
		lux.DoExpect("look", "The Barrow of Thane Berrick")
	}
	lux.DoExpect("say is it open yet?", "You say")
	kit.Expect("is it open yet?")
	kit.DoExpect("down", "The way is already opening for you; wait a moment.")
	close(hold)
	kit.Expect("The Crumbling Stair")
	if z := srv.World().Where("Kit"); !zone.IsInstanceID(z.ID()) {
		t.Fatalf("Kit is in %s", z.ID())
	}
}
