package zone

import (
	"strings"
	"testing"
)

// inputsQueued takes everything on z's mailbox and counts the lines of
// input among it.
func inputsQueued(z *Zone) int {
	n := 0
	for _, m := range z.mail.Pop() {
		if _, ok := m.(inputMsg); ok {
			n++
		}
	}
	return n
}

// A line routed to a zone just before its character walked on is passed
// to the zone the directory names, on its mailbox behind the handoff;
// a line for a character the directory places nowhere is dropped. The
// zones' host is the fakes alone.
func TestZone_LineForACharacterElsewhereGoesWhereTheDirectorySays(t *testing.T) {
	sh := newFakeShard()
	from := fakeHostedZone(t, sh, "emberfall")
	to := fakeHostedZone(t, sh, "whisperwood")
	inputsQueued(to)
	sh.place("Walker", to)
	from.handle(inputMsg{sess: newFakeSession(), name: "Walker", seq: 1, line: "look"})
	if n := inputsQueued(to); n != 1 {
		t.Fatalf("the zone the directory names got %d lines, want the forwarded one", n)
	}
	from.handle(inputMsg{sess: newFakeSession(), name: "Nobody", seq: 1, line: "look"})
	if n := inputsQueued(to) + inputsQueued(from); n != 0 {
		t.Fatalf("a line for a character held nowhere went on: %d queued, want none", n)
	}
}

// Every item a zone makes takes its durable id from the host's
// reservation, so two zones on one store never make two items with one
// id. The zones' host is the fakes alone.
func TestZone_ItemIDsComeFromTheReservation(t *testing.T) {
	sh := newFakeShard()
	seen := map[uint64]string{}
	for _, template := range []string{"emberfall", "whisperwood"} {
		z := fakeHostedZone(t, sh, template)
		if len(z.items) == 0 {
			t.Fatalf("%s made no items at boot", template)
		}
		for _, it := range z.items {
			if it.id == 0 || it.id > sh.nextID {
				t.Fatalf("%s made item %d outside the ids reserved (1 to %d)", template, it.id, sh.nextID)
			}
			if by, dup := seen[it.id]; dup {
				t.Fatalf("item id %d made by %s and by %s", it.id, by, template)
			}
			seen[it.id] = template
		}
	}
}

// A zone told of a reload takes the content its host runs now and says
// it did, once: a second notice of the same version changes nothing. The
// zones' host is the fakes alone.
func TestZone_ReloadNoticeReconcilesWithTheHostsSnapshot(t *testing.T) {
	sh := newFakeShard()
	z := fakeHostedZone(t, sh, "emberfall")
	z.handle(reloadMsg{})
	if got := sh.reconciles(); len(got) != 0 {
		t.Fatalf("reconciled with no snapshot to run: %v", got)
	}
	set, _ := starterSet()
	sh.run(&Snapshot{Version: 2, Set: set})
	z.handle(reloadMsg{})
	z.handle(reloadMsg{})
	if got := strings.Join(sh.reconciles(), " "); got != "emberfall@2" {
		t.Fatalf("reconciles reported: %q, want emberfall@2 once", got)
	}
	if v := z.Version(); v != 2 {
		t.Fatalf("the zone runs version %d, want 2", v)
	}
}

// Hop 1 of an entry asks the host for a copy on the entrance zone's
// behalf (the request names the zone itself, by pointer, and the player
// and their party), tells the player the way is opening, and asks nothing
// of a host that is shutting down. The zone's host is the fakes alone.
func TestZone_EntryAsksTheHostForACopyUnlessItDrains(t *testing.T) {
	const mound = "whisperwood:room:barrow_mound"
	sh := newFakeShard()
	z := fakeHostedZone(t, sh, "whisperwood")
	a, b := newFakeSession(), newFakeSession()
	z.Arrive(&CharRecord{Name: "Alpha", Level: 5}, a, mound, "")
	z.Arrive(&CharRecord{Name: "Bravo", Level: 5}, b, mound, "")
	z.DrainForTest()
	if line := sh.PartyAdd("Alpha", "Bravo", 4); line != "" {
		t.Fatal(line)
	}
	z.InputForTest(a, 1, "down")
	asked := sh.asked()
	if len(asked) != 1 {
		t.Fatalf("the host was asked for %d copies, want 1", len(asked))
	}
	if r := asked[0]; r.Template != "sunken_crypt" || r.Origin != z || r.Player != "Alpha" || r.Account != "Alpha" || r.Party != "Alpha" || r.Token == 0 {
		t.Fatalf("request %+v, want sunken_crypt for Alpha's party from this very zone, with a token", r)
	}
	if !strings.Contains(a.String(), enterOpening) {
		t.Fatalf("Alpha was not told the way opens:\n%s", a.String())
	}
	sh.drain()
	z.InputForTest(b, 1, "down")
	if n := len(sh.asked()); n != 1 {
		t.Fatalf("a draining host was asked for a copy (%d requests)", n)
	}
	if !strings.Contains(b.String(), enterDraining) {
		t.Fatalf("Bravo was not told why the way stays shut:\n%s", b.String())
	}
}

// An admin's shutdown starts the host's countdown and shows the admin
// the host's answer; cancel stops it; a player who is no admin starts
// nothing. The zone's host is the fakes alone.
func TestZone_ShutdownIsTheHostsCountdown(t *testing.T) {
	sh := newFakeShard()
	z := fakeHostedZone(t, sh, "emberfall")
	boss, pleb := newFakeSession(), newFakeSession()
	z.Arrive(&CharRecord{Name: "Boss", Level: 1, Admin: true}, boss, "", "")
	z.Arrive(&CharRecord{Name: "Pleb", Level: 1}, pleb, "", "")
	z.DrainForTest()
	z.InputForTest(pleb, 1, "shutdown 5")
	if got := sh.admin.running(); got != "" {
		t.Fatalf("a player who is no admin started a countdown: %q", got)
	}
	z.InputForTest(boss, 1, "shutdown 30 new areas")
	if got := sh.admin.running(); got != "Boss 30 new areas" {
		t.Fatalf("the host runs countdown %q, want Boss's of 30 s", got)
	}
	if !strings.Contains(boss.String(), "The countdown of 30 seconds begins.") {
		t.Fatalf("Boss was not shown the host's answer:\n%s", boss.String())
	}
	z.InputForTest(boss, 2, "shutdown cancel")
	if got := sh.admin.running(); got != "" {
		t.Fatalf("the countdown runs on after cancel: %q", got)
	}
}

// grant asks the host to change a role only once the zone has checked
// it (a builder's zones exist), and shows the admin the host's answer
// when it comes back by message. The zone's host is the fakes alone.
func TestZone_GrantAsksTheHostOnlyWhatItChecked(t *testing.T) {
	sh := newFakeShard()
	z := fakeHostedZone(t, sh, "emberfall")
	boss := newFakeSession()
	z.Arrive(&CharRecord{Name: "Boss", Level: 1, Admin: true}, boss, "", "")
	z.DrainForTest()
	z.InputForTest(boss, 1, "grant bob builder atlantis")
	if got := sh.changed(); len(got) != 0 {
		t.Fatalf("a grant of a zone that does not exist reached the host: %+v", got)
	}
	if !strings.Contains(boss.String(), `There is no zone "atlantis"`) {
		t.Fatalf("Boss was not told why:\n%s", boss.String())
	}
	z.InputForTest(boss, 2, "grant bob builder emberfall")
	z.DrainForTest()
	got := sh.changed()
	if len(got) != 1 || got[0].Name != "bob" || got[0].Role != RoleBuilder || !got[0].Grant || strings.Join(got[0].Zones, ",") != "emberfall" || got[0].By != "Boss" {
		t.Fatalf("the host was asked %+v, want Boss granting bob builder of emberfall", got)
	}
	if !strings.Contains(boss.String(), "Done: bob builder.") {
		t.Fatalf("Boss was not shown the host's answer:\n%s", boss.String())
	}
}
