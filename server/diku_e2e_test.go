package server_test

import (
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
	"zonemud/store"
)

// lanternIDs is the ids of the inn's lantern the store holds for name.
func lanternIDs(t *testing.T, db *store.DB, name string) []uint64 {
	t.Helper()
	c, err := db.Character(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, it := range c.Items {
		if it.Proto == "emberfall:item:lantern" {
			out = append(out, it.ID)
		}
	}
	return out
}

// A kept mark is saved with the item and comes back at the next login;
// junk destroys through the store: after the next save the item is in no
// record and its ledger entry is gone, and nothing was refused.
func TestDiku_KeepSurvivesLoginAndJunkLeavesTheLedger(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Junker", "junk-pass")
	a.DoExpect("south", "Banked Fire")
	a.DoExpect("get lantern", "You get a brass lantern")
	a.DoExpect("keep lantern", "You will keep a brass lantern.")
	a.Quit()
	if !a.WaitClosed(10 * time.Second) {
		t.Fatal("quit did not close the connection")
	}
	db := srv.Store()
	// Quitting queues the save; wait for it to be written.
	var ids []uint64
	for deadline := time.Now().Add(30 * time.Second); len(ids) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the store holds lanterns %v for Junker, want one", ids)
		}
		if _, err := db.Character("Junker"); err == nil {
			ids = lanternIDs(t, db, "Junker")
		}
	}
	census, err := db.Census()
	if err != nil {
		t.Fatal(err)
	}
	if h := census[ids[0]]; h != "c:junker" {
		t.Fatalf("the ledger names %q for the lantern, want c:junker", h)
	}

	a = servertest.Dial(t, srv.TelnetAddr())
	a.Login("Junker", "junk-pass")
	if out := a.DoExpect("inventory", "> "); !strings.Contains(out, "a brass lantern (kept)") {
		t.Fatalf("the keep mark did not come back with the character: %q", out)
	}
	a.DoExpect("drop all", "You keep all of that; unkeep it first.")
	a.DoExpect("junk all", "You keep all of that; unkeep it first.")
	a.DoExpect("junk lantern", "You junk a brass lantern. It is gone.")
	saveAll(t, srv)
	if got := lanternIDs(t, db, "Junker"); len(got) != 0 {
		t.Fatalf("a junked lantern is still saved with Junker: %v", got)
	}
	census, err = db.Census()
	if err != nil {
		t.Fatalf("the census after a junk: %v", err)
	}
	if h, ok := census[ids[0]]; ok {
		t.Fatalf("the ledger still names %q for the junked lantern", h)
	}
	if n := srv.Store().Refused(); n != 0 {
		t.Fatalf("%d saves refused", n)
	}
	a.DoExpect("inventory", "You are carrying nothing.")
}
