package world

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"zonemud/zone"
)

// BenchmarkInstance_MintFiftyRooms is hop 2 for a 50-room template with a
// guard and its sword in every room: one snapshot validated, the copy
// built, hosted through the directory and booted (every reset run), as a
// mint worker does it. That is the pause a player feels at the door, less
// two mailbox hops. The teardown is not timed.
func BenchmarkInstance_MintFiftyRooms(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	w := startedWorld(b, instCfg(InstanceConfig{PerProcess: maxPerProcess}), keepSet(b))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		z, err := w.hostCopy(ctx, "keep")
		if err != nil {
			b.Fatal(err)
		}
		booted(b, z)
		b.StopTimer()
		if err := w.Unhost(ctx, z.ID()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchIdleCopies hosts n copies of template, booted and left empty, and
// reports the heap each costs and, each op being a second of wall time,
// the CPU each costs while idle and the share found asleep: an idle copy
// should sleep like a dormant zone.
func benchIdleCopies(b *testing.B, template string, n int, dormancy bool) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	zcfg := zone.DefaultConfig()
	zcfg.Dormant = dormancy
	w := startedWorldWith(b, instCfg(InstanceConfig{PerProcess: maxPerProcess, SweepEvery: 1000 * time.Hour}), zcfg, keepSet(b), nil)
	ctx := context.Background()
	before := heapInUse()
	zs := make([]*zone.Zone, 0, n)
	for range n {
		z, err := w.hostCopy(ctx, template)
		if err != nil {
			b.Fatal(err)
		}
		zs = append(zs, z)
	}
	for _, z := range zs {
		booted(b, z)
	}
	after := heapInUse()
	time.Sleep(3 * time.Second) // every copy's first pulses, then dormancy
	asleep := 0                 // copies found asleep, summed over the samples
	samples := 0
	cpu0, t0 := cpuTime(b), time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
		for _, z := range zs {
			if z.Dormant() {
				asleep++
			}
		}
		samples++
	}
	secs := time.Since(t0).Seconds()
	b.ReportMetric(float64(after-before)/float64(n), "heap-B/copy")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(time.Microsecond)/float64(n)/secs, "cpu-µs/copy/s")
	b.ReportMetric(100*float64(asleep)/float64(samples*n), "%asleep")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkInstance_ThousandIdleCrypts is 1,000 live, empty copies of the
// starter world's crypt (13 rooms, 10 mobs).
func BenchmarkInstance_ThousandIdleCrypts(b *testing.B) {
	benchIdleCopies(b, "sunken_crypt", 1000, true)
}

// BenchmarkInstance_ThousandIdleCryptsAwake is the same with dormancy off
// ([zone] dormant = false): what sleeping saves.
func BenchmarkInstance_ThousandIdleCryptsAwake(b *testing.B) {
	benchIdleCopies(b, "sunken_crypt", 1000, false)
}

// BenchmarkInstance_ThousandIdleKeeps is 1,000 live, empty copies of the
// 50-room keep (50 mobs, 50 swords).
func BenchmarkInstance_ThousandIdleKeeps(b *testing.B) { benchIdleCopies(b, "keep", 1000, true) }
