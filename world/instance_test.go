package world

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/zone"
)

const barrowRoom = "whisperwood:room:barrow_mound"

// atTheBarrow is a character stored at the crypt's door.
func atTheBarrow(name string) *store.Character {
	return &store.Character{Name: name, Epoch: 1, Level: 5, Place: store.Placement{Zone: "whisperwood", Room: barrowRoom}}
}

// manualSweeps is an [instance] section whose reaper never sweeps on its
// own: the test sweeps (SweepInstances) and counts.
var manualSweeps = InstanceConfig{SweepEvery: 1000 * time.Hour}

// instCfg is the default world config with an [instance] section.
func instCfg(icfg InstanceConfig) Config {
	cfg := DefaultConfig()
	cfg.Instance = icfg
	return cfg
}

// play is a character played through a route inside a synctest bubble.
type play struct {
	s   *nullSession
	rt  *Route
	seq uint64
}

func playAs(t *testing.T, w *World, name string) *play {
	t.Helper()
	s := &nullSession{id: sessionIDs.Add(1)}
	rt, err := w.Enter(name, s)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return &play{s: s, rt: rt}
}

func (p *play) do(line string) {
	p.seq++
	p.rt.Input(p.seq, line)
	synctest.Wait()
}

// copies lists the hosted copies.
func copies(w *World) []*zone.Zone {
	var out []*zone.Zone
	for _, z := range w.Zones() {
		if zone.IsInstanceID(z.ID()) {
			out = append(out, z)
		}
	}
	return out
}

// wedge holds z's goroutine in a handler until the returned func is
// called (at most once; the test's end calls it too).
func wedge(t *testing.T, z *zone.Zone) func() {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	if !z.Heartbeat(0, func() { <-release }) {
		t.Fatalf("zone %s has stopped", z.ID())
	}
	return free
}

// A copy is reaped only once nobody is in it or on the way in, and it has
// been found so by IdleSweeps sweeps in a row, past its grace after
// minting: a player inside, the same player link-dead, and an arrival
// still crossing into it (its handoff not yet handled) each keep it, and
// each resets the count. Once reaped, its goroutine is gone, the directory
// forgets it and its record is dropped.
func TestReap_QuiescenceCountsEveryWayIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		zcfg := zone.DefaultConfig()
		zcfg.LinkDeadSecs = 600
		w := startedWorldWith(t, instCfg(manualSweeps), zcfg, nil, []*store.Character{atTheBarrow("Ilse"), atTheBarrow("Jory")})
		ilse, jory := playAs(t, w, "Ilse"), playAs(t, w, "Jory")
		jory.do("follow Ilse")
		ilse.do("group Jory")
		jory.do("south")
		ilse.do("down")
		cs := copies(w)
		if len(cs) != 1 || w.Where("Ilse") != cs[0] {
			t.Fatalf("copies %v, Ilse in %v", cs, w.Where("Ilse"))
		}
		c := cs[0]
		sweeps := func(n int) int {
			t.Helper()
			reaped := 0
			for range n {
				time.Sleep(15 * time.Second)
				synctest.Wait()
				reaped += w.SweepInstances(t.Context())
			}
			return reaped
		}
		idle := func() int {
			for _, in := range w.Instances() {
				if in.ID == c.ID() {
					return in.Idle
				}
			}
			t.Fatal("the copy has no record")
			return 0
		}
		// A player inside: never reaped, grace or not.
		if n := sweeps(12); n != 0 || w.Zone(c.ID()) != c {
			t.Fatal("a copy with a player inside was reaped")
		}
		// The player link-dead inside: the same.
		ilse.rt.Dropped()
		synctest.Wait()
		if n := sweeps(6); n != 0 || w.Zone(c.ID()) != c {
			t.Fatal("a copy holding a link-dead player was reaped")
		}
		// Back, and out: empty sweeps count.
		ilse = playAs(t, w, "Ilse")
		ilse.do("up")
		if n := sweeps(3); n != 0 || idle() != 3 {
			t.Fatalf("after 3 empty sweeps: %d reaped, idle %d; want none and 3", n, idle())
		}
		// An arrival in flight: Jory joins his party's copy while it is
		// held up, so the copy has not taken him in yet.
		free := wedge(t, c)
		jory.do("north")
		jory.do("down")
		if c.Population() != 0 || w.Where("Jory") != c {
			t.Fatalf("the held-up copy counts %d players; Jory is routed to %v", c.Population(), w.Where("Jory"))
		}
		if n := sweeps(2); n != 0 || idle() != 0 {
			t.Fatalf("with an arrival in flight: %d reaped, idle %d; want none and 0", n, idle())
		}
		free()
		synctest.Wait()
		jory.do("up")
		if n := sweeps(3); n != 0 {
			t.Fatal("reaped after 3 idle sweeps, want 4")
		}
		if n := sweeps(1); n != 1 {
			t.Fatalf("the fourth idle sweep reaped %d, want the copy", n)
		}
		if w.Zone(c.ID()) != nil || zoneGoroutines(t, c.ID()) != 0 {
			t.Fatal("the reaped copy is still hosted or its goroutine runs")
		}
		if l, err := w.dir.Lookup(t.Context(), c.ID()); !errors.Is(err, ErrNotHosted) {
			t.Fatalf("the directory still has the reaped copy: %+v %v", l, err)
		}
		if len(w.Instances()) != 0 {
			t.Fatalf("records left: %+v", w.Instances())
		}
		ilse.do("quit")
		jory.do("quit")
	})
}

// hostCopies hosts n copies of the crypt by hand and waits until each has
// booted.
func hostCopies(t *testing.T, w *World, n int) []*zone.Zone {
	t.Helper()
	var out []*zone.Zone
	for range n {
		z, err := w.Host(t.Context(), HostSpec{Template: "sunken_crypt", Instance: true})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, z)
	}
	synctest.Wait()
	return out
}

// A copy nobody has entered yet is kept through its grace after minting,
// however many sweeps find it empty (its first party may still be on the
// way); past the grace it goes at the next sweep that counts it idle.
func TestReap_GraceAfterMint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorld(t, instCfg(manualSweeps), nil)
		c := hostCopies(t, w, 1)[0]
		for i := 0; i < 7; i++ { // 105 s of sweeps
			time.Sleep(15 * time.Second)
			if n := w.SweepInstances(t.Context()); n != 0 {
				t.Fatalf("sweep %d reaped a copy within its grace", i+1)
			}
		}
		time.Sleep(15 * time.Second)
		if n := w.SweepInstances(t.Context()); n != 1 || w.Zone(c.ID()) != nil {
			t.Fatalf("the sweep past the grace reaped %d; want the copy", n)
		}
	})
}

// The reaper sweeps on its own every 15 seconds.
func TestReap_SweepsOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorld(t, DefaultConfig(), nil)
		c := hostCopies(t, w, 1)[0]
		time.Sleep(2*time.Minute - time.Second)
		synctest.Wait()
		if w.Zone(c.ID()) != c {
			t.Fatal("reaped within its grace")
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if w.Zone(c.ID()) != nil {
			t.Fatal("not reaped by the reaper's own sweeps after its grace")
		}
	})
}

// reapers counts the goroutines tearing down copies now.
func reapers(t *testing.T) int {
	t.Helper()
	return labelled(t, `"world":"reap"`)
}

// A sweep tears down at most 8 copies at once, and a copy whose goroutine
// is wedged costs only its own slot for its own wait: the rest are
// reaped around it, it is taken out of the world regardless when its wait
// runs out, and its goroutine is left to finish on its own.
func TestReap_WedgedCopiesDoNotHoldTheOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorld(t, instCfg(InstanceConfig{SweepEvery: 1000 * time.Hour, IdleSweeps: 1, Grace: time.Second}), nil)
		cs := hostCopies(t, w, 20)
		var frees []func()
		for _, c := range cs[:10] {
			frees = append(frees, wedge(t, c))
		}
		time.Sleep(2 * time.Second)
		done := make(chan int)
		go func() { done <- w.SweepInstances(t.Context()) }()
		synctest.Wait()
		if n := reapers(t); n != sweepBound {
			t.Fatalf("%d teardowns at once, want the bound %d", n, sweepBound)
		}
		time.Sleep(3 * time.Minute) // every wedged copy's wait runs out in turn
		synctest.Wait()
		if n := <-done; n != 20 {
			t.Fatalf("the sweep reaped %d copies, want all 20 (the 10 wedged ones out of the world regardless)", n)
		}
		for _, c := range cs {
			if w.Zone(c.ID()) != nil {
				t.Fatalf("copy %s is still hosted", c.ID())
			}
		}
		for _, c := range cs[10:] {
			if zoneGoroutines(t, c.ID()) != 0 {
				t.Fatalf("a healthy copy's goroutine runs on: %s", c.ID())
			}
		}
		for _, f := range frees {
			f()
		}
		synctest.Wait()
		for _, c := range cs[:10] {
			if zoneGoroutines(t, c.ID()) != 0 {
				t.Fatalf("a wedged copy's goroutine did not end once free: %s", c.ID())
			}
		}
	})
}

// A teardown runs on a context of its own: cancelling the sweep's (the
// world stopping) does not cut it off halfway, so a copy slow to stop is
// still waited for and stops whole.
func TestReap_TeardownOutlivesTheSweepsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorld(t, instCfg(InstanceConfig{SweepEvery: 1000 * time.Hour, IdleSweeps: 1, Grace: time.Second}), nil)
		c := hostCopies(t, w, 1)[0]
		free := wedge(t, c)
		time.Sleep(2 * time.Second)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan int)
		go func() { done <- w.SweepInstances(ctx) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case n := <-done:
			t.Fatalf("the sweep returned (%d reaped) as soon as its context was cancelled, leaving the copy half torn down", n)
		default:
		}
		free()
		if n := <-done; n != 1 {
			t.Fatalf("reaped %d, want the copy", n)
		}
		if zoneGoroutines(t, c.ID()) != 0 {
			t.Fatal("the copy's goroutine runs on")
		}
	})
}

// claims is how many processes claim to run copies of the crypt.
func claims(t *testing.T, w *World) int {
	t.Helper()
	n, err := w.dir.Claims(t.Context(), "sunken_crypt")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The template-in-use claim: published the moment a mint is asked for (a
// mint in flight counts) without waiting for the keeper's tick, renewed
// every 15 s with a 45 s TTL while copies live, on the keeper's own
// goroutine, so a sweep stuck on a wedged copy never lets it lapse; and
// once the last copy is gone it lapses on its own.
func TestClaims_HeldWhileCopiesLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		icfg := InstanceConfig{SweepEvery: 1000 * time.Hour, IdleSweeps: 1, UnhostWait: 10 * time.Minute, MintHook: func(string) { <-hold }}
		w := startedWorldWith(t, instCfg(icfg), zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Tam")})
		if claims(t, w) != 0 {
			t.Fatal("a claim before any copy")
		}
		p := playAs(t, w, "Tam")
		p.do("down")
		if claims(t, w) != 1 {
			t.Fatal("no claim while the first copy's mint is in flight")
		}
		close(hold)
		synctest.Wait()
		c := copies(w)[0]
		for i := 0; i < 40; i++ { // ten minutes with Tam inside
			time.Sleep(15 * time.Second)
			synctest.Wait()
			if claims(t, w) != 1 {
				t.Fatalf("the claim lapsed after %d s with a copy live", (i+1)*15)
			}
		}
		// A sweep stuck on a wedged copy for minutes: the claim holds.
		p.do("up")
		free := wedge(t, c)
		time.Sleep(3 * time.Minute)
		done := make(chan int)
		go func() { done <- w.SweepInstances(t.Context()) }()
		for i := 0; i < 20; i++ {
			time.Sleep(15 * time.Second)
			synctest.Wait()
			if claims(t, w) != 1 {
				t.Fatalf("the claim lapsed %d s into a sweep stuck on a wedged copy", (i+1)*15)
			}
		}
		free()
		if n := <-done; n != 1 {
			t.Fatalf("reaped %d, want the copy", n)
		}
		time.Sleep(46 * time.Second)
		synctest.Wait()
		if claims(t, w) != 0 {
			t.Fatal("the claim outlived the last copy by more than its TTL")
		}
		p.do("quit")
	})
}

// A mint kicks the claim keeper: with its tick an hour away, the claim is
// there as soon as the copy is.
func TestClaims_KickedAtMint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorld(t, instCfg(InstanceConfig{ClaimEvery: time.Hour}), nil)
		hostCopies(t, w, 1)
		if claims(t, w) != 1 {
			t.Fatal("no claim right after a mint")
		}
		if in, err := w.TemplateInUse(t.Context(), "sunken_crypt"); err != nil || !in {
			t.Fatalf("TemplateInUse: %v %v, want true", in, err)
		}
	})
}

// A copy never loads the persistent objects stored for its template's
// rooms: minting one calls the loader zero times.
func TestInstance_CopyCallsNoObjectLoader(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	before := w.objectLoads.Load()
	for range 3 {
		if _, err := w.Host(t.Context(), HostSpec{Template: "sunken_crypt", Instance: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.objectLoads.Load(); got != before {
		t.Fatalf("minting 3 copies called the object loader %d times, want 0", got-before)
	}
	if err := w.Unhost(t.Context(), "ashridge"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Host(t.Context(), HostSpec{Template: "ashridge"}); err != nil {
		t.Fatal(err)
	}
	if got := w.objectLoads.Load(); got != before+1 {
		t.Fatalf("hosting a permanent zone called the loader %d times, want 1 (the counter counts)", got-before)
	}
}

// Quitting inside a copy, or going link-dead there until the grace runs
// out, saves the character at the door: its next login is at the barrow.
func TestInstance_LeavingTheWorldInsideLandsAtTheDoor(t *testing.T) {
	for _, how := range []string{"quit", "link-dead"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				zcfg := zone.DefaultConfig()
				zcfg.LinkDeadSecs = 30
				w := startedWorldWith(t, instCfg(InstanceConfig{}), zcfg, nil, []*store.Character{atTheBarrow("Wen")})
				p := playAs(t, w, "Wen")
				p.do("down")
				p.do("north")
				if c := copies(w); len(c) != 1 || w.Where("Wen") != c[0] {
					t.Fatal("Wen is not in a copy")
				}
				if how == "quit" {
					p.do("quit")
				} else {
					p.rt.Dropped()
					time.Sleep(31 * time.Second)
					synctest.Wait()
				}
				if w.Where("Wen") != nil {
					t.Fatal("Wen is still in the world")
				}
				w.Flush()
				c, err := w.db.Character("Wen")
				if err != nil {
					t.Fatal(err)
				}
				if c.Place.AnchorZone != "whisperwood" || c.Place.AnchorRoom != barrowRoom || zone.IsInstanceID(c.Place.Zone) {
					t.Fatalf("stored placement %+v, want the anchor at the barrow and no copy named", c.Place)
				}
				p = playAs(t, w, "Wen")
				if z := w.Where("Wen"); z == nil || z.ID() != "whisperwood" || !p.s.saw("The Barrow of Thane Berrick") {
					t.Fatalf("Wen logged in again in %v", z)
				}
				time.Sleep(11 * time.Second) // a checkpoint
				synctest.Wait()
				w.Flush()
				if c, _ = w.db.Character("Wen"); c.Place.AnchorZone != "" || c.Place.Room != barrowRoom {
					t.Fatalf("after the login at the door the anchor is still stored: %+v", c.Place)
				}
			})
		})
	}
}

// At shutdown every copy's occupants are sent to their anchors before any
// zone stops, told so, and saved at the door.
func TestInstance_ShutdownEjectsToAnchors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openStore(t, atTheBarrow("Xan"), atTheBarrow("Yeo"))
		w, err := New(starter(t), db, instCfg(InstanceConfig{}), zone.DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Start()
		x, y := playAs(t, w, "Xan"), playAs(t, w, "Yeo")
		x.do("down")
		y.do("down")
		y.do("north")
		if len(copies(w)) != 2 {
			t.Fatal("want two copies")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*play{x, y} {
			if !p.s.saw("The copy fades around you, and you stand where you came in.") || !p.s.saw("The Barrow of Thane Berrick") {
				t.Fatalf("a player was not sent to the door at shutdown:\n%s", p.s.out.String())
			}
		}
		for _, n := range []string{"Xan", "Yeo"} {
			c, err := db.Character(n)
			if err != nil {
				t.Fatal(err)
			}
			if c.Place.Zone != "whisperwood" || c.Place.Room != barrowRoom || c.Place.AnchorZone != "" {
				t.Fatalf("%s saved at %+v, want the barrow with no anchor left", n, c.Place)
			}
		}
		db.Close()
	})
}

// openStore opens a real store in a temp dir with chars stored.
func openStore(t *testing.T, chars ...*store.Character) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "w.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(chars) > 0 {
		if res, err := db.Commit([]*store.Batch{{Zone: "setup", Chars: chars}}); err != nil || res[0] != nil {
			t.Fatalf("store the characters: %v %v", err, res)
		}
	}
	return db
}

// starter is the starter world's content.
func starter(t *testing.T) *content.Set {
	t.Helper()
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A reload takes the crypt out of the content while a copy is being made
// for one player and another player is inside an older copy: the mint in
// flight is refused with one line (the snapshot it takes no longer has
// the template), the copy already live runs on untouched, its claim
// stands, and the reload's report says it is kept.
func TestInstance_TemplateRemovedWhileAMintIsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := starterFS(t)
		hold := make(chan struct{}, 1)
		hold <- struct{}{} // the first mint goes through
		cfg := instCfg(InstanceConfig{MintHook: func(string) { <-hold }})
		cfg.Areas = fsys
		w := startedWorldWith(t, cfg, zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Inna"), atTheBarrow("Oleg")})
		inna, oleg := playAs(t, w, "Inna"), playAs(t, w, "Oleg")
		inna.do("down")
		live := w.Where("Inna")
		if !zone.IsInstanceID(live.ID()) {
			t.Fatal("Inna is not in a copy")
		}
		oleg.do("down") // held on the worker
		delete(fsys, "sunken_crypt.toml")
		ww := fsys["whisperwood.toml"]
		ww.Data = []byte(strings.Replace(string(ww.Data), `instance_entrances = { down = "sunken_crypt" }`, "", 1))
		reports := make(chan zone.ReloadReport, 1)
		w.Reload("Tester", func(r zone.ReloadReport) { reports <- r })
		synctest.Wait()
		rep := <-reports
		if rep.Refused() {
			t.Fatalf("the reload was refused: %v", rep.Problems)
		}
		if !strings.Contains(strings.Join(rep.Copies, "\n"), "kept for these until they empty") {
			t.Fatalf("the report does not say the live copy keeps its template: %q", rep.Copies)
		}
		hold <- struct{}{}
		synctest.Wait()
		if !oleg.s.saw("The way will not open.") || w.Where("Oleg").ID() != "whisperwood" {
			t.Fatalf("Oleg's mint after the reload: in %s, told:\n%s", w.Where("Oleg").ID(), oleg.s.out.String())
		}
		inna.s.forget()
		inna.do("north")
		if w.Where("Inna") != live || !inna.s.saw("Exits:") {
			t.Fatal("the live copy stopped working when its template left the content")
		}
		if claims(t, w) != 1 {
			t.Fatal("the live copy's template is not claimed")
		}
		if len(copies(w)) != 1 {
			t.Fatalf("copies %v, want Inna's alone", copies(w))
		}
	})
}

// SIGTERM while mints are queued and in flight: the world still stops
// cleanly and in time, every mint is answered or dropped, no copy is left
// running, and every player is saved where they stood.
func TestInstance_ShutdownDuringMints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var names []string
		var chars []*store.Character
		for i := range 10 {
			n := fmt.Sprintf("Sig%c", 'a'+i)
			names = append(names, n)
			chars = append(chars, atTheBarrow(n))
		}
		db := openStore(t, chars...)
		hold := make(chan struct{})
		w, err := New(starter(t), db, instCfg(InstanceConfig{MintHook: func(string) { <-hold }}), zone.DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Start()
		for _, n := range names {
			playAs(t, w, n).do("down")
		}
		done := make(chan error)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			done <- w.Shutdown(ctx)
		}()
		synctest.Wait()
		close(hold) // the two held mints finish into a stopping world
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := w.gr.Running(); n != 0 {
			t.Fatalf("%d goroutines still running after shutdown", n)
		}
		for _, n := range names {
			c, err := db.Character(n)
			if err != nil {
				t.Fatal(err)
			}
			if c.Place.Zone != "whisperwood" || c.Place.Room != barrowRoom {
				t.Fatalf("%s saved at %+v, want the barrow", n, c.Place)
			}
		}
		db.Close()
	})
}

// Floods of entry: one account typing the way down again and again gets
// one copy and clear lines; many accounts at once past the process's cap
// and the mint queue's bound are refused with clear lines; nobody is in
// two places and every copy is counted.
func TestInstance_EntryFloods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var chars []*store.Character
		for i := range 120 {
			chars = append(chars, atTheBarrow(fmt.Sprintf("Flood%c%c", 'a'+i/26, 'a'+i%26)))
		}
		chars = append(chars, atTheBarrow("Spam"))
		hold := make(chan struct{})
		w := startedWorldWith(t, instCfg(InstanceConfig{PerProcess: 100, MintHook: func(string) { <-hold }}), zone.DefaultConfig(), nil, chars)
		spam := playAs(t, w, "Spam")
		for range 50 {
			spam.seq++
			spam.rt.Input(spam.seq, "down")
		}
		synctest.Wait()
		var ps []*play
		for _, c := range chars[:120] {
			p := playAs(t, w, c.Name)
			p.seq++
			p.rt.Input(p.seq, "down")
			ps = append(ps, p)
		}
		synctest.Wait()
		close(hold)
		synctest.Wait()
		if !spam.s.saw("The way is already opening for you") || len(spam.s.out.String()) == 0 {
			t.Fatal("the repeated asking was not told the way is already opening")
		}
		// Those the crowded queue refused ask again, with the worker free:
		// the process's cap stops them at 100 copies.
		for i, p := range ps {
			if z := w.Where(chars[i].Name); z != nil && !zone.IsInstanceID(z.ID()) {
				p.seq++
				p.rt.Input(p.seq, "down")
			}
		}
		synctest.Wait()
		in, crowded, full := 0, 0, 0
		for i, p := range ps {
			z := w.Where(chars[i].Name)
			switch {
			case z != nil && zone.IsInstanceID(z.ID()):
				in++
			case p.s.saw(refuseProcess):
				full++
				crowded++ // the first ask was
			case p.s.saw(refuseQueue):
				crowded++
			default:
				t.Fatalf("%s is in %s and was told:\n%s", chars[i].Name, z.ID(), p.s.out.String())
			}
		}
		t.Logf("%d went in (and Spam), %d were told the queue was crowded, %d that the world is full", in, crowded, full)
		if in+1 != 100 || crowded == 0 || full == 0 {
			t.Fatalf("%d went in (plus Spam), %d were told the way is crowded, %d that the world is full", in, crowded, full)
		}
		seen := map[string]bool{}
		total := 0
		for _, z := range w.Zones() {
			for _, e := range z.Roster() {
				if seen[e.Name] {
					t.Fatalf("%s is in two places", e.Name)
				}
				seen[e.Name] = true
				total++
			}
		}
		if total != 121 {
			t.Fatalf("%d players in the rosters, want 121", total)
		}
		if got := len(copies(w)); got != in+1 {
			t.Fatalf("%d copies for %d players inside", got, in+1)
		}
	})
}

// [instance] is checked at start-up: each bad value is named by its key.
func TestInstanceConfig_Validate(t *testing.T) {
	for _, tc := range []struct {
		c   InstanceConfig
		key string
	}{
		{InstanceConfig{PerAccount: -1}, "instance.per_account"},
		{InstanceConfig{PerAccount: 65}, "instance.per_account"},
		{InstanceConfig{PerProcess: 1025}, "instance.per_process"},
		{InstanceConfig{PerProcess: -1}, "instance.per_process"},
		{InstanceConfig{MintBurst: -1}, "instance.mint_burst"},
		{InstanceConfig{MintWindowSecs: -1}, "instance.mint_window_secs"},
		{InstanceConfig{MintBurst: 100, MintWindowSecs: 10}, "instance.mint_burst"},
		{InstanceConfig{PerAccount: 10, PerProcess: 5}, "instance.per_account"},
		{InstanceConfig{MintBurstPerAddr: -1}, "instance.mint_burst_per_addr"},
		{InstanceConfig{MinLevel: -1}, "instance.min_level"},
		{InstanceConfig{MinAgeMins: -1}, "instance.min_age_mins"},
		{InstanceConfig{MinAgeMins: 525601}, "instance.min_age_mins"},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.key+":") {
			t.Errorf("%+v: %v, want an error naming %s", tc.c, err, tc.key)
		}
	}
	if err := (InstanceConfig{}).Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	r := InstanceConfig{}.resolved()
	if r.PerAccount != 3 || r.MintBurst != 6 || r.MintWindowSecs != 60 || r.PerProcess != 256 || r.MintBurstPerAddr != 12 || r.SweepEvery != 15*time.Second || r.IdleSweeps != 4 || r.Grace != 2*time.Minute || r.ClaimEvery != 15*time.Second {
		t.Errorf("0 does not mean the compiled defaults: %+v", r)
	}
}

// Two hundred entries and exits, each reaped once empty, leave nothing
// behind: no goroutine, no record, no directory entry, no claim past its
// TTL, and the residency index holds only the player.
func TestInstance_ManyEntriesLeaveNothingBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := startedWorldWith(t, instCfg(InstanceConfig{PerAccount: 64, MintBurst: 600, MintWindowSecs: 600, SweepEvery: 1000 * time.Hour, IdleSweeps: 1, Grace: time.Second}),
			zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Loop")})
		p := playAs(t, w, "Loop")
		running := w.gr.Running()
		for i := range 200 {
			p.s.forget()
			p.do("down")
			p.do("up")
			if !p.s.saw("The Crumbling Stair") || w.Where("Loop").ID() != "whisperwood" {
				t.Fatalf("round %d: Loop is in %s, told:\n%s", i, w.Where("Loop").ID(), p.s.out.String())
			}
			if i%20 == 19 {
				time.Sleep(2 * time.Second)
				w.SweepInstances(t.Context())
			}
		}
		time.Sleep(2 * time.Second)
		w.SweepInstances(t.Context())
		synctest.Wait()
		if got := w.gr.Running(); got != running {
			t.Fatalf("world goroutines %d after the rounds, %d before", got, running)
		}
		if len(w.Instances()) != 0 || len(copies(w)) != 0 {
			t.Fatalf("left behind: records %v, copies %v", w.Instances(), copies(w))
		}
		if l, _ := w.dir.List(t.Context(), "sunken_crypt"); len(l) != 0 {
			t.Fatalf("the directory lists %d copies", len(l))
		}
		time.Sleep(46 * time.Second)
		if claims(t, w) != 0 {
			t.Fatal("a claim outlived every copy")
		}
		if n := w.res.n.Load(); n != 1 {
			t.Fatalf("the residency index holds %d, want Loop alone", n)
		}
		if n := w.InstanceSlots("Loop"); n != 64 {
			t.Fatalf("Loop has %d slots back, want all 64", n)
		}
		p.do("quit")
	})
}
