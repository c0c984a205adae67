package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"zonemud/content"
	"zonemud/server/servertest"
	"zonemud/store"
)

const crashCheckpointSecs = 1

// openDB opens a stopped server's database for inspection.
func openDB(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "data", "zonemud.db"), store.DefaultConfig())
	if err != nil {
		t.Fatalf("the database does not open after the crash: %v", err)
	}
	return db
}

func (p *proc) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p.done <- nil // for the cleanup
}

// crashBot plays one character: it sends an action, then a say with a token
// of its own, and counts both as applied when it reads its own say back.
// The zone applies a session's lines in order, so that read proves every
// line before it was applied: an exact lower bound on progress at any time.
type crashBot struct {
	name    string
	c       *servertest.Client
	mu      sync.Mutex
	base    uint64 // commands applied before this round (from the store)
	applied uint64 // commands known applied, this round included
	sent    uint64 // lines sent this round
	others  []string
}

// progress is how many commands are known applied so far.
func (b *crashBot) progress() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.applied
}

var crashActions = []string{
	"south", "north", "up", "down", "east", "west",
	"get all", "get all", "drop all", "give all %s", "give all %s", "inventory", "look",
}

// play runs until stop is closed or the connection dies.
func (b *crashBot) play(rng *rand.Rand, stop <-chan struct{}) {
	applied := b.base
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		act := crashActions[rng.IntN(len(crashActions))]
		if strings.Contains(act, "%s") {
			act = fmt.Sprintf(act, b.others[rng.IntN(len(b.others))])
		}
		token := fmt.Sprintf("tok%s%d", strings.ToLower(b.name), i)
		b.mu.Lock()
		b.sent += 2
		b.mu.Unlock()
		if b.c.Write([]byte(act+"\r\nsay "+token+"\r\n")) != nil {
			return
		}
		if _, ok := b.c.Try("You say, '"+token+"'", 10*time.Second); !ok {
			return // the server died under us
		}
		applied += 2
		b.mu.Lock()
		b.applied = applied
		b.mu.Unlock()
		// Play at a brisk human pace, not flat out: progress then has
		// to be saved by the checkpoint cadence, not by the odd zone
		// crossing.
		time.Sleep(time.Duration(20+rng.IntN(40)) * time.Millisecond)
	}
}

// TestCrash_KillNineNeverDupesOrLoses runs the real binary with bots that
// walk, pick up, give and drop, kills it with SIGKILL at random moments, and
// after every restart checks: the database opens and passes its check,
// every character loads, no item id is held twice, nobody lost progress a
// completed save had written, and everyone stands in a room that exists.
// Each round asks for a save at a random moment and kills the server at a
// random moment after it, while checkpoints keep falling every second: the
// save is what the test knows was written, whatever the machine's speed.
func TestCrash_KillNineNeverDupesOrLoses(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	set, err := content.Load(os.DirFS(filepath.Join(servertest.Root(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, fmt.Sprintf("[zone]\ncheckpoint_secs = %d\n", crashCheckpointSecs))
	names := []string{"Crasha", "Crashb", "Crashc", "Crashd"}
	bots := make([]*crashBot, len(names))
	for i, n := range names {
		bots[i] = &crashBot{name: n}
		for _, o := range names {
			if o != n {
				bots[i].others = append(bots[i].others, o)
			}
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	for round := 0; round < rounds; round++ {
		p := startProc(t, cfg, telnet)
		for _, b := range bots {
			b.c = servertest.Dial(t, telnet)
			if round == 0 {
				b.c.Create(b.name, "crash-pass")
			} else {
				b.c.Login(b.name, "crash-pass")
			}
			b.applied, b.sent = b.base, 0
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i, b := range bots {
			wg.Add(1)
			go func(b *crashBot, r *rand.Rand) {
				defer wg.Done()
				b.play(r, stop)
			}(b, rand.New(rand.NewPCG(seed, uint64(round*10+i))))
		}
		// Random moments, not waits for anything: where the save and the
		// kill fall among the bots' commands and the checkpoints is the
		// point of the test.
		time.Sleep(time.Duration(500+rng.IntN(2500)) * time.Millisecond)
		saved := make([]uint64, len(bots))
		for i, b := range bots {
			saved[i] = b.progress()
		}
		p.save(t)
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond)
		p.kill9(t)
		close(stop)
		for _, b := range bots {
			b.c.Close()
		}
		wg.Wait()

		db := openDB(t, dir)
		if err := db.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if _, err := db.Census(); err != nil {
			t.Fatalf("round %d: an item is held twice or the ledger disagrees: %v", round, err)
		}
		for i, b := range bots {
			c, err := db.Character(b.name)
			if err != nil {
				t.Fatalf("round %d: %s does not load: %v", round, b.name, err)
			}
			must := saved[i]
			most := b.base + b.sent
			if c.Commands < must {
				t.Fatalf("round %d: %s saved at %d commands, but %d were applied before a save that completed", round, b.name, c.Commands, must)
			}
			if c.Commands > most {
				t.Fatalf("round %d: %s saved at %d commands, more than the %d ever sent", round, b.name, c.Commands, most)
			}
			room := c.Place.Room
			if c.Place.AnchorZone != "" {
				room = c.Place.AnchorRoom
			}
			if set.Rooms[room] == nil {
				t.Fatalf("round %d: %s stands in %q, which does not exist", round, b.name, room)
			}
			b.base = c.Commands
		}
		db.Close()
	}
}

// lanterns counts the inn's lantern wherever the store says it is: in the
// named characters' inventories and in the persistent objects of the inn's
// loft. The census proves no id is held twice; this proves none was lost.
func lanterns(t *testing.T, dir string, names ...string) int {
	t.Helper()
	db := openDB(t, dir)
	defer db.Close()
	if _, err := db.Census(); err != nil {
		t.Fatalf("census: %v", err)
	}
	n := 0
	var walk func([]store.Item)
	walk = func(items []store.Item) {
		for _, it := range items {
			if it.Proto == "emberfall:item:lantern" {
				n++
			}
			walk(it.Contents)
		}
	}
	for _, name := range names {
		c, err := db.Character(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		walk(c.Items)
	}
	objs, err := db.RoomObjects("emberfall")
	if err != nil {
		t.Fatal(err)
	}
	walk(objs["emberfall:room:inn_loft"])
	return n
}

// TestCrash_DupeAttempts tries to duplicate an item in every order of
// dropped connections, crashes and double logins we could think of. In
// each, Ashe takes the inn's lantern and waits for a checkpoint, so the
// lantern is durably hers; then the attempt runs; at the end the store must
// hold exactly one lantern between the players and the storage loft.
func TestCrash_DupeAttempts(t *testing.T) {
	type env struct {
		t      *testing.T
		dir    string
		cfg    string
		telnet string
		p      *proc
	}
	setup := func(t *testing.T) *env {
		dir := t.TempDir()
		cfg, telnet := writeConfig(t, dir, "[zone]\ncheckpoint_secs = 1\n")
		e := &env{t: t, dir: dir, cfg: cfg, telnet: telnet}
		e.p = startProc(t, cfg, telnet)
		a := servertest.Dial(t, telnet)
		a.Create("Ashe", "ashe-pass")
		b := servertest.Dial(t, telnet)
		b.Create("Brin", "brin-pass")
		a.DoExpect("south", "Banked Fire")
		a.DoExpect("get lantern", "You get a brass lantern")
		b.DoExpect("south", "Banked Fire")
		// Quitting saves: the lantern is durably hers.
		a.Quit()
		b.Quit()
		return e
	}
	login := func(e *env, name string) *servertest.Client {
		c := servertest.Dial(e.t, e.telnet)
		c.Login(name, strings.ToLower(name)+"-pass")
		return c
	}
	restart := func(e *env) { e.p = startProc(e.t, e.cfg, e.telnet) }
	stop := func(e *env) { e.p.stop(e.t) }
	// linkDead waits until who, typed by watcher, shows name link-dead.
	linkDead := func(e *env, watcher *servertest.Client, name string) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			out := watcher.DoExpect("who "+name, "in the world")
			if strings.Contains(out, "(link-dead)") {
				return
			}
			if time.Now().After(deadline) {
				e.t.Fatalf("%s not shown link-dead: %q", name, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	scenarios := map[string]func(e *env){
		"give then kill": func(e *env) {
			a, b := login(e, "Ashe"), login(e, "Brin")
			b.Skip()
			a.Send("give lantern brin")
			e.p.kill9(e.t)
			_ = b
		},
		"give, giver drops, kill": func(e *env) {
			a, b := login(e, "Ashe"), login(e, "Brin")
			a.DoExpect("give lantern brin", "You give")
			a.Close()
			b.DoExpect("inventory", "lantern")
			e.p.kill9(e.t)
		},
		"link-dead, back, give, kill": func(e *env) {
			a := login(e, "Ashe")
			b := login(e, "Brin")
			a.Close()
			linkDead(e, b, "Ashe")
			a2 := servertest.Dial(e.t, e.telnet)
			a2.Expect("name")
			a2.Send("Ashe")
			a2.Expect("password")
			a2.Send("ashe-pass")
			a2.Expect("Reconnecting")
			a2.DoExpect("give lantern brin", "You give")
			b.Expect("gives you")
			e.p.kill9(e.t)
		},
		"two logins at once, both give": func(e *env) {
			b := login(e, "Brin")
			c1 := servertest.Dial(e.t, e.telnet)
			c2 := servertest.Dial(e.t, e.telnet)
			var wg sync.WaitGroup
			for _, c := range []*servertest.Client{c1, c2} {
				wg.Add(1)
				go func(c *servertest.Client) {
					defer wg.Done()
					c.Expect("name")
					c.Send("Ashe")
					c.Expect("password")
					c.Send("ashe-pass")
					if _, ok := c.Try("Exits:", 10*time.Second); ok {
						c.Skip()
						c.Send("give lantern brin")
						// Given, or not carried: either way the line
						// was applied. A connection taken over closes.
						c.Try("> ", 10*time.Second)
					}
				}(c)
			}
			wg.Wait()
			_ = b
			stop(e)
		},
		"quit and log in again at once": func(e *env) {
			for i := 0; i < 5; i++ {
				a := login(e, "Ashe")
				a.Quit()
			}
			a := login(e, "Ashe")
			if out := a.DoExpect("inventory", "> "); strings.Count(out, "lantern") != 1 {
				e.t.Fatalf("after quick re-logins the inventory reads %q", out)
			}
			stop(e)
		},
		"drop in storage then kill": func(e *env) {
			a := login(e, "Ashe")
			a.DoExpect("up", "Exits:")
			a.Send("drop lantern")
			e.p.kill9(e.t)
		},
		"link-dead holding it, kill, log in": func(e *env) {
			a := login(e, "Ashe")
			b := login(e, "Brin")
			a.Close()
			linkDead(e, b, "Ashe")
			e.p.kill9(e.t)
			restart(e)
			a2 := login(e, "Ashe")
			if out := a2.DoExpect("inventory", "> "); strings.Count(out, "lantern") != 1 {
				e.t.Fatalf("after a crash while link-dead the inventory reads %q", out)
			}
			stop(e)
		},
		"takeover while giving, kill": func(e *env) {
			a := login(e, "Ashe")
			_ = login(e, "Brin")
			a2 := servertest.Dial(e.t, e.telnet)
			a2.Expect("name")
			a2.Send("Ashe")
			a2.Expect("password")
			a.Send("give lantern brin")
			a2.Send("ashe-pass")
			a2.Expect("Exits:")
			a2.Expect("> ")
			a2.Skip()
			a2.Send("give lantern brin")
			a2.Expect("> ") // applied (given, or no longer carried)
			e.p.kill9(e.t)
		},
		"crash twice in a row": func(e *env) {
			a, _ := login(e, "Ashe"), login(e, "Brin")
			a.Send("give lantern brin")
			e.p.kill9(e.t)
			restart(e)
			b := login(e, "Brin")
			a = login(e, "Ashe")
			b.Send("give lantern ashe")
			a.Send("give lantern brin")
			e.p.kill9(e.t)
		},
	}
	for name, run := range scenarios {
		t.Run(name, func(t *testing.T) {
			e := setup(t)
			run(e)
			if n := lanterns(t, e.dir, "Ashe", "Brin"); n != 1 {
				t.Fatalf("the store holds %d lanterns between Ashe, Brin and the loft; want exactly 1", n)
			}
		})
	}
}

// Items dropped in a storage room survive restarts where they lie; items
// dropped elsewhere do not; a persistent item placed by a reset is loaded,
// not spawned a second time.
func TestPersist_StorageRoomSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[zone]\ncheckpoint_secs = 1\n")
	p := startProc(t, cfg, telnet)
	a := servertest.Dial(t, telnet)
	a.Create("Keeper", "keep-pass")
	a.DoExpect("south", "Banked Fire")
	a.DoExpect("get lantern", "You get a brass lantern")
	a.DoExpect("east", "Exits:")
	a.DoExpect("get bread", "You get")
	a.DoExpect("west", "Exits:")
	a.DoExpect("up", "Exits:")
	a.DoExpect("drop lantern", "You drop a brass lantern")
	a.DoExpect("down", "Exits:")
	a.DoExpect("north", "Emberfall Square")
	a.DoExpect("drop bread", "You drop")
	a.Quit()
	for i := 0; i < 2; i++ {
		p.stop(t)
		p = startProc(t, cfg, telnet)
	}
	a2 := servertest.Dial(t, telnet)
	a2.Login("Keeper", "keep-pass")
	if out := a2.DoExpect("look", "Exits:"); strings.Contains(out, "bread") {
		t.Fatalf("bread dropped in the square survived a restart: %q", out)
	}
	a2.Expect("> ")
	out := a2.DoExpect("look", "Exits:")
	out += a2.Expect("> ")
	if n := strings.Count(out, "notice board"); n != 1 {
		t.Fatalf("%d notice boards in the square after restarts, want 1: %q", n, out)
	}
	a2.DoExpect("south", "Banked Fire")
	a2.DoExpect("up", "Exits:")
	a2.Expect("brass lantern")
}

// One character record that cannot be read stops start-up, naming it, and
// the file is left as it was. An admin who must serve anyway turns
// check_on_open off: then that login alone is refused, with a clear
// message, and everyone else plays on.
func TestPersist_BadRecordRefusesStartOrOnlyThatLogin(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "")
	p := startProc(t, cfg, telnet)
	for _, n := range []string{"Broken", "Sound"} {
		c := servertest.Dial(t, telnet)
		c.Create(n, strings.ToLower(n)+"-pass")
		c.Quit()
	}
	p.stop(t)
	path := filepath.Join(dir, "data", "zonemud.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("characters")).Put([]byte("broken"), []byte("\x01{\"name\": 12"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	out, err := exec.Command(binary(t), "-config", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("the server started on a damaged record:\n%s", out)
	}
	for _, want := range []string{path + " is damaged", `character "broken"`, "nothing in it was changed"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("the refused database was written to")
	}

	body, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(body, "\n[store]\ncheck_on_open = false\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	startProc(t, cfg, telnet)
	bad := servertest.Dial(t, telnet)
	bad.Expect("name")
	bad.Send("Broken")
	bad.Expect("password")
	bad.Send("broken-pass")
	bad.Expect("could not be loaded")
	if !bad.WaitClosed(15 * time.Second) {
		t.Fatal("the refused login was left open")
	}
	good := servertest.Dial(t, telnet)
	good.Login("Sound", "sound-pass")
	good.DoExpect("say fine", "You say, 'fine'")
}

// kill -9 with a player inside an instance copy: after the restart the
// player logs in at the copy's door, never inside a copy that no longer
// exists, and the store never named the copy as a placement.
func TestCrash_KillNineInsideACopyLandsAtTheDoor(t *testing.T) {
	dir := t.TempDir()
	cfg, telnet := writeConfig(t, dir, "[world]\nadmins = [\"Delve\"]\n[zone]\ncheckpoint_secs = 1\n")
	adminCreate(t, cfg, "Delve", "delve-pass")
	p := startProc(t, cfg, telnet)
	a := servertest.Dial(t, telnet)
	a.Login("Delve", "delve-pass")
	a.DoExpect("goto whisperwood:room:barrow_mound", "The Barrow of Thane Berrick")
	a.DoExpect("down", "The Crumbling Stair")
	a.DoExpect("north", "Exits:")
	p.save(t) // everyone saved as they stand: Delve inside the copy
	p.kill9(t)

	db := openDB(t, dir)
	c, err := db.Character("Delve")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Place.Zone, "#") || c.Place.AnchorZone != "whisperwood" || c.Place.AnchorRoom != "whisperwood:room:barrow_mound" {
		t.Fatalf("stored placement after the crash: %+v; want the anchor at the barrow and no copy named", c.Place)
	}
	p = startProc(t, cfg, telnet)
	b := servertest.Dial(t, telnet)
	b.Expect("name")
	b.Send("Delve")
	b.Expect("password")
	b.Send("delve-pass")
	b.Expect("The Barrow of Thane Berrick")
	b.DoExpect("down", "The Crumbling Stair")
	b.Quit()
	p.stop(t)
}
