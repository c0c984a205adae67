package server_test

import (
	"testing"
	"time"

	"zonemud/server/servertest"
)

// A panic in one player's command handler disconnects only that player,
// saves their character, and the zone goes on serving everyone else.
func TestZone_PanicCostsOnlyThatSession(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Alpha", "secret-a")
	b := servertest.Dial(t, srv.TelnetAddr())
	b.Create("Bravo", "secret-b")
	a.Skip()
	b.Send("say before")
	a.Expect("Bravo says, 'before'")

	a.Send("crashme")
	a.Expect("Something went wrong on our side")
	if !a.WaitClosed(15 * time.Second) {
		t.Fatal("the faulting session was not disconnected")
	}
	b.Expect("Alpha has left") // hand-back is seen by the room
	b.DoExpect("say after", "You say, 'after'")
	z := srv.World().Zone("emberfall")
	if z.Faults() != 1 {
		t.Fatalf("faults: got %d, want 1", z.Faults())
	}
	// The faulted character can log in again.
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Login("Alpha", "secret-a")
	b.Expect("Alpha has entered the world")
}

// A fault while a login arrives in its zone disconnects that login and
// hands the character back, so the next login works instead of waiting on
// a zone that never took the character in.
func TestZone_FaultInArrivalDoesNotStrand(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Strand", "strand-pass")
	a.DoExpect("quit", "Farewell")
	srv.World().Zone("emberfall").FaultArrivalsForTest(1, false)
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Expect("name")
	a2.Send("Strand")
	a2.Expect("password")
	a2.Send("strand-pass")
	a2.Expect("Something went wrong on our side")
	if !a2.WaitClosed(15 * time.Second) {
		t.Fatal("the login whose arrival faulted was not disconnected")
	}
	a3 := servertest.Dial(t, srv.TelnetAddr())
	a3.Login("Strand", "strand-pass")
	a3.DoExpect("look", "Square")
}
