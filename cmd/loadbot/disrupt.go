package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Disruptions are bad clients let loose on the measured window, beside the
// bots being measured: the round trip of the run says whether the server
// kept serving everyone else. Each gets its own names (prefix Slow, Drop,
// Burst), so it never takes over a measured bot's character.
type Disruptions struct {
	// Slow clients log in when the window opens and then read one byte a
	// second: the server must cut them, never wait for them.
	Slow int
	// Drop clients log in a third of the way into the window, all at once
	// (at the run's ramp), and then all drop their connections together
	// without quitting: a crowd of link-dead characters appears at once.
	Drop int
	// Burst lines are typed in one write by one more client halfway into
	// the window: every one must be answered, in order.
	Burst int
}

// DisruptionReport says how the bad clients fared.
type DisruptionReport struct {
	Slow, SlowLoggedIn, SlowCut int
	SlowCutAfter                Latency // from login to the server closing the connection

	Drop, DropLoggedIn, DropFailed int
	DropLogins                     Latency

	Burst, BurstAnswered int
	BurstLast            time.Duration // from the write to the last answer
	BurstInOrder         bool
}

func (d *DisruptionReport) text() string {
	var b strings.Builder
	if d.Slow > 0 {
		fmt.Fprintf(&b, "slow readers: %d logged in of %d, %d cut by the server (after p50 %s, max %s)\n",
			d.SlowLoggedIn, d.Slow, d.SlowCut, secsOf(d.SlowCutAfter.P50), secsOf(d.SlowCutAfter.Max))
	}
	if d.Drop > 0 {
		fmt.Fprintf(&b, "drop storm: %d logged in of %d (%d failed; login p50 %s p99 %s), then all dropped at once\n",
			d.DropLoggedIn, d.Drop, d.DropFailed, ms(d.DropLogins.P50), ms(d.DropLogins.P99))
	}
	if d.Burst > 0 {
		order := "in order"
		if !d.BurstInOrder {
			order = "OUT OF ORDER"
		}
		fmt.Fprintf(&b, "burst: %d lines in one write, %d answered %s, the last after %s\n",
			d.Burst, d.BurstAnswered, order, ms(d.BurstLast))
	}
	return b.String()
}

func secsOf(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// disrupt runs the disruptions of cfg against the window that opens at
// winStart (mono) and lasts cfg.Duration; it returns when they are all
// done, after r.stop.
func (r *run) disrupt(ctx context.Context, winStart int64, rep *DisruptionReport) {
	d := r.cfg.Disrupt
	*rep = DisruptionReport{Slow: d.Slow, Drop: d.Drop, Burst: d.Burst, BurstInOrder: true}
	var wg sync.WaitGroup
	at := func(frac float64) time.Duration {
		return time.Duration(winStart-r.mono()) + time.Duration(frac*float64(r.cfg.Duration))
	}
	if d.Slow > 0 {
		wg.Go(func() { r.slowReaders(ctx, at(0), rep) })
	}
	if d.Drop > 0 {
		wg.Go(func() { r.dropStorm(ctx, at(1.0/3), rep) })
	}
	if d.Burst > 0 {
		wg.Go(func() { r.burst(ctx, at(0.5), rep) })
	}
	wg.Wait()
}

// wait sleeps d, or until the run stops; it reports whether it slept.
func (r *run) wait(d time.Duration) bool {
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stop:
		return false
	}
}

// extraBot is a bot outside the measured set, named prefix + i.
func (r *run) extraBot(prefix string, i int) *bot {
	b := newBot(r, i)
	b.name = botName(prefix, i)
	return b
}

func (r *run) slowReaders(ctx context.Context, after time.Duration, rep *DisruptionReport) {
	if !r.wait(after) {
		return
	}
	var mu sync.Mutex
	var cut []time.Duration
	var loggedIn atomic.Int32
	var wg sync.WaitGroup
	for i := range r.cfg.Disrupt.Slow {
		wg.Go(func() {
			b := r.extraBot("Slow", i)
			if !b.login(ctx) {
				return
			}
			loggedIn.Add(1)
			in := time.Now()
			defer b.conn.Close()
			go func() { <-r.stop; b.conn.Close() }()
			if tl, ok := b.conn.(tcpLink); ok {
				if tc, ok := tl.Conn.(*net.TCPConn); ok {
					tc.SetReadBuffer(4096) // a small window: the server feels it sooner
				}
			}
			var one [1]byte
			for {
				b.conn.SetReadDeadline(time.Time{})
				if _, err := b.conn.Read(one[:]); err != nil {
					select {
					case <-r.stop: // the run ended it, not the server
					default:
						mu.Lock()
						cut = append(cut, time.Since(in))
						mu.Unlock()
					}
					return
				}
				if !r.wait(time.Second) {
					return
				}
			}
		})
	}
	wg.Wait()
	rep.SlowLoggedIn = int(loggedIn.Load())
	rep.SlowCut = len(cut)
	rep.SlowCutAfter = latencyOf(sortedDurations(cut))
}

func (r *run) dropStorm(ctx context.Context, after time.Duration, rep *DisruptionReport) {
	if !r.wait(after) {
		return
	}
	n := r.cfg.Disrupt.Drop
	bots := make([]*bot, n)
	ok := make([]bool, n)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / r.cfg.Ramp)
	for i := range n {
		if i > 0 && !r.wait(interval) {
			break
		}
		wg.Go(func() {
			b := r.extraBot("Drop", i)
			bots[i] = b
			ok[i] = b.login(ctx)
		})
	}
	wg.Wait()
	var logins []time.Duration
	for i, b := range bots {
		switch {
		case b == nil:
		case ok[i]:
			rep.DropLoggedIn++
			logins = append(logins, b.loginTime)
		default:
			rep.DropFailed++
		}
	}
	rep.DropLogins = latencyOf(sortedDurations(logins))
	// All at once: no quit, the connections just go.
	for i, b := range bots {
		if ok[i] {
			b.conn.Close()
		}
	}
}

func (r *run) burst(ctx context.Context, after time.Duration, rep *DisruptionReport) {
	b := r.extraBot("Burst", 0)
	if !b.login(ctx) {
		return
	}
	defer b.conn.Close()
	if !r.wait(after) {
		return
	}
	n := r.cfg.Disrupt.Burst
	var lines bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&lines, "say burst%03d\r\n", i)
	}
	start := time.Now()
	if _, err := b.conn.Write(lines.Bytes()); err != nil {
		return
	}
	// Count the answers, "You say, 'burstNNN'", in order; a line may be
	// split between reads.
	b.conn.SetReadDeadline(time.Now().Add(r.cfg.ReplyTimeout))
	var tail []byte
	buf := make([]byte, 4096)
	for rep.BurstAnswered < n {
		k, err := b.br.Read(buf)
		if err != nil {
			break
		}
		text := append(tail, buf[:k]...)
		for {
			i := bytes.Index(text, []byte("You say, '"))
			if i < 0 {
				break
			}
			rest := text[i+len("You say, '"):]
			j := bytes.Index(rest, []byte("burst"))
			if j < 0 || j > 16 || len(rest) < j+8 {
				break // the rest of this answer is in the next read
			}
			var got int
			fmt.Sscanf(string(rest[j+5:j+8]), "%03d", &got)
			rep.BurstAnswered++
			if got != rep.BurstAnswered {
				rep.BurstInOrder = false
			}
			rep.BurstLast = time.Since(start)
			text = rest[j+8:]
		}
		tail = append(tail[:0], text[max(0, len(text)-64):]...)
	}
}
