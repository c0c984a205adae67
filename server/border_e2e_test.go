package server_test

import (
	"fmt"
	"testing"

	"zonemud/server/servertest"
)

// A player who walks back and forth across a zone border as fast as the
// server answers: every crossing is a hand-over between two zones and a
// checkpoint, and another player keeps talking in the zone being left.
// Afterwards the walker is in one zone only, where it last stepped, and a
// fresh login after quit finds it there: no crossing's save was lost or
// applied out of order.
func TestBorder_BackAndForthAsFastAsAllowed(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.TelnetAddr()

	w := servertest.Dial(t, addr)
	w.Create("Wren", "wren-pass")
	o := servertest.Dial(t, addr)
	o.Create("Otto", "otto-pass")

	w.DoExpect("east", "Cinder Lane")
	w.DoExpect("east", "Exits:")
	o.DoExpect("east", "Cinder Lane")
	o.DoExpect("east", "Exits:")
	w.DoExpect("east", "Ridge Road")

	const crossings = 60
	for i := range crossings {
		dir, zone := "west", "emberfall"
		if i%2 == 1 {
			dir, zone = "east", "ashridge"
		}
		w.DoExpect(dir, "Exits:")
		o.Send(fmt.Sprintf("say crossing %d", i))
		z := srv.World().Where("Wren")
		if z == nil || z.ID() != zone {
			t.Fatalf("after crossing %d (%s) Wren is held by %v, want %s", i, dir, z, zone)
		}
	}
	// 60 crossings end where they began: east of the border, in Ash Ridge.
	w.DoExpect("look", "Ridge Road")
	o.DoExpect("look", "Exits:")
	w.Quit()

	w2 := servertest.Dial(t, addr)
	w2.Login("Wren", "wren-pass")
	w2.DoExpect("look", "Ridge Road")
	if z := srv.World().Where("Wren"); z == nil || z.ID() != "ashridge" {
		t.Fatalf("after a fresh login Wren is held by %v, want ashridge", z)
	}
}
