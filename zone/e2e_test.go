package zone_test

import (
	"testing"
	"time"

	"zonemud/internal/servertest"
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
	if !a.WaitClosed(5 * time.Second) {
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
