package zone_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

// recShard is the real world with its checkpoint hand-off recorded, so a
// test can see exactly which batches a zone queued and in what order
// relative to hand-backs.
type recShard struct {
	*world.World
	mu     sync.Mutex
	events []string
	last   []*zone.SaveBatch
}

func (r *recShard) Checkpoint(b *zone.SaveBatch) {
	r.mu.Lock()
	names := []string{}
	for _, c := range b.Chars {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	r.events = append(r.events, "save:"+joinNames(names))
	r.last = append(r.last, b)
	r.mu.Unlock()
	r.World.Checkpoint(b)
}

func (r *recShard) HandBack(rec *zone.CharRecord, why string) {
	r.mu.Lock()
	r.events = append(r.events, "return:"+rec.Name)
	r.mu.Unlock()
	r.World.HandBack(rec, why)
}

func joinNames(n []string) string {
	out := ""
	for i, s := range n {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}

func (r *recShard) batches() []*zone.SaveBatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*zone.SaveBatch(nil), r.last...)
}

func (r *recShard) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// saveZone builds the emberfall zone over a recording shard and a real
// store, driven by hand on the test goroutine.
func saveZone(t *testing.T, seed uint64) (*zone.Zone, *recShard) {
	t.Helper()
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "save.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	w, err := world.New(set, db, world.DefaultConfig(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := &recShard{World: w}
	z := zone.New(set.Zones["emberfall"], set, rs, cfg, zone.Options{Seed: seed})
	z.BootForTest()
	return z, rs
}

// A character is saved only when it changed since its last committed
// save: a checkpoint with nothing changed queues nothing.
func TestSave_OnlyWhenChanged(t *testing.T) {
	z, rs := saveZone(t, 1)
	s := enter(t, z, "Aria")
	z.CheckpointForTest()
	n := len(rs.batches())
	if n != 1 {
		t.Fatalf("arrival: %d batches, want 1 (a login is worth saving once)", n)
	}
	ver, _, arrival, _ := z.CharState("Aria")
	z.SavedForTest("Aria", arrival, ver, nil)
	z.CheckpointForTest()
	if got := len(rs.batches()); got != n {
		t.Fatalf("a clean character was saved again: %d batches", got)
	}
	z.InputForTest(s, 1, "look")
	z.CheckpointForTest()
	if got := len(rs.batches()); got != n+1 {
		t.Fatalf("a changed character was not saved: %d batches", got)
	}
}

// The first save falls within one interval of arrival, at a point that
// differs from zone to zone, and then every interval.
func TestSave_FirstWithinOneIntervalThenEvery(t *testing.T) {
	phases := map[int]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		z, rs := saveZone(t, seed)
		interval := int(z.CheckpointInterval())
		s := enter(t, z, "Aria")
		first := -1
		var saves []int
		for p := 1; p <= 3*interval; p++ {
			z.TickForTest()
			z.DrainForTest()
			if n := len(rs.batches()); n > len(saves) {
				saves = append(saves, p)
				if first < 0 {
					first = p
				}
				// Keep the character dirty so every checkpoint saves.
				z.InputForTest(s, uint64(p), "look")
			}
		}
		if first < 1 || first > interval {
			t.Fatalf("seed %d: first save at pulse %d, want within 1..%d", seed, first, interval)
		}
		for i := 1; i < len(saves); i++ {
			if saves[i]-saves[i-1] != interval {
				t.Fatalf("seed %d: saves at %v, want every %d pulses", seed, saves, interval)
			}
		}
		phases[first] = true
	}
	if len(phases) < 3 {
		t.Fatalf("first-save pulses %v: want them spread, not all at one point", phases)
	}
}

// A save from an earlier stay never marks this stay clean: the answer
// carries the arrival it belongs to.
func TestSave_EarlierArrivalNeverMarksClean(t *testing.T) {
	z, _ := saveZone(t, 1)
	s := enter(t, z, "Aria")
	z.InputForTest(s, 1, "look")
	ver, _, arrival, _ := z.CharState("Aria")
	// The character leaves the zone and comes back before the answer to
	// the save from its first stay arrives.
	z.InputForTest(s, 2, "east")
	z.InputForTest(s, 3, "east")
	z.InputForTest(s, 4, "east") // into Ash Ridge: out of this zone
	if _, _, _, ok := z.CharState("Aria"); ok {
		t.Fatalf("Aria should have left emberfall; last output %q", s.Last())
	}
	rec := &zone.CharRecord{Name: "Aria", Level: 1, Arrival: arrival}
	s2 := newBenchSession()
	z.Arrive(rec, s2, "", "")
	z.DrainForTest()
	_, _, arrival2, ok := z.CharState("Aria")
	if !ok || arrival2 == arrival {
		t.Fatalf("second arrival %d, first %d: want a new arrival", arrival2, arrival)
	}
	z.SavedForTest("Aria", arrival, ver+100, nil) // the old stay's answer
	v, saved, _, _ := z.CharState("Aria")
	if saved >= v {
		t.Fatalf("an earlier stay's save marked this one clean (ver %d, saved %d)", v, saved)
	}
	z.SavedForTest("Aria", arrival2, v, nil)
	if _, saved, _, _ := z.CharState("Aria"); saved != v {
		t.Fatalf("this stay's own save did not mark it clean")
	}
}

// A failed commit leaves the character dirty for the next checkpoint.
func TestSave_FailedCommitStaysDirty(t *testing.T) {
	z, rs := saveZone(t, 1)
	s := enter(t, z, "Aria")
	z.InputForTest(s, 1, "look")
	ver, _, arrival, _ := z.CharState("Aria")
	z.SavedForTest("Aria", arrival, ver, errFake)
	if _, saved, _, _ := z.CharState("Aria"); saved == ver {
		t.Fatal("a failed save marked the character clean")
	}
	n := len(rs.batches())
	z.CheckpointForTest()
	if len(rs.batches()) != n+1 {
		t.Fatal("the next checkpoint did not retry the character")
	}
}

// Every dirty character of the zone goes in one batch: a give between two
// players is never half saved.
func TestSave_GiveIsOneBatch(t *testing.T) {
	z, rs := saveZone(t, 1)
	a := enter(t, z, "Aria")
	b := enter(t, z, "Bren")
	z.InputForTest(a, 1, "south") // the inn
	z.InputForTest(a, 2, "get lantern")
	z.InputForTest(b, 1, "south")
	z.InputForTest(a, 3, "give lantern bren")
	z.CheckpointForTest()
	bs := rs.batches()
	last := bs[len(bs)-1]
	names := map[string]bool{}
	for _, c := range last.Chars {
		names[c.Name] = true
	}
	if !names["Aria"] || !names["Bren"] {
		t.Fatalf("the give's batch holds %v, want both", names)
	}
}

// Leaving order: the save is queued before the return is posted, for quit
// and for a move to another zone (where it holds everyone dirty, so a give
// just before the move commits with it).
func TestSave_QueuedBeforeReturn(t *testing.T) {
	z, rs := saveZone(t, 1)
	a := enter(t, z, "Aria")
	b := enter(t, z, "Bren")
	z.InputForTest(b, 1, "look")
	z.InputForTest(a, 1, "quit")
	log := rs.log()
	i := slices.Index(log, "return:Aria")
	if i < 1 || log[i-1] != "save:Aria,Bren" {
		t.Fatalf("events %v: want the save of Aria (with dirty Bren) just before her return", log)
	}
}

var errFake = fakeErr("commit failed")

type fakeErr string

func (e fakeErr) Error() string { return string(e) }

// A fault while a character arrives hands it back exactly once, whether it
// struck before the zone took the character in or after it was bound to
// its session.
func TestSave_FaultInArrivalHandsBackOnce(t *testing.T) {
	for _, late := range []bool{false, true} {
		z, rs := saveZone(t, 1)
		z.FaultArrivalsForTest(1, late)
		s := newBenchSession()
		z.Arrive(&zone.CharRecord{Name: "Faulty", Level: 1}, s, "", "")
		z.DrainForTest()
		returns := 0
		for _, e := range rs.log() {
			if e == "return:Faulty" {
				returns++
			}
		}
		if returns != 1 || z.Faults() != 1 {
			t.Fatalf("late=%v: %d hand-backs and %d faults, want 1 and 1; events %v", late, returns, z.Faults(), rs.log())
		}
		if _, _, _, held := z.CharState("Faulty"); held {
			t.Fatalf("late=%v: the zone still holds the faulted character", late)
		}
		if !s.Closed() {
			t.Fatalf("late=%v: the faulted login's session is still open", late)
		}
	}
}

// A character walking into a zone that has stopped (the world is shutting
// down, or the zone was unhosted) is not lost in a mailbox nobody reads: it
// comes back to the room it left, is told the way is blocked, and when its
// own zone stops it is handed back, saved as a leaver, like everyone else.
func TestSave_WalkIntoAStoppedZoneKeepsTheCharacter(t *testing.T) {
	z, rs := saveZone(t, 1)
	ww := rs.Zone("whisperwood")
	ww.BootForTest()
	ww.StopForTest()
	s := enter(t, z, "Latecomer")
	z.SetDoorForTest("emberfall:room:north_gate", "north", "open")
	for i := range 4 {
		z.InputForTest(s, uint64(i+1), "north")
	}
	if !strings.Contains(s.Last(), "That way is blocked for now.") || !strings.Contains(s.Last(), "North Gate") {
		t.Fatalf("after walking into a stopped zone the player saw %q; want the way blocked and the gate again", s.Last())
	}
	if _, _, _, ok := z.CharState("Latecomer"); !ok || s.Closed() {
		t.Fatalf("the character is not back in its zone (held %v, session closed %v)", ok, s.Closed())
	}
	z.StopForTest()
	if !slices.Contains(rs.log(), "return:Latecomer") {
		t.Fatalf("not handed back when its zone stopped; events %v", rs.log())
	}
	if !s.Closed() {
		t.Fatal("the session of a character handed back at shutdown is still open")
	}
	bs := rs.batches()
	if last := bs[len(bs)-1]; !slices.Contains(last.Leaving, "Latecomer") {
		t.Fatalf("the last save does not carry the character as a leaver: %+v", last.Leaving)
	}
}

// A persistent item inside a container that is not kept is saved as if it
// lay on the floor, and taking the container away saves the room without
// it: it is never in no record, nor in two.
func TestSave_PersistentItemInAContainerOnTheFloor(t *testing.T) {
	z, rs := saveZone(t, 1)
	urn := z.ItemProtoForTest("sunken_crypt:item:grave_urn")
	urn.Flags &^= content.ItemNoTake
	z.ItemProtoForTest("emberfall:item:bread").Flags |= content.ItemPersistent
	a := enter(t, z, "Aria")
	z.DropForTest("sunken_crypt:item:grave_urn", "emberfall:room:square", 1)
	z.DropForTest("emberfall:item:bread", "emberfall:room:square", 1)
	z.InputForTest(a, 1, "get bread")
	z.InputForTest(a, 2, "put bread in urn")
	roomHolds := func(proto string) (saved, holds bool) {
		z.CheckpointForTest()
		bs := rs.batches()
		for _, r := range bs[len(bs)-1].Rooms {
			if r.Room == "emberfall:room:square" {
				saved = true
				for _, it := range r.Items {
					holds = holds || it.Proto == proto
				}
			}
		}
		return saved, holds
	}
	if saved, holds := roomHolds("emberfall:item:bread"); !saved || !holds {
		t.Fatalf("the bread in an urn on the floor is not saved with the square (saved %v, holds %v)", saved, holds)
	}
	z.InputForTest(a, 3, "get urn")
	if saved, holds := roomHolds("emberfall:item:bread"); !saved || holds {
		t.Fatalf("after the urn was taken the square was not saved without the bread (saved %v, holds %v)", saved, holds)
	}
}

// Persistent objects handed to a zone are placed by a permanent zone and
// never by an instance: every copy of a template has the same room refs,
// so placing them would make one stored item lootable in every copy.
func TestInstance_PlacesNoStoredObjects(t *testing.T) {
	w, _ := benchWorld(t)
	set := w.Content()
	objs := map[string][]zone.ItemRecord{"sunken_crypt:room:stair": {{ID: 99, Proto: "emberfall:item:bread"}}}
	cfg := zone.DefaultConfig()
	perm := zone.New(set.Zones["sunken_crypt"], set, w, cfg, zone.Options{Objects: objs})
	perm.BootForTest()
	if !perm.HasItemID(99) {
		t.Fatal("a permanent zone did not place the stored object it was handed")
	}
	inst := zone.New(set.Zones["sunken_crypt"], set, w, cfg, zone.Options{ID: zone.NewInstanceID("sunken_crypt"), Objects: objs})
	inst.BootForTest()
	if inst.HasItemID(99) {
		t.Fatal("an instance placed a stored persistent object")
	}
}

// A door on a zone border changed on both sides at once ends the same on
// both: the later stamp wins everywhere.
func TestDoor_BorderSidesAgree(t *testing.T) {
	w, em := benchWorld(t)
	ww := w.Zone("whisperwood")
	ww.BootForTest()
	drain := func() {
		for i := 0; i < 3; i++ {
			em.DrainForTest()
			ww.DrainForTest()
		}
	}
	drain()
	gate, edge := "emberfall:room:north_gate", "whisperwood:room:forest_edge"
	if a, b := em.DoorState(gate, "north"), ww.DoorState(edge, "south"); a != b {
		t.Fatalf("after boot the gate is %s on one side and %s on the other", a, b)
	}
	em.SetDoorForTest(gate, "north", "open")
	drain()
	if got := ww.DoorState(edge, "south"); got != "open" {
		t.Fatalf("opened in emberfall, the gate is %s in the whisperwood", got)
	}
	for _, first := range []string{"emberfall", "whisperwood"} {
		em.SetDoorForTest(gate, "north", "open")
		ww.SetDoorForTest(edge, "south", "closed")
		if first == "whisperwood" {
			ww.SetDoorForTest(edge, "south", "locked")
		}
		drain()
		if a, b := em.DoorState(gate, "north"), ww.DoorState(edge, "south"); a != b {
			t.Fatalf("changed on both sides at once: %s on one side, %s on the other", a, b)
		}
	}
}

// A walk across a zone border is saved once: the zone left checkpoints the
// walker standing in the room it walks into, so the zone it arrives in has
// nothing more of it to save until it changes there. (Each arrival used to
// count as a change: two records for every crossing, the saver's work
// doubled for a world of walkers.) A change after the arrival is saved as
// ever.
func TestSave_BorderWalkIsSavedOnce(t *testing.T) {
	z, rs := saveZone(t, 1)
	ar := rs.Zone("ashridge")
	ar.BootForTest()
	s := enter(t, z, "Walker")
	for i, dir := range []string{"east", "east", "east"} {
		z.InputForTest(s, uint64(i+1), dir)
	}
	ar.DrainForTest()
	if got := ar.PlayerRoomForTest("Walker"); got != "ashridge:room:ridge_road" {
		t.Fatalf("the walker stands in %q, want the Ridge Road", got)
	}
	var left *zone.CharRecord
	for _, b := range rs.batches() {
		for _, c := range b.Chars {
			if c.Name == "Walker" {
				left = c
			}
		}
	}
	if left == nil || left.Room != "ashridge:room:ridge_road" || left.Zone != "ashridge" {
		t.Fatalf("the zone left saved the walker as %+v, want it on the Ridge Road", left)
	}
	before := ar.CheckpointsForTest()
	ar.CheckpointForTest()
	if n := ar.CheckpointsForTest() - before; n != 0 {
		t.Fatalf("the zone arrived in queued %d batches with nothing changed since the crossing's save, want none", n)
	}
	ar.InputForTest(s, 4, "brief")
	ar.CheckpointForTest()
	if n := ar.CheckpointsForTest() - before; n != 1 {
		t.Fatalf("a change after the arrival queued %d batches, want one", n)
	}
}

// lastWith is the names in the last batch that holds name.
func lastWith(rs *recShard, name string) map[string]bool {
	var out map[string]bool
	for _, b := range rs.batches() {
		names := map[string]bool{}
		for _, c := range b.Chars {
			names[c.Name] = true
		}
		if names[name] {
			out = names
		}
	}
	return out
}

// A walk into another zone saves the walker, and of the dirty characters
// staying, only those whose holdings changed since their last save: a
// stayer that only looked waits for the periodic checkpoint, which then
// saves it.
func TestSave_CrossingLeavesAnUnchangedStayerForTheCheckpoint(t *testing.T) {
	z, rs := saveZone(t, 1)
	rs.Zone("ashridge").BootForTest()
	w := enter(t, z, "Walker")
	b := enter(t, z, "Bren")
	z.CheckpointForTest() // both saved once as they are
	z.InputForTest(b, 1, "look")
	for i, dir := range []string{"east", "east", "east"} {
		z.InputForTest(w, uint64(i+1), dir)
	}
	if got := lastWith(rs, "Walker"); !got["Walker"] || got["Bren"] {
		t.Fatalf("the crossing's batch holds %v, want the walker alone", got)
	}
	z.CheckpointForTest()
	if got := lastWith(rs, "Bren"); len(got) != 1 || !got["Bren"] {
		t.Fatalf("the checkpoint after the crossing saved %v, want Bren", got)
	}
}

// A give just before a walk into another zone is saved whole with the
// walk, whoever walks: the walker and its taker if it is a side of the
// give, both sides with the walker if not.
func TestSave_GiveBeforeACrossingIsInItsBatch(t *testing.T) {
	for _, walker := range []string{"Aria", "Cato"} {
		t.Run(walker, func(t *testing.T) {
			z, rs := saveZone(t, 1)
			rs.Zone("ashridge").BootForTest()
			s := map[string]*benchSession{}
			for _, n := range []string{"Aria", "Bren", "Cato"} {
				s[n] = enter(t, z, n)
			}
			z.CheckpointForTest()
			z.InputForTest(s["Aria"], 1, "south") // the inn
			z.InputForTest(s["Aria"], 2, "get lantern")
			z.InputForTest(s["Aria"], 3, "north")
			z.CheckpointForTest()
			taker := "Bren"
			if walker == "Aria" {
				taker = "Cato"
			}
			z.InputForTest(s["Aria"], 4, "give lantern "+taker)
			for i, dir := range []string{"east", "east", "east"} {
				z.InputForTest(s[walker], uint64(10+i), dir)
			}
			got := lastWith(rs, walker)
			if !got["Aria"] || !got[taker] {
				t.Fatalf("the crossing's batch holds %v, want Aria and %s with the walker", got, taker)
			}
		})
	}
}

// A player whose output waits out the gap in a crowd and who walks into
// another zone is dropped from the flush list and heap of the zone left:
// from the walk on another zone's goroutine owns the character, and the
// zone left must never read it again (a flush that did would race with
// its new owner).
func TestFlush_AWalkerWithOutputWaitingLeavesNothingBehind(t *testing.T) {
	z, rs := saveZone(t, 1)
	rs.Zone("ashridge").BootForTest()
	z.SetCrowdSizeForTest(1)
	z.SetFlushGapForTest(time.Hour)
	enter(t, z, "Cora") // her wait falls due first: the walker's is not the heap's top
	w := enter(t, z, "Walker")
	b := enter(t, z, "Bren")
	z.QueueInputForTest(b, 1, "say wait for it")
	z.BatchForTest()
	if n := z.WaitEntriesForTest(); n == 0 {
		t.Fatal("Bren's line does not wait out the walker's gap: the test sets nothing up")
	}
	z.QueueInputForTest(w, 1, "east")
	z.BatchForTest()
	if got := w.Last(); !strings.Contains(got, "wait for it") {
		t.Fatalf("the walker's answer does not carry what waited for them:\n%s", got)
	}
	for i, dir := range []string{"east", "east"} {
		z.QueueInputForTest(w, uint64(i+2), dir)
		z.BatchForTest()
	}
	rs.Zone("ashridge").DrainForTest()
	if got := rs.Zone("ashridge").PlayerRoomForTest("Walker"); got != "ashridge:room:ridge_road" {
		t.Fatalf("the walker is in %q, not across the border", got)
	}
	if n := z.WaitEntriesForTest(); n != 1 {
		t.Fatalf("emberfall names %d waiting players after the walker left; want Cora alone", n)
	}
	if !z.WaitingConsistentForTest() {
		t.Fatal("the zone's count of waiting players is off")
	}
}
