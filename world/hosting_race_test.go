package world

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var sessionIDs atomic.Uint64

// walker is a character logged in through a route.
type walker struct {
	name string
	rt   *Route
	s    *nullSession
	seq  uint64
}

func login(t *testing.T, w *World, name string) *walker {
	t.Helper()
	s := &nullSession{id: 10_000 + sessionIDs.Add(1)}
	rt, err := w.Enter(name, s)
	if err != nil {
		t.Fatal(err)
	}
	return &walker{name: name, rt: rt, s: s}
}

// do posts a line and reports whether the route took it.
func (p *walker) do(line string) bool {
	p.seq++
	return p.rt.Input(p.seq, line)
}

// settle waits until the walker's zone has answered everything it sent
// so far (a say comes back once the lines before it have run).
func (p *walker) settle(t *testing.T) {
	t.Helper()
	mark := fmt.Sprintf("settled-%d", p.seq+1)
	if !p.do("say " + mark) {
		t.Fatalf("%s: the route refused a line", p.name)
	}
	waitFor(t, func() bool { return p.s.saw(mark) })
}

// held checks that every character is in exactly one zone's roster, and
// that it is the zone the residency index routes it to: nobody in two
// places, nobody lost.
func held(t *testing.T, w *World, names []string) {
	t.Helper()
	for _, name := range names {
		where := w.Where(name)
		if where == nil {
			t.Errorf("%s is not in the world", name)
			continue
		}
		n := 0
		for _, z := range w.Zones() {
			for _, e := range z.Roster() {
				if e.Name == name {
					n++
					if z != where {
						t.Errorf("%s is listed in %s but routed to %s", name, z.ID(), where.ID())
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s is listed in %d zones, want 1", name, n)
		}
	}
	if got := int(w.res.n.Load()); got != len(names) {
		t.Errorf("%d residents, want %d", got, len(names))
	}
}

// unhostLoop unhosts and hosts Ash Ridge again and again until stop is
// closed, calling between (if set) after each host. A refused unhost
// (someone is there or on the way) is ordinary; anything else fails the
// test.
func unhostLoop(t *testing.T, w *World, stop <-chan struct{}, between ...func()) (unhosted, busy int) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		err := w.Unhost(context.Background(), "ashridge")
		switch {
		case errors.Is(err, ErrBusy):
			busy++
			continue
		case err != nil:
			t.Errorf("unhost: %v", err)
			return
		}
		unhosted++
		if _, err := w.Host(context.Background(), HostSpec{Template: "ashridge"}); err != nil {
			t.Errorf("host again: %v", err)
			return
		}
		for _, f := range between {
			f()
		}
	}
}

// Characters walk across the border into Ash Ridge and back while Ash
// Ridge is unhosted and hosted again in a loop. A walk that finds the zone
// gone is refused and the walker stays where it was; an unhost is refused
// while anyone is inside or on the way. At the end everyone is in exactly
// one place.
func TestUnhost_RacesWithArrivals(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	var walkers []*walker
	var names []string
	for i := range 6 {
		p := login(t, w, fmt.Sprintf("Walker%c", 'a'+i))
		for range 2 {
			p.do("east") // to the end of Cinder Lane, by the border
		}
		p.settle(t)
		walkers = append(walkers, p)
		names = append(names, p.name)
	}
	stop := make(chan struct{})
	var unhosted, busy int
	var steps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Each time Ash Ridge is back, the walkers take a step or so
		// before the next unhost: walks meet a zone that is there, one
		// that is going, and one that is gone.
		unhosted, busy = unhostLoop(t, w, stop, func() {
			for mark := steps.Load(); steps.Load() < mark+int64(len(walkers)); {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
			}
		})
	}()
	var wg sync.WaitGroup
	for _, p := range walkers {
		wg.Go(func() {
			for range 60 {
				dir := "east" // over the border
				if z := w.Where(p.name); z != nil && z.Template() == "ashridge" {
					dir = "west" // and back
				}
				if !p.do(dir) {
					t.Errorf("%s: the route refused a line", p.name)
					return
				}
				p.settle(t)
				steps.Add(1)
			}
		})
	}
	wg.Wait()
	for _, p := range walkers {
		p.settle(t)
	}
	close(stop)
	<-done
	crossed, blocked := 0, 0
	for _, p := range walkers {
		p.s.mu.Lock()
		crossed += strings.Count(p.s.out.String(), "The Ridge Road")
		blocked += strings.Count(p.s.out.String(), "That way is blocked")
		p.s.mu.Unlock()
	}
	t.Logf("%d unhosts went through, %d were refused as busy; walkers crossed %d times and found the way blocked %d times", unhosted, busy, crossed, blocked)
	if crossed == 0 || unhosted == 0 {
		t.Fatal("the race was not run: no walker crossed, or no unhost went through")
	}
	held(t, w, names)
	for _, p := range walkers {
		if !p.do("look") {
			t.Errorf("%s: the route refused a line after the race", p.name)
		}
	}
}

// A character in Ash Ridge is taken over by login after login while Ash
// Ridge is asked to unhost: every unhost is refused (a login waiting to
// take the character over is on its way in), and the character ends held
// once, by the last login.
func TestUnhost_RacesWithTakeover(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	p := login(t, w, "Claimant")
	for range 3 {
		p.do("east")
	}
	p.settle(t)
	if w.Where("Claimant") != w.Zone("ashridge") {
		t.Fatalf("Claimant is in %v, want ashridge", w.Where("Claimant"))
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	var unhosted int
	go func() {
		defer close(done)
		unhosted, _ = unhostLoop(t, w, stop)
	}()
	var last *walker
	for range 30 {
		last = login(t, w, "Claimant")
		last.settle(t)
	}
	close(stop)
	<-done
	if unhosted != 0 {
		t.Fatalf("%d unhosts went through with a character inside", unhosted)
	}
	held(t, w, []string{"Claimant"})
	if last.s.Closed() || !last.do("look") {
		t.Fatal("the last login does not play the character")
	}
	// And once the character quits, the unhost goes through.
	last.do("quit")
	waitFor(t, func() bool { return w.Where("Claimant") == nil })
	if err := w.Unhost(t.Context(), "ashridge"); err != nil {
		t.Fatalf("unhost once the character left: %v", err)
	}
}

// Characters quit and log in again while their zone is unhosted and
// hosted: each login lands either back where it quit or, if that zone is
// unhosted at that moment, in the start room; nobody is lost.
func TestUnhost_RacesWithLogins(t *testing.T) {
	w := startedWorld(t, DefaultConfig(), nil)
	var names []string
	for i := range 4 {
		p := login(t, w, fmt.Sprintf("Returner%c", 'a'+i))
		for range 3 {
			p.do("east")
		}
		p.settle(t)
		p.do("quit")
		names = append(names, p.name)
	}
	for _, n := range names {
		waitFor(t, func() bool { return w.Where(n) == nil })
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		unhostLoop(t, w, stop)
	}()
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Go(func() {
			for range 10 {
				p := login(t, w, n)
				p.settle(t)
				p.do("quit")
				waitFor(t, func() bool { return w.Where(n) == nil })
			}
		})
	}
	wg.Wait()
	close(stop)
	<-done
	var back []string
	for _, n := range names {
		p := login(t, w, n)
		p.settle(t)
		back = append(back, n)
	}
	held(t, w, back)
}

// Shutdown and unhost at once: both return, every goroutine the world
// started is gone, and the characters inside were handed back, saved.
func TestUnhost_RacesWithShutdown(t *testing.T) {
	for round := range 20 {
		w := startedWorld(t, DefaultConfig(), nil)
		p := login(t, w, "Stayer")
		p.settle(t)
		var wg sync.WaitGroup
		var unhostErr, shutErr error
		wg.Go(func() { unhostErr = w.Unhost(context.Background(), "ashridge") })
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			shutErr = w.Shutdown(ctx)
		})
		wg.Wait()
		if shutErr != nil {
			t.Fatalf("round %d: shutdown: %v", round, shutErr)
		}
		if unhostErr != nil && !errors.Is(unhostErr, ErrStopping) {
			t.Fatalf("round %d: unhost during shutdown: %v, want nil or ErrStopping", round, unhostErr)
		}
		if n := w.gr.Running(); n != 0 {
			t.Fatalf("round %d: %d world goroutines left after shutdown", round, n)
		}
		if w.Where("Stayer") != nil {
			t.Fatalf("round %d: a character is still resident after shutdown", round)
		}
		if c, err := w.db.Character("Stayer"); err != nil || c.Place.Zone != "emberfall" {
			t.Fatalf("round %d: Stayer's record %+v, %v; want saved in Emberfall", round, c, err)
		}
	}
}
