package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/internal/genworld"
	"zonemud/server/servertest"
)

// BenchmarkReload measures a builder's save on a running server: from the
// moment the file is saved (through a temporary file and a rename, as vim
// and VS Code save) until every zone has reconciled. It reports, per save:
//
//	save-ms      save to applied: the watcher's quiet time (100 ms), reading
//	             and checking the whole world, the swap, every zone's reconcile
//	load-ms      reading, validating and compiling, on the reload worker
//	apply-ms     from the swap until the last zone reconciled
//	pause-us     the longest one zone's goroutine spent reconciling, in
//	             wall-clock time (its own work is BenchmarkReconcile's)
//	slow-%       of the zones' reconciles, those over 5 ms of wall-clock time
//	late-ms      the worst pulse lateness of any zone during the reload:
//	             how long a pulse waited for its zone, for any reason
//
// Two worlds: the starter world, and a generated one of 100 zones and
// 10,000 rooms (zonemud genworld -rooms 10000). Each save changes one
// room's name in one zone file.
func BenchmarkReload(b *testing.B) {
	for _, bc := range []struct {
		name  string
		rooms int // 0: the starter world
		file  string
		old   string
	}{
		{"starter", 0, "emberfall.toml", `name = "Emberfall Square`},
		{"generated-100x100", 10000, "g042.toml", `name = "`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := servertest.Config(b)
			if bc.rooms == 0 {
				cfg.Server.AreasDir = servertest.CopyAreas(b, func(_ string, data []byte) []byte { return data })
			} else {
				game, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "game.toml"))
				if err != nil {
					b.Fatal(err)
				}
				cfg.Server.AreasDir = filepath.Join(b.TempDir(), "areas")
				if _, err := genworld.Generate(cfg.Server.AreasDir, genworld.Options{Rooms: bc.rooms, Seed: 1, Game: game}); err != nil {
					b.Fatal(err)
				}
			}
			cfg.World.WatchAreas = true
			srv := servertest.Start(b, cfg)
			path := filepath.Join(cfg.Server.AreasDir, bc.file)
			orig, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			i := strings.Index(string(orig), bc.old)
			if i < 0 {
				b.Fatalf("%s has no %q", bc.file, bc.old)
			}
			var save, load, apply, pause, late time.Duration
			var reconciled, slow int
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				seq := srv.World().LastReload().Seq
				for _, z := range srv.World().Zones() {
					z.PulseLateness() // from here on
				}
				text := string(orig[:i]) + bc.old + fmt.Sprintf("Renamed %d, ", n) + string(orig[i+len(bc.old):])
				tmp := filepath.Join(cfg.Server.AreasDir, "."+bc.file+".swp")
				start := time.Now()
				if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				rep, err := srv.World().WaitReload(ctx, seq)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				if rep.Refused() || rep.Unchanged || len(rep.Late) > 0 {
					b.Fatalf("reload: %s", rep.Text())
				}
				save += rep.At.Sub(start)
				load += rep.Loaded
				apply += rep.Applied
				pause = max(pause, rep.LongestPause)
				reconciled += rep.Reconciled
				slow += rep.SlowPauses
				var it time.Duration
				for _, z := range srv.World().Zones() {
					it = max(it, z.PulseLateness())
				}
				late = max(late, it)
			}
			b.StopTimer()
			per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / float64(time.Millisecond) }
			b.ReportMetric(per(save), "save-ms")
			b.ReportMetric(per(load), "load-ms")
			b.ReportMetric(per(apply), "apply-ms")
			b.ReportMetric(float64(pause)/float64(time.Microsecond), "pause-us")
			b.ReportMetric(float64(late)/float64(time.Millisecond), "late-ms")
			b.ReportMetric(100*float64(slow)/float64(max(reconciled, 1)), "slow-%")
		})
	}
}

// BenchmarkIdleLateness is the baseline for BenchmarkReload's late-ms: the
// worst pulse lateness of any zone of the same generated world over half a
// second in which nothing is saved. On a busy machine, zones' pulses are
// late for want of a CPU whether or not anything reloads.
func BenchmarkIdleLateness(b *testing.B) {
	game, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "game.toml"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := servertest.Config(b)
	cfg.Server.AreasDir = filepath.Join(b.TempDir(), "areas")
	if _, err := genworld.Generate(cfg.Server.AreasDir, genworld.Options{Rooms: 10000, Seed: 1, Game: game}); err != nil {
		b.Fatal(err)
	}
	srv := servertest.Start(b, cfg)
	var late time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, z := range srv.World().Zones() {
			z.PulseLateness()
		}
		time.Sleep(500 * time.Millisecond) // the span measured, not a wait for anything
		for _, z := range srv.World().Zones() {
			late = max(late, z.PulseLateness())
		}
	}
	b.ReportMetric(float64(late)/float64(time.Millisecond), "late-ms")
}
