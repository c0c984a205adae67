//go:build unix

package gate

import (
	"io"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"zonemud/net/telnet"
)

// BenchmarkWriter_Bursts is the gate's side of a busy world's output: an
// op is a round of one burst (two lines and a prompt) to each of 500
// sessions over loopback TCP, as a zone's flush hands them out, each
// written by a session writer with its write system call, and waited for.
// Clients read and discard. cpu-ns/burst is the process's CPU time (user
// and system, the clients' reading included) per burst.
func BenchmarkWriter_Bursts(b *testing.B) {
	const n = 500
	g := New(nil, DefaultConfig(), slog.New(slog.DiscardHandler))
	g.met = nil
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var readers sync.WaitGroup
	sess := make([]*Session, n)
	for i := range sess {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		sc, err := l.Accept()
		if err != nil {
			b.Fatal(err)
		}
		readers.Go(func() { _, _ = io.Copy(io.Discard, c) })
		s := newSession(g, uint64(i+1))
		s.c = newTelnetConn(sc, telnet.Config{MaxLine: 4096, MaxSubneg: 8192}, s.raw)
		sess[i] = s
		defer sc.Close()
	}
	line := []byte("Botabc says, 'hello zz123456789zz'\nBotabd leaves up.\n> ")
	b.ReportAllocs()
	cpu0 := cpuTime()
	bursts0 := g.bursts.Load()
	b.ResetTimer()
	for range b.N {
		for _, s := range sess {
			if !s.Write(line, true) {
				b.Fatal("a session's queue overflowed")
			}
		}
		for _, s := range sess {
			for s.writing.Load() {
				runtime.Gosched()
			}
		}
	}
	b.StopTimer()
	if bursts := g.bursts.Load() - bursts0; bursts > 0 {
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(bursts), "cpu-ns/burst")
		b.ReportMetric(float64(bursts)/float64(b.N), "bursts/op")
	}
	b.StopTimer()
	for _, s := range sess {
		_ = s.c.close()
	}
	readers.Wait()
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
