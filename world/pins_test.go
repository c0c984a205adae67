package world

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/zone"
)

// The tests of this file each pin one rule of the instance seed that a
// named mutation in scripts/mutations.txt breaks.

// idOf is z's id, or "nowhere".
func idOf(z *zone.Zone) string {
	if z == nil {
		return "nowhere"
	}
	return z.ID()
}

// flakyClaims is a directory whose claims fail while down is set, as a
// directory that cannot be reached for a while.
type flakyClaims struct {
	Directory
	down *atomic.Bool
}

func (d flakyClaims) Claim(ctx context.Context, template, owner string, ttl time.Duration) error {
	if d.down.Load() {
		return errors.New("the directory cannot be reached (a test's)")
	}
	return d.Directory.Claim(ctx, template, owner, ttl)
}

// A template-in-use claim outlasts two renewals missed in a row (the
// directory out of reach for half a minute) and lapses at the third: it
// lasts three of the keeper's intervals, so a template whose copies live
// is never seen as unused while its owner is only late.
func TestClaims_OutlastTwoMissedRenewals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var down atomic.Bool
		cfg := instCfg(manualSweeps)
		cfg.Directory = flakyClaims{Directory: NewLocalDirectory(LocalOptions{}), down: &down}
		w := startedWorld(t, cfg, nil)
		hostCopies(t, w, 1) // claimed at the mint
		down.Store(true)
		time.Sleep(40 * time.Second) // the renewals at 15 s and 30 s fail
		synctest.Wait()
		if claims(t, w) != 1 {
			t.Fatal("the claim lapsed after two missed renewals with a copy live")
		}
		time.Sleep(10 * time.Second) // and the one at 45 s
		synctest.Wait()
		if claims(t, w) != 0 {
			t.Fatal("the claim outlived three missed renewals")
		}
		down.Store(false)
		time.Sleep(15 * time.Second)
		synctest.Wait()
		if claims(t, w) != 1 {
			t.Fatal("the claim is not renewed once the directory answers again")
		}
	})
}

// A mint validates and builds against one version of the content: a
// reload that lands between the two does not change the copy being made,
// which is built from the version it was validated against and says so.
func TestInstance_ReloadBetweenValidationAndBuild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := starterFS(t)
		var w *World
		var reloaded atomic.Bool
		cfg := instCfg(InstanceConfig{BuildHook: func(string) {
			if reloaded.Swap(true) {
				return
			}
			crypt := fsys["sunken_crypt.toml"]
			crypt.Data = []byte(strings.Replace(string(crypt.Data), "Steps of split stone descend", "Steps of new marble descend", 1))
			reports := make(chan zone.ReloadReport, 1)
			w.Reload("Tester", func(r zone.ReloadReport) { reports <- r })
			if rep := <-reports; rep.Refused() || rep.Version != 2 {
				t.Errorf("the reload in the gap: version %d, %v", rep.Version, rep.Problems)
			}
		}})
		cfg.Areas = fsys
		w = startedWorldWith(t, cfg, zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Vera")})
		p := playAs(t, w, "Vera")
		p.do("down")
		c := w.Where("Vera")
		if !zone.IsInstanceID(c.ID()) {
			t.Fatalf("Vera is in %s, not a copy; told:\n%s", c.ID(), p.s.out.String())
		}
		if !reloaded.Load() {
			t.Fatal("the reload never landed in the gap")
		}
		if c.Version() != 1 || !p.s.saw("Steps of split stone") || p.s.saw("new marble") {
			t.Fatalf("the copy validated at version 1 was built at version %d; Vera saw:\n%s", c.Version(), p.s.out.String())
		}
	})
}

// A build that comes out without its start room (the zone's rooms miss
// the one the content names) is refused as the mint, with one line: the
// player stays at the door and no copy runs.
func TestInstance_BuildWithoutItsStartRoomIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := content.Load(starterFS(t))
		if err != nil {
			t.Fatal(err)
		}
		zp := set.Zones["sunken_crypt"]
		var rooms []*content.Room
		for _, r := range zp.Rooms {
			if r.Ref != zp.StartRoom {
				rooms = append(rooms, r)
			}
		}
		zp.Rooms = rooms
		w := startedWorldWith(t, instCfg(manualSweeps), zone.DefaultConfig(), set, []*store.Character{atTheBarrow("Wren")})
		p := playAs(t, w, "Wren")
		p.do("down")
		if where := idOf(w.Where("Wren")); where != "whisperwood" || !p.s.saw(refuseNoOpen) {
			t.Fatalf("Wren after a build without its start room: in %s, told:\n%s", where, p.s.out.String())
		}
		if n := len(copies(w)); n != 0 {
			t.Fatalf("%d copies run, want none", n)
		}
	})
}

// The world's answer to a mint lands on the very zone object that asked,
// never on one looked up by its id later. Here the entrance zone is
// unhosted and hosted again while a mint it asked for is held: the player
// who asked quit, logs in again into the new zone object and asks again,
// and that zone's first token is the same number as the old one's. The
// old answer must not move the player (the stopped zone refuses it and
// the copy is abandoned); the new answer does.
func TestInstance_AnswerLandsOnTheZoneThatAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gates := []chan struct{}{make(chan struct{}), make(chan struct{})}
		var opened [2]sync.Once
		open := func(i int) { opened[i].Do(func() { close(gates[i]) }) }
		var calls atomic.Int32
		icfg := manualSweeps
		icfg.MintHook = func(string) { <-gates[calls.Add(1)-1] }
		w := startedWorldWith(t, instCfg(icfg), zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Yara")})
		t.Cleanup(func() { open(0); open(1) }) // before the world's shutdown
		p := playAs(t, w, "Yara")
		p.do("down") // the first mint, held
		p.do("quit")
		if err := w.Unhost(t.Context(), "whisperwood"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Host(t.Context(), HostSpec{Template: "whisperwood"}); err != nil {
			t.Fatal(err)
		}
		p = playAs(t, w, "Yara")
		p.do("down") // the second mint, from the new zone object, held
		if calls.Load() != 2 {
			t.Fatalf("%d mints asked for, want 2", calls.Load())
		}
		open(0)
		synctest.Wait()
		if where := idOf(w.Where("Yara")); where != "whisperwood" {
			t.Fatalf("the answer to the stopped zone's request moved Yara to %s", where)
		}
		open(1)
		synctest.Wait()
		mine := w.Where("Yara")
		if mine == nil || !zone.IsInstanceID(mine.ID()) {
			t.Fatalf("Yara is in %s after her own mint, not a copy; told:\n%s", idOf(mine), p.s.out.String())
		}
		for range w.inst.cfg.IdleSweeps {
			w.SweepInstances(t.Context())
		}
		if cs := copies(w); len(cs) != 1 || cs[0] != mine {
			t.Fatalf("%d copies after the sweeps, want Yara's alone (the first abandoned)", len(cs))
		}
	})
}

// A reload with a copy live waits for the permanent zones alone: the copy
// keeps the version it was built from and is never told of the reload, so
// the reload is applied without waiting out its bound and the report names
// no zone late.
func TestReload_LiveCopiesAreNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := starterFS(t)
		cfg := instCfg(manualSweeps)
		cfg.Areas = fsys
		w := startedWorldWith(t, cfg, zone.DefaultConfig(), nil, []*store.Character{atTheBarrow("Zeno")})
		p := playAs(t, w, "Zeno")
		p.do("down")
		live := w.Where("Zeno")
		if !zone.IsInstanceID(live.ID()) {
			t.Fatal("Zeno is not in a copy")
		}
		crypt := fsys["sunken_crypt.toml"]
		crypt.Data = []byte(strings.Replace(string(crypt.Data), "Steps of split stone descend", "Steps of new marble descend", 1))
		start := time.Now()
		reports := make(chan zone.ReloadReport, 1)
		w.Reload("Tester", func(r zone.ReloadReport) { reports <- r })
		synctest.Wait()
		rep := <-reports
		if rep.Refused() || rep.Version != 2 {
			t.Fatalf("the reload: version %d, %v", rep.Version, rep.Problems)
		}
		if len(rep.Late) != 0 || time.Since(start) >= reloadApplyBound {
			t.Fatalf("the reload waited %s for %v:\n%s", time.Since(start), rep.Late, rep.Text())
		}
		if live.Version() != 1 {
			t.Fatalf("the live copy is at version %d, want the one it was built from", live.Version())
		}
	})
}
