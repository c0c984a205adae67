package world

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"zonemud/content"
	"zonemud/store"
	"zonemud/zone"
)

// zoneGoroutines counts the goroutines whose pprof labels name zone id.
func zoneGoroutines(t testing.TB, id string) int {
	t.Helper()
	return labelled(t, `"zone":"`+id+`"`)
}

// labelled counts the goroutines whose pprof labels contain want.
func labelled(t testing.TB, want string) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	n, count := 0, 0
	for _, line := range strings.Split(b.String(), "\n") {
		if c, _, ok := strings.Cut(line, " @ "); ok {
			count, _ = strconv.Atoi(c)
			continue
		}
		if strings.HasPrefix(line, "# labels:") && strings.Contains(line, want) {
			n += count
		}
	}
	return n
}

// startedWorld is a running world over a real store, shut down when the
// test ends.
func startedWorld(t testing.TB, cfg Config, set *content.Set) *World {
	return startedWorldWith(t, cfg, zone.DefaultConfig(), set, nil)
}

// startedWorldWith is startedWorld with a zone config, and characters
// stored before the world starts.
func startedWorldWith(t testing.TB, cfg Config, zcfg zone.Config, set *content.Set, chars []*store.Character) *World {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "w.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(chars) > 0 {
		if res, err := db.Commit([]*store.Batch{{Zone: "setup", Chars: chars}}); err != nil || res[0] != nil {
			t.Fatalf("store the characters: %v %v", err, res)
		}
	}
	if set == nil {
		if set, err = content.Load(os.DirFS("../areas")); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(set, db, cfg, zcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		db.Close()
	})
	return w
}

// leaseGen is the generation of the lease the world holds for zone id.
func leaseGen(w *World, id string) uint64 {
	w.routeMu.RLock()
	h := w.hosts[id]
	w.routeMu.RUnlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease.Gen
}

// booted waits until z's goroutine has booted it and handled a message.
func booted(t testing.TB, z *zone.Zone) {
	t.Helper()
	done := make(chan struct{})
	if !z.Heartbeat(0, func() { close(done) }) {
		t.Fatalf("zone %s has stopped", z.ID())
	}
	<-done
}

// A permanent zone comes out of the world and back in while the server
// runs: unhosted, its goroutine is gone and nothing finds it; hosted again,
// it runs under a newer lease, and every view of the world counts it.
func TestHost_UnhostAndHostAgainAtRuntime(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	first := leaseGen(w, "ashridge")
	booted(t, w.Zone("ashridge"))
	if n := zoneGoroutines(t, "ashridge"); n != 1 {
		t.Fatalf("%d goroutines labelled ashridge before the unhost, want 1", n)
	}
	if err := w.Unhost(t.Context(), "ashridge"); err != nil {
		t.Fatalf("unhost of an empty zone: %v", err)
	}
	if n := zoneGoroutines(t, "ashridge"); n != 0 {
		t.Fatalf("%d goroutines labelled ashridge after the unhost returned, want 0", n)
	}
	if w.Zone("ashridge") != nil || len(w.ZonesOf("ashridge")) != 0 {
		t.Fatal("an unhosted zone is still found")
	}
	w.Flush()
	if l, err := w.db.ZoneLease("ashridge"); err != nil || l != (store.Lease{Gen: first, Released: true}) {
		t.Fatalf("the store's lease record after the unhost: %+v, %v; want generation %d released", l, err, first)
	}
	z, err := w.Host(t.Context(), HostSpec{Template: "ashridge"})
	if err != nil {
		t.Fatal(err)
	}
	booted(t, z)
	if w.Zone("ashridge") != z || zoneGoroutines(t, "ashridge") != 1 {
		t.Fatal("the zone hosted again is not found or not running")
	}
	if got := leaseGen(w, "ashridge"); got <= first {
		t.Fatalf("hosted again under generation %d, want above %d", got, first)
	}
	found := false
	for _, oz := range w.Zones() {
		found = found || oz == z
	}
	if !found {
		t.Fatal("Zones() does not list a zone hosted at runtime")
	}
	if _, err := w.Host(t.Context(), HostSpec{Template: "ashridge"}); !errors.Is(err, ErrHosted) {
		t.Fatalf("a second host of ashridge: %v, want ErrHosted", err)
	}
}

// What may not be hosted or unhosted is refused with a clear error, and
// leaves the world as it was.
func TestHost_BadRequestsAreRefused(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	before := len(w.Zones())
	for _, c := range []struct {
		spec HostSpec
		want error
	}{
		{HostSpec{Template: "atlantis"}, ErrNoTemplate},
		{HostSpec{Template: "emberfall"}, ErrHosted},
		{HostSpec{Template: "sunken_crypt"}, ErrNoTemplate}, // a template is entered only through copies
		{HostSpec{Template: "emberfall", Instance: true}, ErrNoTemplate},
	} {
		if _, err := w.Host(t.Context(), c.spec); !errors.Is(err, c.want) {
			t.Errorf("host %+v: %v, want %v", c.spec, err, c.want)
		}
	}
	for id, want := range map[string]error{"atlantis": ErrNotHosted, "sunken_crypt#00": ErrNotHosted, "emberfall": ErrPinned} {
		if err := w.Unhost(t.Context(), id); !errors.Is(err, want) {
			t.Errorf("unhost %s: %v, want %v", id, err, want)
		}
	}
	if got := len(w.Zones()); got != before {
		t.Fatalf("refused requests changed the zones hosted: %d, want %d", got, before)
	}
}

// An unhost is refused while a character is in the zone, and goes through
// once it has left.
func TestUnhost_RefusedWhileSomeoneIsThere(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	s := &nullSession{}
	rt, err := w.Enter("Miner", s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		rt.Input(uint64(i+1), "east")
	}
	waitFor(t, func() bool { return w.Where("Miner") == w.Zone("ashridge") })
	if err := w.Unhost(t.Context(), "ashridge"); !errors.Is(err, ErrBusy) {
		t.Fatalf("unhost with a character inside: %v, want ErrBusy", err)
	}
	if w.Zone("ashridge") == nil || zoneGoroutines(t, "ashridge") != 1 {
		t.Fatal("a refused unhost stopped the zone")
	}
	rt.Input(4, "quit")
	waitFor(t, func() bool { return w.Where("Miner") == nil })
	if err := w.Unhost(t.Context(), "ashridge"); err != nil {
		t.Fatalf("unhost once the zone emptied: %v", err)
	}
}

// A thousand copies hosted and unhosted leave no goroutine, no directory
// record and no memory behind.
func TestHost_ThousandCyclesLeaveNothingBehind(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	cycle := func(n int) {
		for i := 0; i < n; i++ {
			z, err := w.Host(t.Context(), HostSpec{Template: "sunken_crypt", Instance: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Unhost(t.Context(), z.ID()); err != nil {
				t.Fatalf("cycle %d: %v", i, err)
			}
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	cycle(100)
	goroutines, before := runtime.NumGoroutine(), heap()
	running := w.gr.Running()
	cycle(1000)
	after := heap()
	if got := w.gr.Running(); got != running {
		t.Fatalf("world goroutines %d after 1000 cycles, %d before", got, running)
	}
	if got := runtime.NumGoroutine(); got > goroutines {
		t.Fatalf("%d goroutines after 1000 cycles, %d before", got, goroutines)
	}
	if list, _ := w.dir.List(t.Context(), "sunken_crypt"); len(list) != 0 {
		t.Fatalf("the directory still lists %d copies", len(list))
	}
	if len(w.Zones()) != 3 {
		t.Fatalf("%d zones hosted after the cycles, want the 3 permanent ones", len(w.Zones()))
	}
	// A copy costs hundreds of kilobytes while it runs; a leak of a few
	// hundred bytes a cycle would show as well over 100 KB here.
	if after > before+256<<10 {
		t.Fatalf("heap grew from %d to %d bytes over 1000 cycles", before, after)
	}
}

// starterFS is the starter areas folder as a map, for a test to add to,
// edit or reload.
func starterFS(tb testing.TB) fstest.MapFS {
	tb.Helper()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("../areas"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join("../areas", p))
		fsys[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return fsys
}

// keepSet is the starter world plus "keep", an instanceable template of 50
// rooms in a row with a mob and its sword in each: the size of dungeon the
// instancing issue must mint in under 5 ms.
func keepSet(tb testing.TB) *content.Set {
	tb.Helper()
	fsys := starterFS(tb)
	var b strings.Builder
	b.WriteString("[zone]\nname = \"The Keep\"\ndescription = \"Fifty rooms.\"\nreset_secs = 0\nstart_room = \"r0\"\ninstanceable = true\nlevels = [1, 5]\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "[rooms.r%d]\nname = \"Hall %d\"\ndescription = \"A long hall of the keep, the %dth.\"\n", i, i, i)
		var exits []string
		if i > 0 {
			exits = append(exits, fmt.Sprintf("west = \"r%d\"", i-1))
		}
		if i < 49 {
			exits = append(exits, fmt.Sprintf("east = \"r%d\"", i+1))
		}
		fmt.Fprintf(&b, "exits = { %s }\n\n", strings.Join(exits, ", "))
	}
	b.WriteString(`[mobs.guard]
keywords = ["guard"]
short = "a keep guard"
long = "A keep guard stands here."
description = "A guard."
level = 2
hp = "2d8+4"
damage = "1d4"
damage_type = "slash"
attack_verb = "slash"
attacks = 1

[items.sword]
keywords = ["sword"]
short = "a sword"
long = "A sword lies here."
description = "A sword."
type = "weapon"
wear = "wield"
weight = 3
value = 5
damage = "1d6"
damage_type = "slash"
attack_verb = "slash"

`)
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "[[resets]]\nmob = \"guard\"\nroom = \"r%d\"\nmax = 1\nequip = [\"sword\"]\n\n", i)
	}
	fsys["keep.toml"] = &fstest.MapFile{Data: []byte(b.String())}
	set, err := content.Load(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// BenchmarkHost_FiftyRoomCopy hosts a copy of a 50-room template, waits
// until its goroutine has booted it (every room built, every reset run),
// and unhosts it: the cost of a mint and a reap.
func BenchmarkHost_FiftyRoomCopy(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	w := startedWorld(b, DefaultConfig(), keepSet(b))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		z, err := w.Host(ctx, HostSpec{Template: "keep", Instance: true})
		if err != nil {
			b.Fatal(err)
		}
		booted(b, z)
		if err := w.Unhost(ctx, z.ID()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHost_PermanentZone unhosts and hosts again a permanent zone
// (Ash Ridge, 26 rooms): a lease released and a new one taken, the room
// objects read from the store.
func BenchmarkHost_PermanentZone(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	w := startedWorld(b, DefaultConfig(), nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Unhost(ctx, "ashridge"); err != nil {
			b.Fatal(err)
		}
		z, err := w.Host(ctx, HostSpec{Template: "ashridge"})
		if err != nil {
			b.Fatal(err)
		}
		booted(b, z)
	}
}

// A zone whose goroutine stops answering (wedged in a handler) loses its
// lease once the TTL has passed: the loss is counted and logged, the store
// refuses what the zone saves under the lapsed lease, and when it answers
// again it takes a newer lease and its saves commit again.
func TestLease_WedgedZoneLosesItsLeaseAndCannotSave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		zcfg := zone.DefaultConfig()
		zcfg.CheckpointSecs = 1
		w := startedWorldWith(t, DefaultConfig(), zcfg, nil, []*store.Character{
			{Name: "Digger", Epoch: 1, Level: 1, Place: store.Placement{Zone: "ashridge", Room: "ashridge:room:pithead"}},
		})
		stored := func() uint64 {
			t.Helper()
			w.Flush()
			c, err := w.db.Character("Digger")
			if err != nil {
				t.Fatal(err)
			}
			return c.Commands
		}
		s := &nullSession{}
		rt, err := w.Enter("Digger", s)
		if err != nil {
			t.Fatal(err)
		}
		z := w.Zone("ashridge")
		first := leaseGen(w, "ashridge")
		rt.Input(1, "look")
		time.Sleep(2 * time.Second)
		if got := stored(); got != 1 {
			t.Fatalf("stored commands %d before the wedge, want 1", got)
		}

		release := make(chan struct{})
		z.Heartbeat(0, func() { <-release }) // wedges the zone's goroutine
		time.Sleep(30 * time.Second)         // two TTLs: the keeper finds it silent
		synctest.Wait()
		if got := w.LeasesLost(); got != 1 {
			t.Fatalf("%d leases lost, want 1 (ashridge)", got)
		}
		w.Flush()
		if l, err := w.db.ZoneLease("ashridge"); err != nil || l != (store.Lease{Gen: first, Released: true}) {
			t.Fatalf("store lease record of the wedged zone: %+v, %v; want generation %d released", l, err, first)
		}

		refused := w.db.Refused()
		rt.Input(2, "look")
		close(release)
		time.Sleep(1500 * time.Millisecond) // a checkpoint, before the keeper's next pass
		if got := stored(); got != 1 {
			t.Fatalf("a zone whose lease lapsed saved: stored commands %d, want still 1", got)
		}
		if w.db.Refused() == refused {
			t.Fatal("the store refused nothing from the zone whose lease lapsed")
		}

		time.Sleep(5 * time.Second) // the keeper sees it answer and leases it again
		if got := leaseGen(w, "ashridge"); got <= first {
			t.Fatalf("the zone answers again under generation %d, want above %d", got, first)
		}
		time.Sleep(2 * time.Second)
		if got := stored(); got != 2 {
			t.Fatalf("stored commands %d once the zone leased again, want 2", got)
		}
		rt.Input(3, "quit")
		synctest.Wait()
	})
}

// heldDisk is the real store behind a disk whose commits wait, while held,
// until the test lets them go: a saver that lags behind the zones.
type heldDisk struct {
	db   *store.DB
	held atomic.Bool
	gate chan struct{} // closed to let held commits go
}

func (d *heldDisk) Commit(batches []*store.Batch) ([]error, error) {
	if d.held.Load() {
		<-d.gate
	}
	return d.db.Commit(batches)
}

// heldDiskWorld starts a world over a held disk (not held yet), with
// characters stored before it starts, and shuts it down at the test's end.
func heldDiskWorld(t *testing.T, set *content.Set, chars ...*store.Character) (*World, *heldDisk) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "w.db"), store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(chars) > 0 {
		if res, err := db.Commit([]*store.Batch{{Zone: "setup", Chars: chars}}); err != nil || res[0] != nil {
			t.Fatalf("store the characters: %v %v", err, res)
		}
	}
	w, err := New(set, db, DefaultConfig(), zone.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	disk := &heldDisk{db: db, gate: make(chan struct{})}
	w.saver.disk = disk
	w.Start()
	t.Cleanup(func() {
		disk.release()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		db.Close()
	})
	return w, disk
}

// release lets held commits go, and every later one through.
func (d *heldDisk) release() {
	if d.held.CompareAndSwap(true, false) {
		close(d.gate)
	}
}

// vaultSet is the starter world plus "vault", a zone of one storage room
// that is not the start zone, so it can be unhosted.
func vaultSet(tb testing.TB) *content.Set {
	tb.Helper()
	fsys := starterFS(tb)
	fsys["vault.toml"] = &fstest.MapFile{Data: []byte(`[zone]
name = "The Vault"
description = "One room to keep things in."
reset_secs = 0
levels = [1, 5]

[rooms.hall]
name = "The Vault Hall"
description = "Shelves line the walls of the vault."
flags = ["storage", "indoors"]
`)}
	set, err := content.Load(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// A zone hosted again reads the room objects its last hosting saved, even
// while the saver is still writing that hosting's last batch: a loaf left
// in a storage room is there when the zone comes back, not lost (nor, had
// it been picked up, lying there a second time).
func TestHost_AgainReadsWhatItsLastHostingSaved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		keeper := &store.Character{Name: "Keeper", Epoch: 1, Level: 3, Place: store.Placement{Zone: "vault", Room: "vault:room:hall"},
			Items: []store.Item{{ID: 900, Proto: "emberfall:item:bread"}}}
		w, disk := heldDiskWorld(t, vaultSet(t), keeper)

		p := playAs(t, w, "Keeper")
		p.do("drop bread")
		if !p.s.saw("You drop a loaf of brown bread") {
			t.Fatal("the keeper could not drop the bread")
		}
		disk.held.Store(true) // the saver lags from here on
		p.do("quit")
		if err := w.Unhost(t.Context(), "vault"); err != nil {
			t.Fatalf("unhost the empty vault: %v", err)
		}
		hosted := make(chan error, 1)
		go func() {
			_, err := w.Host(t.Context(), HostSpec{Template: "vault"})
			hosted <- err
		}()
		synctest.Wait() // the hosting has read the room objects, or waits to
		disk.release()
		if err := <-hosted; err != nil {
			t.Fatalf("host the vault again: %v", err)
		}

		p = playAs(t, w, "Keeper")
		p.do("look")
		if !p.s.saw("A round loaf of brown bread lies here.") {
			t.Fatal("the bread left in the vault is gone once the vault is hosted again")
		}
	})
}
