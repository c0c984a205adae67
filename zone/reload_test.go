package zone_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"zonemud/internal/genworld"
	"zonemud/world"
	"zonemud/zone"
)

// reloadShard is the real world with the content snapshot in the test's
// hands: the test publishes a version, and sees each reconcile.
type reloadShard struct {
	discardShard
	snap       atomic.Pointer[zone.Snapshot]
	reconciled atomic.Uint64 // the last version a zone said it reached
}

func (s *reloadShard) Snapshot() *zone.Snapshot { return s.snap.Load() }

func (s *reloadShard) Reconciled(z *zone.Zone, version uint64, took time.Duration) {
	s.reconciled.Store(version)
}

// starterFS is the starter world's files in memory, for a test to edit.
func starterFS(t *testing.T) fstest.MapFS {
	t.Helper()
	root := filepath.Join(repoRoot(), "areas")
	out := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshot validates files as a reload does and makes them version v.
func snapshot(t *testing.T, files fstest.MapFS, v uint64) *zone.Snapshot {
	t.Helper()
	set, scripts, err := world.Check(files, testLua())
	if err != nil {
		t.Fatal(err)
	}
	return &zone.Snapshot{Version: v, Set: set, Scripts: scripts}
}

// editFile replaces old by new in one of the files, once.
func editFile(t *testing.T, files fstest.MapFS, name, old, new string) {
	t.Helper()
	s := string(files[name].Data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s has no %q", name, old)
	}
	files[name] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
}

// reloadZone is emberfall, booted by hand on the test's goroutine from
// version 1 of the starter world, with a player standing in the square.
func reloadZone(t *testing.T) (*zone.Zone, *reloadShard, fstest.MapFS, *logSession) {
	t.Helper()
	w, _ := benchWorld(t)
	files := starterFS(t)
	sh := &reloadShard{discardShard: discardShard{w}}
	v1 := snapshot(t, files, 1)
	sh.snap.Store(v1)
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(v1.Set.Zones["emberfall"], v1.Set, sh, cfg, zone.Options{Seed: 1, Scripts: v1.Scripts, Version: 1})
	z.BootForTest()
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Stayer", Level: 1}, s, "emberfall:room:square", "")
	z.DrainForTest()
	return z, sh, files, s
}

// A reload keeps what the running world has made of the old version: a
// door opened stays open, the mobs and items resets made are counted as
// theirs (a reset after the reload makes no second set), and a room's new
// text shows at once.
func TestReconcile_KeepsLiveStateTakesNewText(t *testing.T) {
	z, sh, files, _ := reloadZone(t)
	z.SetDoorForTest("emberfall:room:north_gate", "north", "open")
	rats, lanterns := z.CountMobs("emberfall:mob:rat"), z.RoomItems("emberfall:room:inn", "emberfall:item:lantern")
	if rats == 0 || lanterns == 0 {
		t.Fatalf("the starter world's resets made %d rats and %d lanterns", rats, lanterns)
	}

	editFile(t, files, "emberfall.toml", `name = "Emberfall Square"`, `name = "Emberfall Market Square"`)
	editFile(t, files, "emberfall.toml", `short = "a giant rat"`, `short = "a very giant rat"`)
	editFile(t, files, "emberfall.toml", `short = "the north gate"`, `short = "the great north gate"`)
	sh.snap.Store(snapshot(t, files, 2))
	if !z.Reload() {
		t.Fatal("the notice was dropped by an empty inbox")
	}
	z.HandleInboxForTest()

	if got := z.RoomNameForTest("emberfall:room:square"); got != "Emberfall Market Square" {
		t.Errorf("square's name after the reload: %q", got)
	}
	if got := z.DoorState("emberfall:room:north_gate", "north"); got != "open" {
		t.Errorf("the gate after the reload: %q, want it open as it was left", got)
	}
	if sh.reconciled.Load() != 2 || z.Version() != 2 {
		t.Errorf("reconciled %d, zone version %d; want 2", sh.reconciled.Load(), z.Version())
	}
	z.ResetForTest()
	if got := z.CountMobs("emberfall:mob:rat"); got != rats {
		t.Errorf("rats after a reset following the reload: %d, want %d (none made twice)", got, rats)
	}
	if got := z.RoomItems("emberfall:room:inn", "emberfall:item:lantern"); got != lanterns {
		t.Errorf("lanterns after a reset following the reload: %d, want %d", got, lanterns)
	}
}

// A notice dropped by a full inbox costs a pulse: the zone catches up at
// its next pulse all the same.
func TestReconcile_DroppedNoticeCaughtUpAtThePulse(t *testing.T) {
	z, sh, files, _ := reloadZone(t)
	editFile(t, files, "emberfall.toml", `name = "Emberfall Square"`, `name = "Emberfall, Swept"`)
	sh.snap.Store(snapshot(t, files, 2))
	for z.InboxLenForTest() < zone.InboxSize {
		z.Dropped(&benchSession{id: sessionIDs.Add(1)}, "nobody") // a drop of no one: nothing to do
	}
	if z.Reload() {
		t.Fatal("a full inbox took the notice")
	}
	if got := z.RoomNameForTest("emberfall:room:square"); got != "Emberfall Square" {
		t.Fatalf("before any pulse: %q", got)
	}
	z.TickForTest()
	if got := z.RoomNameForTest("emberfall:room:square"); got != "Emberfall, Swept" {
		t.Errorf("after the pulse: %q", got)
	}
}

// A character arriving from a zone that reconciled first may be headed for
// a room this zone has not caught up to: the zone catches up before it
// takes them in, so they land there and not at the start room.
func TestReconcile_ArrivalIntoANewRoomCatchesUp(t *testing.T) {
	z, sh, files, _ := reloadZone(t)
	files["emberfall.toml"] = &fstest.MapFile{Data: append(files["emberfall.toml"].Data, []byte(`
[rooms.loft]
name = "The Hay Loft"
description = "Hay, and a ladder down."
exits = { down = "square" }
`)...)}
	sh.snap.Store(snapshot(t, files, 2)) // no notice: it is still on its way
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Climber", Level: 1}, s, "emberfall:room:loft", "")
	z.DrainForTest()
	if got := z.PlayerRoomForTest("Climber"); got != "emberfall:room:loft" {
		t.Fatalf("arrived in %q, want the new room", got)
	}
	if !strings.Contains(s.text(), "The Hay Loft") {
		t.Errorf("the player saw: %q", s.text())
	}
}

// BenchmarkReconcile is the time a zone's goroutine spends taking a new
// version of the content: a zone of the generated world (100 rooms),
// alternating between two versions that differ in one room's name.
func BenchmarkReconcile(b *testing.B) {
	game, err := os.ReadFile(filepath.Join(repoRoot(), "areas", "game.toml"))
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "areas")
	if _, err := genworld.Generate(dir, genworld.Options{Rooms: 10000, Seed: 1, Game: game}); err != nil {
		b.Fatal(err)
	}
	lua := testLua()
	load := func(v uint64) *zone.Snapshot {
		set, scripts, err := world.Check(os.DirFS(dir), lua)
		if err != nil {
			b.Fatal(err)
		}
		return &zone.Snapshot{Version: v, Set: set, Scripts: scripts}
	}
	v1 := load(1)
	path := filepath.Join(dir, "g042.toml")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `name = "`, `name = "Renamed `, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	v2 := load(2)
	w, _ := benchWorld(b)
	sh := &reloadShard{discardShard: discardShard{w}}
	sh.snap.Store(v1)
	z := zone.New(v1.Set.Zones["g042"], v1.Set, sh, zone.DefaultConfig(), zone.Options{Seed: 1, Scripts: v1.Scripts, Version: 1})
	z.BootForTest()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			z.ReconcileForTest(v2)
		} else {
			z.ReconcileForTest(v1)
		}
	}
}
