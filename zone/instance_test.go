package zone_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

const (
	barrow = "whisperwood:room:barrow_mound"
	stair  = "sunken_crypt:room:stair"
)

// instWorld starts the starter world over a real store inside the
// caller's synctest bubble, with icfg as its [instance] section and chars
// stored before it starts, and shuts it down when the test ends.
func instWorld(t *testing.T, icfg world.InstanceConfig, chars ...*store.Character) *world.World {
	t.Helper()
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	return instWorldOf(t, set, icfg, chars...)
}

func instWorldOf(t *testing.T, set *content.Set, icfg world.InstanceConfig, chars ...*store.Character) *world.World {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "inst.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(chars) > 0 {
		if res, err := db.Commit([]*store.Batch{{Zone: "setup", Chars: chars}}); err != nil || res[0] != nil {
			t.Fatalf("store the characters: %v %v", err, res)
		}
	}
	wcfg := world.DefaultConfig()
	wcfg.Instance = icfg
	w, err := world.New(set, db, wcfg, zone.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return w
}

// atBarrow is a character stored standing at the barrow, over the crypt's
// door.
func atBarrow(name string) *store.Character {
	lanterns++
	return &store.Character{Name: name, Epoch: 1, Level: 5, Place: store.Placement{Zone: "whisperwood", Room: barrow},
		Items: []store.Item{{ID: 900000 + lanterns, Proto: "emberfall:item:lantern", Slot: "light"}}}
}

// lanterns numbers the lantern each stored character carries: the crypt
// is dark.
var lanterns uint64

// player is one character playing through a route, with everything it
// was told.
type player struct {
	t    *testing.T
	name string
	s    *logSession
	rt   *world.Route
	seq  uint64
}

func enterAs(t *testing.T, w *world.World, name string) *player {
	t.Helper()
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	rt, err := w.Enter(name, s)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return &player{t: t, name: name, s: s, rt: rt}
}

// do types a line and waits until everything it set off has settled.
func (p *player) do(line string) {
	p.t.Helper()
	p.seq++
	p.rt.Input(p.seq, line)
	synctest.Wait()
}

// since is what the player was told from mark on.
func (p *player) since(mark int) string { return p.s.text()[mark:] }

func (p *player) mark() int { return len(p.s.text()) }

// expect fails unless the player was told want since mark.
func (p *player) expect(mark int, want string) {
	p.t.Helper()
	if !strings.Contains(p.since(mark), want) {
		// Output the player did not ask for waits out the flush gap.
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
	}
	if got := p.since(mark); !strings.Contains(got, want) {
		p.t.Fatalf("%s was not told %q; was told:\n%s", p.name, want, got)
	}
}

// where is the zone holding the player.
func where(t *testing.T, w *world.World, name string) *zone.Zone {
	t.Helper()
	z := w.Where(name)
	if z == nil {
		t.Fatalf("%s is not in the world", name)
	}
	return z
}

// A player goes down through the barrow's door into a copy of the crypt
// of their own, in three hops: the door says the way opens, the copy's
// start room follows with a line counting the copies still to open, and
// from the first save on the store keeps the door as the anchor while the
// placement keeps naming an ordinary zone. Walking back up clears it.
func TestInstance_EntryInThreeHops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atBarrow("Delver"))
		p := enterAs(t, w, "Delver")
		m := p.mark()
		p.do("down")
		p.expect(m, "The way begins to open...")
		p.expect(m, "The Crumbling Stair")
		p.expect(m, "You may open 2 more copies of your own.")
		z := where(t, w, "Delver")
		if !zone.IsInstanceID(z.ID()) || z.Template() != "sunken_crypt" {
			t.Fatalf("Delver is in %s (template %s), want a copy of sunken_crypt", z.ID(), z.Template())
		}
		w.Flush()
		c, err := w.Store().Character("Delver")
		if err != nil {
			t.Fatal(err)
		}
		if c.Place.AnchorZone != "whisperwood" || c.Place.AnchorRoom != barrow {
			t.Fatalf("stored anchor %q %q, want the barrow", c.Place.AnchorZone, c.Place.AnchorRoom)
		}
		if zone.IsInstanceID(c.Place.Zone) || c.Place.Zone != "whisperwood" {
			t.Fatalf("stored placement names %q: a placement never names a copy", c.Place.Zone)
		}
		m = p.mark()
		p.do("up")
		p.expect(m, "The Barrow of Thane Berrick")
		if z := where(t, w, "Delver"); z.ID() != "whisperwood" {
			t.Fatalf("after walking up Delver is in %s", z.ID())
		}
		w.Flush() // walking out saved Delver where he went
		if c, _ = w.Store().Character("Delver"); c.Place.AnchorZone != "" || c.Place.Zone != "whisperwood" || c.Place.Room != barrow {
			t.Fatalf("after walking out the stored placement is %+v, want the barrow and no anchor", c.Place)
		}
		p.do("quit")
	})
}

// on runs f on z's goroutine and waits for it.
func on(t *testing.T, z *zone.Zone, f func()) {
	t.Helper()
	if !z.Heartbeat(0, f) {
		t.Fatalf("zone %s has stopped", z.ID())
	}
	synctest.Wait()
}

// copyInfo finds the instances entry of a copy by id.
func copyInfo(w *world.World, id string) (zone.InstanceInfo, bool) {
	for _, in := range w.Instances() {
		if in.ID == id {
			return in, true
		}
	}
	return zone.InstanceInfo{}, false
}

// copyIDs lists the ids of the live copies.
func copyIDs(w *world.World) []string {
	var out []string
	for _, z := range w.Zones() {
		if zone.IsInstanceID(z.ID()) {
			out = append(out, z.ID())
		}
	}
	return out
}

// Two players who go down separately land in two copies that share
// nothing: neither hears the other, each has its own skeletons, and who
// and the admin's instances list show both inside.
func TestInstance_TwoPlayersTwoCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atBarrow("Ama"), atBarrow("Bex"))
		a, b := enterAs(t, w, "Ama"), enterAs(t, w, "Bex")
		a.do("down")
		b.do("down")
		za, zb := where(t, w, "Ama"), where(t, w, "Bex")
		if za == zb || !zone.IsInstanceID(za.ID()) || !zone.IsInstanceID(zb.ID()) {
			t.Fatalf("Ama in %s, Bex in %s: want two different copies", za.ID(), zb.ID())
		}
		m := b.mark()
		a.do("say is anyone down here?")
		b.do("look")
		if strings.Contains(b.since(m), "anyone down here") || strings.Contains(b.since(m), "Ama") {
			t.Fatalf("Bex, in another copy, heard or saw Ama:\n%s", b.since(m))
		}
		m = a.mark()
		a.do("who")
		a.expect(m, "Bex")
		for _, id := range []string{za.ID(), zb.ID()} {
			if in, ok := copyInfo(w, id); !ok || len(in.Occupants) != 1 || in.Account == "" {
				t.Fatalf("instances lists %s as %+v (found %v), want one occupant and its account", id, in, ok)
			}
		}
	})
}

// Inside a copy, every way of finding a room by its authored ref stays in
// the copy, although the copy's id differs from its template: walking,
// fleeing, a mob's scripted move, a script reaching an adjacent room by
// ref, a teleport by ref, a room's exits as handles, and waking after
// death at the copy's own start room.
func TestInstance_LocalityInsideACopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := copyAreas(t, func(name string, data []byte) []byte {
			if name != "sunken_crypt.toml" {
				return data
			}
			data = bytes.Replace(data, []byte("[rooms.stair]\n"), []byte(`[rooms.stair]
script = """
function on_command(actor, verb, args)
  if verb == "pray" then actor:send("pray: " .. tostring(actor:teleport("sunken_crypt:room:offering_room"))) return true end
  if verb == "zonename" then actor:send("zone: " .. mud.zone()) return true end
  return false
end
"""
`), 1)
			data = bytes.Replace(data, []byte("[rooms.hall_of_niches]\n"), []byte(`[rooms.hall_of_niches]
script = """
function on_command(actor, verb, args)
  if verb ~= "call" then return false end
  actor:send("call: " .. tostring(mud.broadcast("sunken_crypt:room:offering_room", "A voice calls from the hall of niches.")))
  local n = self:exits().south
  actor:send("south is a " .. type(n) .. ": " .. (type(n) == "string" and n or n:name()))
  return true
end
"""
`), 1)
			return append(data, `
[mobs.keeper]
keywords = ["keeper"]
short = "the stair keeper"
long = "The stair keeper waits here, lantern in hand."
description = "A keeper."
level = 1
hp = "1d4+100"
damage = "1d2"
damage_type = "bludgeon"
attack_verb = "tap"
attacks = 1
script = """
function on_command(actor, verb, args)
  if verb == "shoo" then actor:send("shoo: " .. tostring(self:move("north"))) return true end
  return false
end
"""

[[resets]]
mob = "keeper"
room = "stair"
max = 1
`...)
		})
		set, err := content.Load(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		w := instWorldOf(t, set, world.InstanceConfig{}, atBarrow("Lisl"), atBarrow("Mott"))
		l, m := enterAs(t, w, "Lisl"), enterAs(t, w, "Mott")
		l.do("down")
		m.do("down")
		copyL, copyM := where(t, w, "Lisl"), where(t, w, "Mott")
		if copyL == copyM || copyL.ID() == copyL.Template() {
			t.Fatalf("Lisl in %s, Mott in %s", copyL.ID(), copyM.ID())
		}
		stays := func(what string) {
			t.Helper()
			if z := where(t, w, "Lisl"); z != copyL {
				t.Fatalf("%s moved Lisl out of her copy, to %s", what, z.ID())
			}
		}
		mark := l.mark()
		l.do("zonename")
		l.expect(mark, "zone: "+copyL.ID())

		// A mob's scripted move stays in the copy.
		mark = l.mark()
		l.do("shoo")
		l.expect(mark, "shoo: true")
		if copyL.CountMobs("sunken_crypt:mob:keeper") != 1 || copyM.CountMobs("sunken_crypt:mob:keeper") != 1 {
			t.Fatal("the keeper's scripted move took it out of its copy")
		}

		// A teleport by ref stays in the copy.
		mark = l.mark()
		l.do("pray")
		l.expect(mark, "pray: true")
		l.expect(mark, "The Offering Chamber")
		stays("a teleport by ref")

		// Walking stays in the copy.
		mark = l.mark()
		l.do("west")
		l.expect(mark, "The Hall of Niches")
		stays("walking west")

		// A script reaches an adjacent room by its ref, in this copy
		// only (Mott stands in the room of that ref in his own copy), and
		// a room's exits are handles to the copy's rooms.
		m.do("north")
		m.do("east")
		mm := m.mark()
		mark = l.mark()
		l.do("call")
		l.expect(mark, "call: true")
		l.expect(mark, "south is a userdata: The Crumbling Stair")
		if strings.Contains(m.since(mm), "A voice calls") {
			t.Fatalf("a script in Lisl's copy reached the room of the same ref in Mott's copy:\n%s", m.since(mm))
		}

		// Fleeing from the skeletons stays in the copy.
		time.Sleep(5 * time.Second) // they notice Lisl and attack
		synctest.Wait()
		mark = l.mark()
		for i := 0; i < 50 && !strings.Contains(l.since(mark), "You flee"); i++ {
			l.do("flee")
			time.Sleep(time.Second)
			synctest.Wait()
		}
		l.expect(mark, "You flee")
		stays("fleeing")

		// Death wakes the player at the copy's own start room.
		mark = l.mark()
		on(t, copyL, func() { copyL.KillForTest("Lisl") })
		l.expect(mark, "You awaken in The Crumbling Stair")
		stays("death")
	})
}

// held is a mint worker hook that holds every mint until released.
type held struct{ release chan struct{} }

func holdMints(icfg *world.InstanceConfig) *held {
	h := &held{release: make(chan struct{})}
	icfg.MintHook = func(string) { <-h.release }
	return h
}

// Hop 3 checks again everything that could have changed while the copy
// was made, and moves no one it should not: each case below changes one
// thing between the asking and the answer. A copy nobody went into is
// abandoned (its slot free at once) and the reaper takes it; the player
// is told one line, or, gone from the zone, nothing; and nobody is ever in
// two places.
func TestInstance_HopThreeChecksAgain(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, w *world.World, p, q *player)
		line   string // what p is told; "" for nothing (p is not there)
		where  string // the zone p is in after, "" for out of the world
	}{
		{"quit", func(t *testing.T, w *world.World, p, q *player) { p.do("quit") }, "", ""},
		{"walked away", func(t *testing.T, w *world.World, p, q *player) { p.do("south") }, "you walked away from it", "whisperwood"},
		{"walked back again", func(t *testing.T, w *world.World, p, q *player) { p.do("south"); p.do("north") }, "you walked away from it", "whisperwood"},
		{"link-dead", func(t *testing.T, w *world.World, p, q *player) { p.rt.Dropped(); synctest.Wait() }, "", "whisperwood"},
		{"fighting", func(t *testing.T, w *world.World, p, q *player) { q.do("kill Pell") }, "you are fighting", "whisperwood"},
		{"died", func(t *testing.T, w *world.World, p, q *player) {
			z := where(t, w, "Pell")
			on(t, z, func() { z.KillForTest("Pell") })
		}, "", "emberfall"},
		{"asleep", func(t *testing.T, w *world.World, p, q *player) { p.do("sleep") }, "you fell asleep", "whisperwood"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				icfg := world.InstanceConfig{IdleSweeps: 1}
				h := holdMints(&icfg)
				w := instWorld(t, icfg, atBarrow("Pell"), atBarrow("Quin"))
				p, q := enterAs(t, w, "Pell"), enterAs(t, w, "Quin")
				p.do("pvp")
				q.do("pvp")
				mark := p.mark()
				p.do("down")
				p.expect(mark, "The way begins to open...")
				if w.InstanceSlots("Pell") != 2 {
					t.Fatalf("a mint in flight leaves %d slots, want 2", w.InstanceSlots("Pell"))
				}
				mark = p.mark()
				tc.change(t, w, p, q)
				close(h.release)
				synctest.Wait()
				ids := copyIDs(w)
				if len(ids) != 1 {
					t.Fatalf("%d copies after the mint, want 1", len(ids))
				}
				in, _ := copyInfo(w, ids[0])
				if !in.Abandoned || len(in.Occupants) != 0 {
					t.Fatalf("the copy nobody went into: %+v, want abandoned and empty", in)
				}
				if w.InstanceSlots("Pell") != 3 {
					t.Fatalf("an abandoned copy leaves %d slots, want 3", w.InstanceSlots("Pell"))
				}
				if tc.line != "" {
					p.expect(mark, tc.line)
				} else if got := p.since(mark); strings.Contains(got, "The Crumbling Stair") {
					t.Fatalf("Pell was shown the copy:\n%s", got)
				}
				switch z := w.Where("Pell"); {
				case tc.where == "" && z != nil:
					t.Fatalf("Pell is in %s, want out of the world", z.ID())
				case tc.where != "" && (z == nil || z.ID() != tc.where):
					t.Fatalf("Pell is in %v, want %s", z, tc.where)
				}
				// The abandoned copy is reaped at the next sweep, its
				// grace after minting skipped.
				if n := w.SweepInstances(t.Context()); n != 1 || len(copyIDs(w)) != 0 {
					t.Fatalf("the sweep reaped %d, leaving %v; want the abandoned copy gone", n, copyIDs(w))
				}
				if len(w.Instances()) != 0 {
					t.Fatalf("records left after the reap: %+v", w.Instances())
				}
			})
		})
	}
}

// The copy is reaped while its answer waits on the entrance zone: hop 3
// finds it gone and the player stays at the door, told why.
func TestInstance_HopThreeFindsTheCopyReaped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		icfg := world.InstanceConfig{IdleSweeps: 1, Grace: time.Second}
		h := holdMints(&icfg)
		w := instWorld(t, icfg, atBarrow("Rook"))
		p := enterAs(t, w, "Rook")
		ww := where(t, w, "Rook")
		p.do("down")
		release := make(chan struct{})
		ww.Heartbeat(0, func() { <-release }) // the entrance zone is held up
		defer func() {
			select {
			case <-release:
			default:
				close(release)
			}
		}()
		close(h.release)
		time.Sleep(2 * time.Second) // the copy is minted; its answer waits
		synctest.Wait()
		if n := w.SweepInstances(t.Context()); n != 1 {
			t.Fatalf("the sweep reaped %d copies, want the one nobody entered past its grace", n)
		}
		mark := p.mark()
		close(release)
		synctest.Wait()
		p.expect(mark, "The way closes again before you reach it.")
		if z := where(t, w, "Rook"); z.ID() != "whisperwood" {
			t.Fatalf("Rook is in %s", z.ID())
		}
	})
}

// A template that can no longer be minted (removed from the content, or
// with no start room to build) is refused at the mint with one line, and
// the player plays on.
func TestInstance_MintRefusesATemplateWithoutAStartRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
		if err != nil {
			t.Fatal(err)
		}
		icfg := world.InstanceConfig{}
		icfg.MintHook = func(string) { set.Zones["sunken_crypt"].StartRoom = "" } // a broken template, as the mint sees it
		w := instWorldOf(t, set, icfg, atBarrow("Vale"))
		p := enterAs(t, w, "Vale")
		mark := p.mark()
		p.do("down")
		p.expect(mark, "The way will not open.")
		if z := where(t, w, "Vale"); z.ID() != "whisperwood" || len(copyIDs(w)) != 0 || len(w.Instances()) != 0 {
			t.Fatalf("Vale in %s, copies %v, records %v", z.ID(), copyIDs(w), w.Instances())
		}
		mark = p.mark()
		p.do("look")
		p.expect(mark, "The Barrow of Thane Berrick")
	})
}

// While a mint is held up on the worker, the entrance zone goes on: it
// ticks, and another player there is answered at once.
func TestInstance_SlowMintNeverHoldsTheDoor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		icfg := world.InstanceConfig{}
		h := holdMints(&icfg)
		w := instWorld(t, icfg, atBarrow("Slow"), atBarrow("Other"))
		p, o := enterAs(t, w, "Slow"), enterAs(t, w, "Other")
		ww := where(t, w, "Other")
		p.do("down")
		before := ww.Pulses()
		time.Sleep(10 * time.Second)
		mark := o.mark()
		o.do("look")
		o.expect(mark, "The Barrow of Thane Berrick")
		o.do("say the door is slow today")
		p.expect(0, "the door is slow today")
		if ww.Pulses() < before+30 {
			t.Fatalf("the entrance zone ticked %d pulses in 10 s while the mint was held, want about 40", ww.Pulses()-before)
		}
		mark = p.mark()
		p.do("down")
		p.expect(mark, "The way is already opening for you")
		close(h.release)
		synctest.Wait()
		p.expect(mark, "The Crumbling Stair")
	})
}

// A party goes in together: the leader's entry mints one copy, charged to
// the leader, and the members standing with the leader go into it too; a
// member who was elsewhere joins the same copy at the door later, while it
// lives. Followers walk after their leader inside and out again. A member
// sent away opens a copy of their own.
func TestInstance_PartyGoesInTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atBarrow("Ada"), atBarrow("Bo"), atBarrow("Cy"), atBarrow("Dov"))
		ada, bo, cy, dov := enterAs(t, w, "Ada"), enterAs(t, w, "Bo"), enterAs(t, w, "Cy"), enterAs(t, w, "Dov")
		mark := ada.mark()
		ada.do("group Bo")
		ada.expect(mark, "Bo does not follow you")
		bo.do("follow Ada")
		cy.do("follow Ada")
		ada.do("group Bo")
		ada.do("group Cy")
		ada.expect(mark, "Cy joins your party.")
		mark = bo.mark()
		bo.do("group")
		bo.expect(mark, "Ada's party:")
		bo.expect(mark, "Cy")
		cy.do("south")       // away from the door when Ada goes down
		dov.do("follow Ada") // follows, but not in the party

		mark = bo.mark()
		ada.do("down")
		bo.expect(mark, "You follow Ada in.")
		za := where(t, w, "Ada")
		if !zone.IsInstanceID(za.ID()) || where(t, w, "Bo") != za {
			t.Fatalf("Ada in %s, Bo in %s: want one copy", za.ID(), where(t, w, "Bo").ID())
		}
		if z := where(t, w, "Dov"); z.ID() != "whisperwood" {
			t.Fatalf("Dov, a follower outside the party, went in too (%s)", z.ID())
		}
		if where(t, w, "Cy").ID() != "whisperwood" {
			t.Fatal("Cy, away from the door, was taken in")
		}
		if got := w.InstanceSlots("Ada"); got != 2 {
			t.Fatalf("Ada has %d slots left, want 2: the copy is charged to her", got)
		}
		if got := w.InstanceSlots("Bo"); got != 3 {
			t.Fatalf("Bo has %d slots left, want 3: he opened nothing", got)
		}

		// Cy comes to the door later and joins the live copy.
		cy.do("north")
		mark = cy.mark()
		cy.do("down")
		cy.expect(mark, "The way opens onto the copy your party holds.")
		if where(t, w, "Cy") != za || len(copyIDs(w)) != 1 {
			t.Fatalf("Cy went into %s (copies %v), want Ada's", where(t, w, "Cy").ID(), copyIDs(w))
		}

		// Followers walk after their leader, in the copy and out of it.
		ada.do("north")
		for _, n := range []string{"Bo", "Cy"} {
			if where(t, w, n) != za {
				t.Fatalf("%s left the copy following Ada north", n)
			}
		}
		mark = bo.mark()
		ada.do("south")
		ada.do("up")
		bo.expect(mark, "You follow Ada.")
		for _, n := range []string{"Ada", "Bo", "Cy"} {
			if z := where(t, w, n); z.ID() != "whisperwood" {
				t.Fatalf("%s is in %s after following Ada out", n, z.ID())
			}
		}

		// Sent away, Cy opens a copy of his own; Bo, still in the party,
		// goes back into the party's.
		ada.do("ungroup Cy")
		cy.do("follow")
		cy.do("down")
		bo.do("follow")
		bo.do("down")
		if zc, zb := where(t, w, "Cy"), where(t, w, "Bo"); zc == za || zb != za {
			t.Fatalf("Cy in %s, Bo in %s; the party's copy is %s", zc.ID(), zb.ID(), za.ID())
		}

		// A member leaving the world leaves the party; the leader leaving
		// ends it.
		mark = ada.mark()
		bo.do("quit")
		ada.expect(mark, "Bo has left the world, and your party.")
		if leader, _ := w.Party("Ada"); leader != "" {
			t.Fatalf("Ada's party lives on with no one in it but her: leader %q", leader)
		}
	})
}

// An account holds at most per_account copies open; the fourth asks in
// vain with a clear line, and a copy that closes gives its slot back.
// Minting and walking away over and over is held by the rate limit.
func TestInstance_CapsAndRate(t *testing.T) {
	t.Run("account cap", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := instWorld(t, world.InstanceConfig{}, atBarrow("Greed"))
			p := enterAs(t, w, "Greed")
			for i := 0; i < 3; i++ {
				mark := p.mark()
				p.do("down")
				p.expect(mark, "The Crumbling Stair")
				p.expect(mark, []string{"You may open 2 more copies", "You may open 1 more copy", "You may open 0 more copies"}[i])
				p.do("up")
			}
			mark := p.mark()
			p.do("down")
			p.expect(mark, "You already hold 3 private copies open, as many as one may.")
			if len(copyIDs(w)) != 3 {
				t.Fatalf("%d copies, want 3", len(copyIDs(w)))
			}
		})
	})
	t.Run("rate", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			icfg := world.InstanceConfig{PerAccount: 3, MintBurst: 6, MintWindowSecs: 60}
			h := holdMints(&icfg)
			w := instWorld(t, icfg, atBarrow("Churn"))
			p := enterAs(t, w, "Churn")
			churn := func() string {
				// Ask, then walk away before the answer: the copy is
				// abandoned, and its slot free again. The mint is held
				// until the player has gone, so its answer can never
				// come first (once it did, and the player walked into
				// the copy).
				mark := p.mark()
				p.do("down")
				p.do("south")
				select {
				case h.release <- struct{}{}: // a mint was asked for
				default: // refused before any mint began
				}
				synctest.Wait()
				p.do("north")
				return p.since(mark)
			}
			for i := 0; i < 6; i++ {
				if out := churn(); !strings.Contains(out, "The way begins to open") {
					t.Fatalf("mint %d refused:\n%s", i+1, out)
				}
			}
			if out := churn(); !strings.Contains(out, "You have opened the way too often of late") {
				t.Fatalf("the seventh mint in a minute was not refused by the rate:\n%s", out)
			}
			time.Sleep(time.Minute)
			if out := churn(); !strings.Contains(out, "The way begins to open") {
				t.Fatalf("a mint after the window was refused:\n%s", out)
			}
		})
	})
}

// Every copy rolls its own dice: its RNG is salted at each mint, so two
// copies of a template roll differently, and so do two zones built with
// the very same copy id (the seed cannot be worked out from the id). A
// permanent zone, built twice, rolls the same (the comparison can tell).
func TestInstance_RNGSaltedPerMint(t *testing.T) {
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := benchWorld(t)
	build := func(id string) []uint64 {
		tpl := set.Zones["sunken_crypt"]
		if id == "" {
			tpl = set.Zones["emberfall"]
		}
		return zone.New(tpl, set, w, zone.DefaultConfig(), zone.Options{ID: id}).RNGForTest(8)
	}
	id := zone.NewInstanceID("sunken_crypt")
	a, b, c := build(id), build(id), build(zone.NewInstanceID("sunken_crypt"))
	if slices.Equal(a, b) {
		t.Fatal("two zones with the same copy id roll the same: the seed follows from the id")
	}
	if slices.Equal(a, c) {
		t.Fatal("two copies of one template roll the same")
	}
	if !slices.Equal(build(""), build("")) {
		t.Fatal("a permanent zone built twice rolls differently; the comparison cannot tell")
	}
}

// Nothing respawns in a copy: its resets ran once when it was made,
// whatever the template's reset_secs. The same template run as an
// ordinary zone repops (so the test can fail).
func TestInstance_NoRepopInACopy(t *testing.T) {
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	set.Zones["sunken_crypt"].ResetSecs = 10
	w, _ := benchWorld(t)
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	for _, tc := range []struct {
		id    string
		repop bool
	}{{zone.NewInstanceID("sunken_crypt"), false}, {"", true}} {
		z := zone.New(set.Zones["sunken_crypt"], set, discardShard{w}, zone.DefaultConfig(), zone.Options{ID: tc.id})
		z.BootForTest()
		if n := z.CountMobs("sunken_crypt:mob:skeleton"); n != 3 {
			t.Fatalf("%d skeletons at boot, want 3", n)
		}
		z.PurgeMobs("sunken_crypt:mob:skeleton")
		for range 4 * 30 { // 30 s: three of reset_secs
			z.TickForTest()
		}
		if got := z.CountMobs("sunken_crypt:mob:skeleton") > 0; got != tc.repop {
			t.Fatalf("zone %q: skeletons back after 30 s: %v, want %v", tc.id, got, tc.repop)
		}
		if tc.repop {
			continue
		}
		// Nor does a builder's zreset repop a copy.
		s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
		z.Arrive(&zone.CharRecord{Name: "Maker", Level: 1, Builder: true}, s, "", "")
		z.DrainForTest()
		z.InputForTest(s, 1, "zreset")
		if !strings.Contains(s.text(), "it is populated once, when it is made, and never reset") || z.CountMobs("sunken_crypt:mob:skeleton") != 0 {
			t.Fatalf("a builder's zreset in a copy: %d skeletons, told:\n%s", z.CountMobs("sunken_crypt:mob:skeleton"), s.text())
		}
	}
}

// A copy's log lines carry both its own id (zone) and its template.
func TestInstance_LogsNameZoneAndTemplate(t *testing.T) {
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := benchWorld(t)
	var buf bytes.Buffer
	lg := slog.New(slog.NewTextHandler(&buf, nil))
	id := zone.NewInstanceID("sunken_crypt")
	z := zone.New(set.Zones["sunken_crypt"], set, discardShard{w}, zone.DefaultConfig(), zone.Options{ID: id, Log: lg})
	z.BootForTest()
	s := enter(t, z, "Probe")
	z.InputForTest(s, 1, "crashme")
	line := buf.String()
	if !strings.Contains(line, "zone="+id) || !strings.Contains(line, "template=sunken_crypt") {
		t.Fatalf("a copy's fault line does not name both its id and its template:\n%s", line)
	}
}

// mud.send_to_instance, called for the player whose own script runs it
// (the script package refuses anyone else), goes in the way a door does:
// the player's room is the anchor. A zone that is not instanceable does
// not open.
func TestInstance_SendToInstanceWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atBarrow("Sent"))
		p := enterAs(t, w, "Sent")
		ww := where(t, w, "Sent")
		var refused, sent error
		on(t, ww, func() { refused = ww.SendToInstanceForTest("Sent", "emberfall") })
		if refused == nil || !strings.Contains(refused.Error(), "The way does not open for you.") {
			t.Fatalf("sending into a zone that is not instanceable: %v", refused)
		}
		on(t, ww, func() { sent = ww.SendToInstanceForTest("Sent", "sunken_crypt") })
		if sent != nil {
			t.Fatal(sent)
		}
		synctest.Wait()
		p.expect(0, "The Crumbling Stair")
		if z := where(t, w, "Sent"); !zone.IsInstanceID(z.ID()) {
			t.Fatalf("Sent is in %s", z.ID())
		}
		m := p.mark()
		p.do("up")
		p.expect(m, "The Barrow of Thane Berrick")
	})
}

// A copy whose template declares no start room sends a player who dies in
// it out to the anchor, the door it was entered by.
func TestInstance_DeathWithoutAStartRoomGoesToTheAnchor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atBarrow("Lorn"))
		p := enterAs(t, w, "Lorn")
		p.do("down")
		c := where(t, w, "Lorn")
		on(t, c, c.ClearStartRoomForTest)
		m := p.mark()
		on(t, c, func() { c.KillForTest("Lorn") })
		p.expect(m, "You awaken where you came in, whole again.")
		p.expect(m, "The Barrow of Thane Berrick")
		if z := where(t, w, "Lorn"); z.ID() != "whisperwood" {
			t.Fatalf("Lorn woke in %s, want at the door in whisperwood", z.ID())
		}
	})
}

// A copy's id is its template, '#', and 32 hex digits drawn at random:
// 128 bits, never a counter, so ids cannot be guessed or enumerated.
func TestInstance_IDIsTemplateHashAndRandomHex(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := zone.NewInstanceID("sunken_crypt")
		tpl, hex, ok := strings.Cut(id, "#")
		if !ok || tpl != "sunken_crypt" || len(hex) != 32 || strings.Trim(hex, "0123456789abcdef") != "" {
			t.Fatalf("instance id %q: want sunken_crypt#<32 hex digits>", id)
		}
		if !zone.IsInstanceID(id) || zone.IsInstanceID(tpl) {
			t.Fatalf("IsInstanceID does not tell %q from %q", id, tpl)
		}
		if seen[hex] {
			t.Fatalf("the id %q came twice in 1000", id)
		}
		seen[hex] = true
	}
	// Bits are spread: over 1000 ids every hex digit position takes many
	// values (a counter would leave the leading ones fixed).
	for pos := 0; pos < 32; pos++ {
		vals := map[byte]bool{}
		for hex := range seen {
			vals[hex[pos]] = true
		}
		if len(vals) < 10 {
			t.Fatalf("position %d of the hex takes %d values over 1000 ids: not random", pos, len(vals))
		}
	}
}

// A template with two doors: a player who goes down by the second and
// walks back up the copy's stair comes out at the second, the door they
// used, not at the one the stair is written to lead to.
func TestInstance_ExitLeadsBackToTheDoorUsed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
		if err != nil {
			t.Fatal(err)
		}
		const second = "whisperwood:room:ford"
		ford := set.Rooms[second]
		if ford.Exits[content.Down] != nil {
			t.Fatal("the ford has a way down already")
		}
		ford.Entrances[content.Down] = "sunken_crypt"
		set.Zones["sunken_crypt"].Doors = append(set.Zones["sunken_crypt"].Doors, second)
		ch := atBarrow("Wader")
		ch.Place.Room = second
		w := instWorldOf(t, set, world.InstanceConfig{}, ch)
		p := enterAs(t, w, "Wader")
		m := p.mark()
		p.do("down")
		p.expect(m, "The Crumbling Stair")
		if z := where(t, w, "Wader"); !zone.IsInstanceID(z.ID()) {
			t.Fatalf("Wader is in %s, want a copy of the crypt", z.ID())
		}
		m = p.mark()
		p.do("up")
		p.expect(m, ford.Name)
		if got := p.since(m); strings.Contains(got, "The Barrow of Thane Berrick") {
			t.Fatalf("walking up out of a copy entered at the ford led to the barrow:\n%s", got)
		}
		if z := where(t, w, "Wader"); z.ID() != "whisperwood" {
			t.Fatalf("after walking up Wader is in %s", z.ID())
		}
		p.do("quit")
	})
}

// enterFrom is enterAs from a connection the gate counts under addr (an
// IPv4 address or an IPv6 block; "" for an exempt one).
func enterFrom(t *testing.T, w *world.World, name, addr string) *player {
	t.Helper()
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1), addr: addr}}
	rt, err := w.Enter(name, s)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return &player{t: t, name: name, s: s, rt: rt}
}

// churn has p ask for a copy and walk away before the answer, so the copy
// is abandoned, then come back to the door; the mint is held (h) until p
// has gone. It returns what p was told.
func (p *player) churn(h *held) string {
	mark := p.mark()
	p.do("down")
	p.do("south")
	select {
	case h.release <- struct{}{}: // a mint was asked for
	default: // refused before any mint began
	}
	synctest.Wait()
	p.do("north")
	return p.since(mark)
}

// Copies abandoned at the door (their players walked away while they were
// minted) hold no slot of the process: with per_process 2 filled by two
// of them, a third player still goes in. Abandoned copies waiting for the
// reaper are bounded apart (as many again as per_process), and a full
// process's refusal says when to try again.
func TestInstance_AbandonedCopiesHoldNoProcessSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		icfg := world.InstanceConfig{PerAccount: 1, PerProcess: 2}
		h := holdMints(&icfg)
		w := instWorld(t, icfg, atBarrow("Ashe"), atBarrow("Bran"), atBarrow("Cato"), atBarrow("Dara"), atBarrow("Eske"))
		for _, name := range []string{"Ashe", "Bran"} {
			if out := enterAs(t, w, name).churn(h); !strings.Contains(out, "The way begins to open") {
				t.Fatalf("%s's mint refused:\n%s", name, out)
			}
		}
		if n := len(w.Instances()); n != 2 {
			t.Fatalf("%d copies after two walked away, want 2 abandoned", n)
		}
		for _, in := range w.Instances() {
			if !in.Abandoned {
				t.Fatalf("a copy nobody went into is not abandoned: %+v", in)
			}
		}
		close(h.release) // mints run free from here
		for _, name := range []string{"Cato", "Dara"} {
			p := enterAs(t, w, name)
			mark := p.mark()
			p.do("down")
			p.expect(mark, "The Crumbling Stair")
		}
		// Two inside fill the process; the abandoned two wait for the
		// reaper, at its first sweep (15 s from now at most).
		e := enterAs(t, w, "Eske")
		mark := e.mark()
		e.do("down")
		e.expect(mark, "Too many private copies are open in the world just now; one may close in about 15 seconds; try again then.")
		if z := where(t, w, "Eske"); z.ID() != "whisperwood" {
			t.Fatalf("Eske is in %s", z.ID())
		}
		if n := w.SweepInstances(t.Context()); n != 2 {
			t.Fatalf("the first sweep reaped %d copies, want the 2 abandoned", n)
		}
	})
}

// One address (an IPv4 address, or an IPv6 /64 as the gate keys it, so
// every address of one /64 is this one key) opens at most
// mint_burst_per_addr copies a window, whatever accounts it uses; the
// refusal says when it may again. Another block, and a connection the
// limits exempt (loopback behind a proxy), are untouched.
func TestInstance_MintRatePerAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		icfg := world.InstanceConfig{MintBurstPerAddr: 3}
		h := holdMints(&icfg)
		w := instWorld(t, icfg, atBarrow("Ada"), atBarrow("Bea"), atBarrow("Cyd"), atBarrow("Dov"), atBarrow("Eli"))
		const block = "2001:db8:1:2::/64"
		a, b, c := enterFrom(t, w, "Ada", block), enterFrom(t, w, "Bea", block), enterFrom(t, w, "Cyd", block)
		d, e := enterFrom(t, w, "Dov", "2001:db8:1:3::/64"), enterFrom(t, w, "Eli", "")
		for i, p := range []*player{a, a, b} {
			if out := p.churn(h); !strings.Contains(out, "The way begins to open") {
				t.Fatalf("mint %d from the block refused:\n%s", i+1, out)
			}
		}
		if out := c.churn(h); !strings.Contains(out, "Too many copies have been opened from your address of late; the way will open for it again in 60 seconds.") {
			t.Fatalf("the fourth mint from one /64 in a minute, by a third account:\n%s", out)
		}
		for _, p := range []*player{d, e, e, e, e} {
			if out := p.churn(h); !strings.Contains(out, "The way begins to open") {
				t.Fatalf("%s, from another address, refused:\n%s", p.name, out)
			}
		}
		time.Sleep(time.Minute)
		if out := c.churn(h); !strings.Contains(out, "The way begins to open") {
			t.Fatalf("a mint from the block after the window was refused:\n%s", out)
		}
	})
}

// min_level and min_age_mins keep fresh characters from opening copies,
// each refusal saying what to wait for.
func TestInstance_LevelAndAgeThresholds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		newb, young, old := atBarrow("Newb"), atBarrow("Young"), atBarrow("Old")
		newb.Level = 2
		young.Created = time.Now().Add(-10 * time.Minute).Unix()
		old.Created = time.Now().Add(-2 * time.Hour).Unix()
		w := instWorld(t, world.InstanceConfig{MinLevel: 3, MinAgeMins: 60}, newb, young, old)
		n, y, o := enterAs(t, w, "Newb"), enterAs(t, w, "Young"), enterAs(t, w, "Old")
		mark := n.mark()
		n.do("down")
		n.expect(mark, "The way opens only for those of level 3 or more; come back when you have reached it.")
		mark = y.mark()
		y.do("down")
		y.expect(mark, "The way opens only for characters at least 60 minutes old; yours may try again in 50 minutes.")
		mark = o.mark()
		o.do("down")
		o.expect(mark, "The Crumbling Stair")
		time.Sleep(50 * time.Minute)
		mark = y.mark()
		y.do("down")
		y.expect(mark, "The Crumbling Stair")
		if len(copyIDs(w)) != 2 {
			t.Fatalf("%d copies, want Old's and Young's", len(copyIDs(w)))
		}
	})
}
