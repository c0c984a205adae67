package server_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/servertest"
)

// satchelAreas adds a satchel, a container anyone can carry, lying in the
// inn's loft, a storage room whose items are saved with the room.
func satchelAreas(t *testing.T) string {
	return servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name != "emberfall.toml" {
			return data
		}
		data = bytes.Replace(data, []byte("# --------------------------------------------------------------- resets\n"), []byte(`[items.satchel]
keywords = ["satchel", "bag"]
short = "a canvas satchel"
long = "A canvas satchel lies on the boards."
description = "A plain canvas satchel with a buckled flap."
type = "container"
weight = 1
capacity = 10

[[resets]]
item = "satchel"
room = "inn_loft"
max = 1

`), 1)
		return data
	})
}

// Moving an item into and out of a container that is saved with its room
// saves both sides: the player's inventory and the room's objects commit
// together, so no save is refused and both survive a restart.
func TestPersist_ContainerInStorageRoomSavesBothSides(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = satchelAreas(t)
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Ilse", "ilse-pass")
	a.DoExpect("south", "Banked Fire")
	a.DoExpect("get lantern", "You get a brass lantern")
	a.DoExpect("up", "Loft")
	a.DoExpect("put lantern in satchel", "You put a brass lantern in a canvas satchel")
	saveAll(t, srv) // the put commits
	a.DoExpect("get lantern from satchel", "You get a brass lantern from a canvas satchel")
	saveAll(t, srv) // the get commits
	a.DoExpect("quit", "Farewell")
	if !a.WaitClosed(10 * time.Second) {
		t.Fatal("quit did not close the connection")
	}
	if n := srv.Store().Refused(); n != 0 {
		t.Fatalf("%d saves refused: moving an item out of a stored container was saved on one side only", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	srv2 := servertest.Start(t, cfg)
	b := servertest.Dial(t, srv2.TelnetAddr())
	b.Login("Ilse", "ilse-pass")
	b.DoExpect("inventory", "brass lantern")
	b.DoExpect("look in satchel", "A canvas satchel is empty.")
}

// saveAll checkpoints every zone now and waits until it is written.
func saveAll(t *testing.T, srv *server.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.World().SaveAll(ctx); err != nil {
		t.Fatal(err)
	}
}
