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

func TestLetters_BoundedKeptReadDeleted(t *testing.T) {
	db := openTest(t)
	if err := db.CreateAccount(&Account{Name: "Bran", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PostLetter("Nobody", Letter{From: "Aria", Subject: "s", Body: "b"}, 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a letter to no character: got %v, want ErrNotFound", err)
	}
	for i := range 3 {
		held, err := db.PostLetter("bran", Letter{At: int64(i), From: "Aria", Subject: fmt.Sprint("s", i), Body: "b"}, 3)
		if err != nil || held != i+1 {
			t.Fatalf("letter %d: held %d, err %v", i, held, err)
		}
	}
	if _, err := db.MailboxRoom("nobody", 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("room in no character's box: got %v, want ErrNotFound", err)
	}
	if held, err := db.MailboxRoom("bran", 4); err != nil || held != 3 {
		t.Fatalf("room in a box of 4 holding 3: %d, %v", held, err)
	}
	if _, err := db.MailboxRoom("bran", 3); !errors.Is(err, ErrFull) {
		t.Fatalf("room in a full box: got %v, want ErrFull", err)
	}
	if _, err := db.PostLetter("Bran", Letter{From: "Aria", Subject: "s3", Body: "b"}, 3); !errors.Is(err, ErrFull) {
		t.Fatalf("a letter to a full box: got %v, want ErrFull", err)
	}
	got, err := db.Letters("BRAN")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Subject != "s0" || got[2].Subject != "s2" {
		t.Fatalf("the box holds %+v, want the three oldest in order", got)
	}
	if n, err := db.UnreadLetters("bran"); err != nil || n != 3 {
		t.Fatalf("unread %d, %v; want 3", n, err)
	}
	l, err := db.ReadLetter("bran", 2)
	if err != nil || l.Subject != "s1" {
		t.Fatalf("read 2: %+v, %v", l, err)
	}
	if n, _ := db.UnreadLetters("bran"); n != 2 {
		t.Fatalf("unread %d after a read, want 2", n)
	}
	for _, n := range []int{0, -1, 4, 1 << 40} {
		if _, err := db.ReadLetter("bran", n); !errors.Is(err, ErrNotFound) {
			t.Errorf("read %d: got %v, want ErrNotFound", n, err)
		}
		if _, err := db.DeleteLetter("bran", n); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete %d: got %v, want ErrNotFound", n, err)
		}
	}
	if _, err := db.ReadLetter("nobody", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("read of a box that does not exist: %v", err)
	}
	if l, err := db.DeleteLetter("bran", 1); err != nil || l.Subject != "s0" {
		t.Fatalf("delete 1: %+v, %v", l, err)
	}
	// The box has room again, and what was letter 2 is letter 1.
	if _, err := db.PostLetter("bran", Letter{From: "Aria", Subject: "s3", Body: "b"}, 3); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Letters("bran")
	if len(got) != 3 || got[0].Subject != "s1" || !got[0].Read || got[2].Subject != "s3" {
		t.Fatalf("after delete and post: %+v", got)
	}
}

func TestLetters_KeptAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mud.db")
	db, err := Open(path, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateAccount(&Account{Name: "Bran", Hash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PostLetter("bran", Letter{At: 7, From: "Aria", Subject: "kept", Body: "one\ntwo"}, 50); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, DefaultConfig())
	if err != nil {
		t.Fatalf("reopen (the file must pass its check with a mailbox in it): %v", err)
	}
	defer db.Close()
	got, err := db.Letters("bran")
	if err != nil || len(got) != 1 || got[0] != (Letter{At: 7, From: "Aria", Subject: "kept", Body: "one\ntwo"}) {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
}
