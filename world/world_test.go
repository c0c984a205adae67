package world

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/content"
	"zonemud/store"
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

// An instance never hands out the persistent objects stored for its
// template's rooms: every copy has the same room refs, so loading them
// would give each copy the same stored items to loot.
func TestInstance_LoadsNoPersistentObjects(t *testing.T) {
	w := testWorld(t)
	stair := "sunken_crypt:room:stair"
	if _, err := w.db.Commit([]*store.Batch{{Zone: "sunken_crypt", Rooms: []store.RoomObjects{
		{Room: stair, Items: []store.Item{{ID: 99, Proto: "emberfall:item:bread"}}},
	}}}); err != nil {
		t.Fatal(err)
	}
	z, err := w.Host(t.Context(), HostSpec{Template: "sunken_crypt", Instance: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(z.ID(), "sunken_crypt#") || z.Template() != "sunken_crypt" {
		t.Fatalf("instance id %q, template %q", z.ID(), z.Template())
	}
	if _, err := w.Host(t.Context(), HostSpec{Template: "emberfall", Instance: true}); !errors.Is(err, ErrNoTemplate) {
		t.Fatalf("minting a zone that is not instanceable: %v, want ErrNoTemplate", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go z.Run(ctx)
	s := &nullSession{}
	z.Arrive(&zone.CharRecord{Name: "Delver", Level: 5}, s, stair, "")
	waitFor(t, func() bool { return s.saw("The Crumbling Stair") })
	if s.saw("loaf of brown bread") {
		t.Fatal("an instance placed a persistent object stored for its template's room")
	}
	cancel()
	<-z.Dead()
}

func TestPlace_MissingRoomGoesToStart(t *testing.T) {
	w := testWorld(t)
	for _, rec := range []*zone.CharRecord{
		{Name: "A", Zone: "emberfall", Room: "emberfall:room:gone"},
		{Name: "B", Zone: "atlantis", Room: "atlantis:room:x"},
		{Name: "C", Zone: "sunken_crypt#00ff", Room: "sunken_crypt:room:stair"},
	} {
		h, room, note := w.place(rec)
		if h.z.ID() != "emberfall" || room != w.Content().Game.StartRoom || note == "" {
			t.Errorf("%s: placed in %s at %s with note %q; want the start room and a note", rec.Name, h.z.ID(), room, note)
		}
	}
	h, room, note := w.place(&zone.CharRecord{Name: "D", Zone: "ashridge", Room: "ashridge:room:pithead"})
	if h.z.ID() != "ashridge" || room != "ashridge:room:pithead" || note != "" {
		t.Errorf("good placement: %s %s %q", h.z.ID(), room, note)
	}
	// Inside an instance the anchor wins: the door they came in by.
	h, room, _ = w.place(&zone.CharRecord{Name: "E", Zone: "emberfall", Room: "emberfall:room:square", AnchorZone: "whisperwood", AnchorRoom: "whisperwood:room:barrow_mound"})
	if h.z.ID() != "whisperwood" || room != "whisperwood:room:barrow_mound" {
		t.Errorf("anchor: %s %s", h.z.ID(), room)
	}
}

func TestSaver_LoadReadsEveryEarlierSave(t *testing.T) {
	w := testWorld(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { w.saver.run(stop); close(done) }()
	defer func() { close(stop); w.saver.push(saverOp{}); <-done }()
	gen := leaseGen(w, "emberfall")
	for i := 1; i <= 50; i++ {
		w.saver.queue(&zone.SaveBatch{Zone: "emberfall", Gen: gen, Chars: []*zone.CharRecord{{Name: "Aria", Epoch: 1, Commands: uint64(i), Zone: "emberfall", Room: "emberfall:room:square"}}})
		c, err := w.saver.load("Aria")
		if err != nil || c.Commands != uint64(i) {
			t.Fatalf("load after save %d: %+v, %v", i, c, err)
		}
	}
	_ = time.Second
}
