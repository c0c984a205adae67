package zone

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// The hand-back tests run a zone on the fakes of its host alone
// (fakes_test.go): what they check is the zone's side of leaving.

// lockedBuf is a log buffer a zone writes and a test reads.
type lockedBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loggedZone is emberfall on a fake host, logging at Debug into the
// returned buffer, booted on the calling goroutine.
func loggedZone(t *testing.T) (*Zone, *fakeShard, *lockedBuf) {
	t.Helper()
	set, err := starterSet()
	if err != nil {
		t.Fatal(err)
	}
	sh := newFakeShard()
	buf := &lockedBuf{}
	lg := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	z := New(set.Zones["emberfall"], set, sh, DefaultConfig(), Options{Log: lg})
	sh.host(z)
	z.BootForTest()
	return z, sh, buf
}

// enter logs name in to z and waits until z holds them.
func enter(t *testing.T, z *Zone, name string) *fakeSession {
	t.Helper()
	s := newFakeSession()
	z.Arrive(&CharRecord{Name: name, Level: 1}, s, "", "")
	z.DrainForTest()
	if _, _, _, ok := z.CharState(name); !ok {
		t.Fatalf("%s did not arrive", name)
	}
	return s
}

// handBacks lists the 7006 lines of log as "player why".
func handBacks(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, "event=7006") {
			continue
		}
		var player, why string
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "player="); ok {
				player = v
			}
			if v, ok := strings.CutPrefix(f, "why="); ok {
				why = v
			}
		}
		out = append(out, player+" "+why)
	}
	return out
}

// Every way a character leaves a zone back to the world writes one 7006
// line with its reason: a login whose connection hung up on the way in
// (gone), one that arrives while the zone stops, and everyone the zone
// holds when it stops (stop).
func TestLogEvents_EveryHandBackIsLogged(t *testing.T) {
	z, sh, log := loggedZone(t)
	gone := newFakeSession()
	gone.Close("")
	z.Arrive(&CharRecord{Name: "Gone", Level: 1}, gone, "", "")
	z.DrainForTest()
	enter(t, z, "Stays")
	z.Arrive(&CharRecord{Name: "Late", Level: 1}, newFakeSession(), "", "") // handled as the zone stops
	z.StopForTest()
	got := strings.Join(handBacks(log.String()), ", ")
	if want := "Gone gone, Late stop, Stays stop"; got != want {
		t.Fatalf("hand-backs logged: %q, want %q\n%s", got, want, log.String())
	}
	if host := strings.Join(sh.handedBack(), ", "); host != got {
		t.Fatalf("the host took back %q, the log says %q", host, got)
	}
}

// Two faults in one zone, one after the other, each cost only their own
// player: both are told, disconnected and handed back; the player who
// did nothing stays and is answered; the zone counts both and takes a
// faulted player in again.
func TestZone_TwoFaultsInOneZone(t *testing.T) {
	z, sh, log := loggedZone(t)
	a, b, c := enter(t, z, "Alpha"), enter(t, z, "Bravo"), enter(t, z, "Carol")
	z.InputForTest(a, 1, "crashme")
	z.InputForTest(b, 1, "crashme")
	for name, s := range map[string]*fakeSession{"Alpha": a, "Bravo": b} {
		if !s.Closed() {
			t.Errorf("%s's session is still open after its fault", name)
		}
		if _, _, _, ok := z.CharState(name); ok {
			t.Errorf("%s is still held after its fault", name)
		}
	}
	if got := strings.Join(handBacks(log.String()), ", "); got != "Alpha fault, Bravo fault" {
		t.Errorf("hand-backs logged: %q, want both faults", got)
	}
	if got := strings.Join(sh.handedBack(), ", "); got != "Alpha fault, Bravo fault" {
		t.Errorf("the host took back %q, want both faulted players", got)
	}
	if z.Faults() != 2 {
		t.Errorf("faults: got %d, want 2", z.Faults())
	}
	z.InputForTest(c, 1, "look")
	if c.Closed() || !strings.Contains(c.String(), "Emberfall Square") {
		t.Fatalf("Carol after two faults beside her: closed %v, last saw %q", c.Closed(), c.String())
	}
	enter(t, z, "Alpha")
}

// A zone asked to hold a character it already holds (the world routes
// every login of a character to its zone, so this is a broken invariant)
// logs 7007 and never builds a second copy: the new session takes the
// character over, as a second login does, and the old one is closed.
func TestZone_ArrivalOfACharacterAlreadyHeldTakesItOver(t *testing.T) {
	z, sh, log := loggedZone(t)
	first := enter(t, z, "Twice")
	second := newFakeSession()
	z.Arrive(&CharRecord{Name: "Twice", Level: 1}, second, "", "")
	z.DrainForTest()
	if !strings.Contains(log.String(), "event=7007") {
		t.Fatalf("no 7007 line:\n%s", log.String())
	}
	if !first.Closed() || second.Closed() {
		t.Fatalf("after the second arrival: first closed %v, second closed %v; want the second to hold it", first.Closed(), second.Closed())
	}
	z.InputForTest(second, 1, "look")
	if !strings.Contains(second.String(), "Emberfall Square") {
		t.Fatalf("the second session is not answered: %q", second.String())
	}
	if n := z.Population(); n != 1 {
		t.Fatalf("population %d, want one Twice", n)
	}
	if got := sh.handedBack(); len(got) != 0 {
		t.Fatalf("the host took back %v; the character never left", got)
	}
}
