package zone_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"zonemud/content"
	"zonemud/internal/markup"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

// benchSession is a zone.Session that counts and discards output, for
// driving a zone without a network.
type benchSession struct {
	id    uint64
	bytes atomic.Int64
	mu    sync.Mutex
	last  []byte
	shut  atomic.Bool
	addr  string // what Client reports as the address the limits count
}

var sessionIDs atomic.Uint64

func newBenchSession() *benchSession { return &benchSession{id: sessionIDs.Add(1)} }

func (s *benchSession) ID() uint64 { return s.id }
func (s *benchSession) Write(p []byte, prompt bool) bool {
	s.bytes.Add(int64(len(p)))
	s.mu.Lock()
	s.last = append(s.last[:0], p...)
	s.mu.Unlock()
	return true
}
func (s *benchSession) Close(string)              { s.shut.Store(true) }
func (s *benchSession) Width() int                { return 80 }
func (s *benchSession) GMCP(pkg string, data any) {}
func (s *benchSession) Closed() bool              { return s.shut.Load() }
func (s *benchSession) Client() zone.ClientInfo {
	return zone.ClientInfo{Name: "bench", Color: markup.Color16, Addr: s.addr}
}
func (s *benchSession) SetColor(markup.Level) {}
func (s *benchSession) ResetColor()           {}
func (s *benchSession) Last() string          { s.mu.Lock(); defer s.mu.Unlock(); return string(s.last) }

// benchWorld builds a world over a real store in a temp dir, without
// starting any goroutine: the caller drives one zone by hand.
func benchWorld(tb testing.TB) (*world.World, *zone.Zone) {
	tb.Helper()
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := store.Open(filepath.Join(tb.TempDir(), "bench.db"), store.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	w, err := world.New(set, db, world.DefaultConfig(), cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	z := w.Zone("emberfall")
	z.BootForTest()
	return w, z
}

// enter puts a character into the zone on a bench session.
func enter(tb testing.TB, z *zone.Zone, name string) *benchSession {
	s := newBenchSession()
	z.Arrive(&zone.CharRecord{Name: name, Level: 1}, s, "", "")
	z.DrainForTest()
	if _, _, _, ok := z.CharState(name); !ok {
		tb.Fatalf("%s did not arrive", name)
	}
	return s
}

// BenchmarkPulse_ManyEntities is one pulse of a zone holding a thousand
// mobs and a thousand items with nothing due: it must allocate nothing.
func BenchmarkPulse_ManyEntities(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	z.SpawnForTest("emberfall:mob:rat", "emberfall:room:cellar", 1000)
	z.DropForTest("emberfall:item:bread", "emberfall:room:market", 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.TickForTest()
	}
}

// BenchmarkCommand measures the zone's cost of handling one command and
// flushing its output, for a few common commands.
func BenchmarkCommand(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	for _, cmd := range []string{"look", "say hello there", "inventory", "who", "exits", "north"} {
		b.Run(cmd, func(b *testing.B) {
			_, z := benchWorld(b)
			s := enter(b, z, "Bencher")
			others := make([]*benchSession, 20)
			for i := range others {
				others[i] = enter(b, z, fmt.Sprintf("Other%c", 'a'+i))
			}
			seq := uint64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				seq++
				line := cmd
				if cmd == "north" && i%2 == 1 {
					line = "south"
				}
				z.InputForTest(s, seq, line)
			}
		})
	}
}

// TestPulse_SteadyZoneAllocatesNothing pins what the pulse benchmark shows:
// a zone full of mobs and items with nothing due allocates nothing per
// pulse.
func TestPulse_SteadyZoneAllocatesNothing(t *testing.T) {
	// The zone is built without its scripts: a script's on_tick is work
	// that is due, and allocates in the VM.
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{})
	z.BootForTest()
	z.SpawnForTest("emberfall:mob:rat", "emberfall:room:cellar", 500)
	z.DropForTest("emberfall:item:bread", "emberfall:room:market", 500)
	z.TickForTest()
	// The zone's own periodic work (wanderers, checkpoints, resets) is
	// due now and then; measure pulses in between.
	if n := testing.AllocsPerRun(50, z.TickForTest); n > 0.5 {
		t.Fatalf("a steady pulse allocated %.1f times on average, want 0", n)
	}
}

// TestZone_DuplicateSeqApplyOnce: a line delivered twice with the same
// sequence number runs once.
func TestZone_DuplicateSeqApplyOnce(t *testing.T) {
	_, z := benchWorld(t)
	s := enter(t, z, "Echo")
	o := enter(t, z, "Listener")
	z.InputForTest(s, 1, "say first")
	z.InputForTest(s, 1, "say first")
	z.InputForTest(s, 2, "say second")
	z.InputForTest(s, 2, "say second")
	z.InputForTest(s, 1, "say stale")
	_ = o
	if got := z.DroppedInputs(); got != 3 {
		t.Fatalf("dropped %d duplicate inputs, want 3", got)
	}
}

// discardShard is the real world with checkpoints dropped after they are
// made, to time the zone's side of a checkpoint alone.
type discardShard struct{ *world.World }

func (discardShard) Checkpoint(*zone.SaveBatch) {}

// BenchmarkCheckpointSnapshot is the pause a checkpoint costs the zone
// goroutine: copying every dirty character (20 items each) into a batch.
// The encoding and the commit happen on the saver goroutine.
func BenchmarkCheckpointSnapshot(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("chars=%d", n), func(b *testing.B) {
			w, _ := benchWorld(b)
			set := w.Content()
			cfg := zone.DefaultConfig()
			cfg.Dormant = false
			z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{})
			z.BootForTest()
			id := uint64(1 << 40)
			for i := 0; i < n; i++ {
				rec := &zone.CharRecord{Name: fmt.Sprintf("Bot%06d", i), Level: 3}
				for j := 0; j < 20; j++ {
					id++
					rec.Items = append(rec.Items, zone.ItemRecord{ID: id, Proto: "emberfall:item:bread"})
				}
				z.Arrive(rec, newBenchSession(), "", "")
				if i%500 == 0 {
					z.DrainForTest()
				}
			}
			z.DrainForTest()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				z.DirtyAllForTest()
				z.CheckpointForTest()
			}
		})
	}
}

// BenchmarkPulse_Fights is one pulse of a zone with 200 fighting pairs and
// 1,000 other mobs under an affect that ticks: combat rounds every tenth
// pulse, affect and regeneration pulses every pulse.
func BenchmarkPulse_Fights(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	z.FightPairsForTest("emberfall:mob:rat", "emberfall:room:cellar", 200)
	z.AffectMobsForTest("emberfall:mob:rat", "emberfall:room:old_adit", 1000)
	for i := 0; i < 20; i++ {
		z.TickForTest()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.TickForTest()
	}
}

// BenchmarkPulse_ScriptedMobs is one pulse of a zone holding 500 mobs whose
// script defines on_tick (the priestess's: it counts seconds in self.state).
// on_tick runs once a second, so one pulse in four carries the calls.
func BenchmarkPulse_ScriptedMobs(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	z.SpawnForTest("emberfall:mob:priestess", "emberfall:room:graveyard", 500)
	for i := 0; i < 8; i++ {
		z.TickForTest()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.TickForTest()
	}
}

// BenchmarkGreet is one player arriving in a room with the greeting
// priestess: the move, the on_greet call, her line.
func BenchmarkGreet(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	s := enter(b, z, "Pilgrim")
	z.InputForTest(s, 1, "north")
	z.InputForTest(s, 2, "north")
	seq := uint64(2)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seq++
		z.InputForTest(s, seq, "west")
		seq++
		z.InputForTest(s, seq, "east")
	}
}
