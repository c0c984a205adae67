package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// A channel keeps its newest lines up to its bound, oldest first, and
// they are there after the file is closed and opened again.
func TestChannelHistory_BoundedAndDurable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "test.db")
	db, err := Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		err := db.AppendChannelLines([]ChannelAppend{
			{Channel: "gossip", Keep: 5, Line: ChannelLine{At: int64(i), From: "Aria", Text: fmt.Sprint("line ", i)}},
			{Channel: "ooc", Keep: 0, Line: ChannelLine{From: "Aria", Text: "not kept"}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = Open(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.ChannelHistory("gossip", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Text != "line 4" || got[2].Text != "line 6" {
		t.Fatalf("last 3: got %+v", got)
	}
	all, _ := db.ChannelHistory("gossip", 100)
	if len(all) != 5 || all[0].Text != "line 2" {
		t.Fatalf("kept: got %d lines from %+v, want 5 from line 2", len(all), all)
	}
	if none, _ := db.ChannelHistory("ooc", 10); len(none) != 0 {
		t.Fatalf("a channel that keeps nothing kept %+v", none)
	}
	if err := db.Check(); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// Tells kept for a player are bounded, oldest dropped, taken once, and
// refused for a name that is no character.
func TestKeepTell_BoundedTakenOnce(t *testing.T) {
	db := openTest(t)
	if _, err := db.Commit([]*Batch{{Zone: "town", Chars: []*Character{char("Bran", 1, "town", "r")}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.KeepTell("Nobody", Tell{From: "Aria", Text: "hi"}, 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a tell to no character: got %v, want ErrNotFound", err)
	}
	var dropped int
	for i := range 5 {
		w, d, err := db.KeepTell("bran", Tell{From: "Aria", Text: fmt.Sprint("t", i)}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if w > 3 {
			t.Fatalf("waiting %d, past the bound", w)
		}
		dropped += d
	}
	if dropped != 2 {
		t.Errorf("dropped %d, want 2", dropped)
	}
	got, gone, err := db.TakeTells("Bran")
	if err != nil {
		t.Fatal(err)
	}
	if gone != 2 {
		t.Errorf("take says %d dropped, want 2", gone)
	}
	if len(got) != 3 || got[0].Text != "t2" || got[2].Text != "t4" {
		t.Fatalf("taken: %+v", got)
	}
	if again, gone, _ := db.TakeTells("Bran"); len(again) != 0 || gone != 0 {
		t.Fatalf("taken twice: %+v, %d dropped", again, gone)
	}
	// After a take the count starts again.
	if _, _, err := db.KeepTell("Bran", Tell{From: "Aria", Text: "again"}, 3); err != nil {
		t.Fatal(err)
	}
	if got, gone, _ := db.TakeTells("Bran"); len(got) != 1 || gone != 0 {
		t.Fatalf("after a take: %+v, %d dropped", got, gone)
	}
}
