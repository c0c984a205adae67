package world

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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
	return testWorldLog(t, zcfg, nil)
}

// testWorldLog is testWorldCfg with the world's log going to log.
func testWorldLog(t *testing.T, zcfg zone.Config, log *slog.Logger) *World {
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
	w, err := New(set, db, DefaultConfig(), zcfg, log)
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

// A login whose stored place cannot take it goes to the start room, with
// a word to the player and a 4105 line for the operator naming the place
// and why (seed 002's 7008: "a select named a world no map can host").
func TestPlace_MissingRoomGoesToStart(t *testing.T) {
	var buf bytes.Buffer
	w := testWorldLog(t, zone.DefaultConfig(), slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	for _, tc := range []struct {
		rec *zone.CharRecord
		why string
	}{
		{&zone.CharRecord{Name: "A", Zone: "emberfall", Room: "emberfall:room:gone"}, "the room is gone"},
		{&zone.CharRecord{Name: "B", Zone: "atlantis", Room: "atlantis:room:x"}, "the zone is gone"},
		{&zone.CharRecord{Name: "C", Zone: "sunken_crypt#00ff", Room: "sunken_crypt:room:stair"}, "an instance copy"},
		{&zone.CharRecord{Name: "F", Zone: "sunken_crypt", Room: "sunken_crypt:room:stair"}, "instanceable"},
	} {
		rec := tc.rec
		buf.Reset()
		h, room, note := w.place(rec)
		if h.z.ID() != "emberfall" || room != w.Content().Game.StartRoom || note == "" {
			t.Errorf("%s: placed in %s at %s with note %q; want the start room and a note", rec.Name, h.z.ID(), room, note)
		}
		line := buf.String()
		for _, want := range []string{"level=WARN", "event=4105", "player=" + rec.Name, "last_room=" + rec.Room, tc.why} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: the operator's line lacks %q: %q", rec.Name, want, line)
			}
		}
	}
	buf.Reset()
	h, room, note := w.place(&zone.CharRecord{Name: "D", Zone: "ashridge", Room: "ashridge:room:pithead"})
	if h.z.ID() != "ashridge" || room != "ashridge:room:pithead" || note != "" {
		t.Errorf("good placement: %s %s %q", h.z.ID(), room, note)
	}
	if strings.Contains(buf.String(), "4105") {
		t.Errorf("a good placement logged a refusal: %q", buf.String())
	}
	buf.Reset()
	w.place(&zone.CharRecord{Name: "G"}) // a new character: no place stored, nothing to tell
	if buf.Len() != 0 {
		t.Errorf("a new character's placement logged: %q", buf.String())
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

// A world whose start room lies in a zone players cannot walk in (here an
// instanceable one) is refused at start-up, with the reason, rather than
// started with nowhere to put a login (seed 002: a start location naming
// an unhostable world is reported).
func TestNew_StartRoomInAnInstanceableZoneIsRefused(t *testing.T) {
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	set.Game.StartRoom = "sunken_crypt:room:stair"
	db, err := store.Open(filepath.Join(t.TempDir(), "w.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := New(set, db, DefaultConfig(), zone.DefaultConfig(), nil)
	if err == nil || !strings.Contains(err.Error(), "start room sunken_crypt:room:stair is not in a zone players can walk in") {
		t.Fatalf("New with the start room in the crypt: %v, %v; want it refused with the reason", w, err)
	}
}
