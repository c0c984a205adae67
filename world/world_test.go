package world

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/store"
	"zonemud/world/content"
	"zonemud/zone"
)

func testWorld(t *testing.T) *World {
	t.Helper()
	return testWorldCfg(t, zone.DefaultConfig())
}

func testWorldCfg(t *testing.T, zcfg zone.Config) *World {
	t.Helper()
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "w.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := New(set, db, DefaultConfig(), zcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Permanent zones read their persistent objects once each at start; an
// instance makes no loader call at all, so it can never hand out stored
// items that belong to the template's rooms.
func TestInstance_LoadsNoPersistentObjects(t *testing.T) {
	w := testWorld(t)
	if got, want := w.objectLoads.Load(), uint64(len(w.zoneList)); got != want {
		t.Fatalf("loader calls at start: %d, want one per permanent zone (%d)", got, want)
	}
	before := w.objectLoads.Load()
	z, err := w.newInstance("sunken_crypt")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.objectLoads.Load(); got != before {
		t.Fatalf("minting an instance made %d loader calls, want 0", got-before)
	}
	if !strings.HasPrefix(z.ID(), "sunken_crypt#") || z.Template() != "sunken_crypt" {
		t.Fatalf("instance id %q, template %q", z.ID(), z.Template())
	}
	if _, err := w.newInstance("emberfall"); err == nil {
		t.Fatal("a zone that is not instanceable was minted")
	}
	// Even handed objects directly, an instance places none.
	objs := map[string][]zone.ItemRecord{"sunken_crypt:room:stair": {{ID: 99, Proto: "emberfall:item:bread"}}}
	inst := zone.New(w.set.Zones["sunken_crypt"], w.set, w, zone.DefaultConfig(), zone.Options{ID: zone.NewInstanceID("sunken_crypt"), Objects: objs})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inst.Run(ctx)
	found := false
	if err := inst.Query(ctx, func(z *zone.Zone) { found = zone.HasItemID(z, 99) }); err != nil {
		t.Fatal(err)
	}
	if found {
		t.Fatal("an instance placed a stored persistent object")
	}
	cancel()
	<-inst.Dead()
}

func TestPlace_MissingRoomGoesToStart(t *testing.T) {
	w := testWorld(t)
	for _, rec := range []*zone.CharRecord{
		{Name: "A", Zone: "emberfall", Room: "emberfall:room:gone"},
		{Name: "B", Zone: "atlantis", Room: "atlantis:room:x"},
		{Name: "C", Zone: "sunken_crypt#00ff", Room: "sunken_crypt:room:stair"},
	} {
		z, room, note := w.place(rec)
		if z.ID() != "emberfall" || room != w.set.Game.StartRoom || note == "" {
			t.Errorf("%s: placed in %s at %s with note %q; want the start room and a note", rec.Name, z.ID(), room, note)
		}
	}
	z, room, note := w.place(&zone.CharRecord{Name: "D", Zone: "ashridge", Room: "ashridge:room:pithead"})
	if z.ID() != "ashridge" || room != "ashridge:room:pithead" || note != "" {
		t.Errorf("good placement: %s %s %q", z.ID(), room, note)
	}
	// Inside an instance the anchor wins: the door they came in by.
	z, room, _ = w.place(&zone.CharRecord{Name: "E", Zone: "emberfall", Room: "emberfall:room:square", AnchorZone: "whisperwood", AnchorRoom: "whisperwood:room:barrow_mound"})
	if z.ID() != "whisperwood" || room != "whisperwood:room:barrow_mound" {
		t.Errorf("anchor: %s %s", z.ID(), room)
	}
}

func TestSaver_LoadReadsEveryEarlierSave(t *testing.T) {
	w := testWorld(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { w.saver.run(stop); close(done) }()
	defer func() { close(stop); w.saver.push(saverOp{}); <-done }()
	for i := 1; i <= 50; i++ {
		w.saver.queue(&zone.SaveBatch{Zone: "emberfall", Chars: []*zone.CharRecord{{Name: "Aria", Epoch: 1, Commands: uint64(i), Zone: "emberfall", Room: "emberfall:room:square"}}})
		c, err := w.saver.load("Aria")
		if err != nil || c.Commands != uint64(i) {
			t.Fatalf("load after save %d: %+v, %v", i, c, err)
		}
	}
	_ = time.Second
}
