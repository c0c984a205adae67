package zone_test

import (
	"fmt"
	"strings"
	"testing"

	"zonemud/zone"
)

// throngZone is emberfall with the smallest throng the configuration
// allows (30) and no crowd rules, so every line goes out when handled.
func throngZone(t *testing.T) *zone.Zone {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	cfg.CrowdSize = 0
	cfg.ThrongSize = 30
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	return z
}

// In a throng, a say reaches the ten players either side of the talker in
// the order they came in (round the ends), and nobody else; whoever hears
// A is heard by A. Under the throng size, everyone hears.
func TestZone_ThrongHearsOnlyThoseNear(t *testing.T) {
	z := throngZone(t)
	var ss []*writeSession
	say := func(k int, seq uint64, text string) {
		for _, s := range ss {
			s.take()
		}
		z.InputForTest(ss[k], seq, "say "+text)
	}
	heard := func(text string) map[int]bool {
		out := map[int]bool{}
		for i, s := range ss {
			if strings.Contains(strings.Join(s.take(), ""), "says, '{W}"+text) {
				out[i] = true
			}
		}
		return out
	}
	for i := range 30 {
		ss = append(ss, arrive(t, z, fmt.Sprintf("Walker%02d", i)))
	}
	say(0, 1, "not yet a throng")
	if got := heard("not yet a throng"); len(got) != 29 {
		t.Fatalf("with 30 in the room %d heard a say, want the 29 others", len(got))
	}
	for i := 30; i < 40; i++ {
		ss = append(ss, arrive(t, z, fmt.Sprintf("Walker%02d", i)))
	}
	for _, k := range []int{0, 5, 20, 39} {
		text := fmt.Sprintf("I am %d", k)
		say(k, 2, text)
		got := heard(text)
		want := map[int]bool{}
		for d := 1; d <= 10; d++ {
			want[(k+d)%40] = true
			want[(k-d+40)%40] = true
		}
		if len(got) != len(want) {
			t.Fatalf("Walker%02d's say in a throng of 40 was heard by %d (%v), want the 20 near it (%v)", k, len(got), got, want)
		}
		for i := range want {
			if !got[i] {
				t.Fatalf("Walker%02d's say was not heard by Walker%02d, who stands near", k, i)
			}
		}
	}
	// Emote goes the same way; the talker is told its own line either way.
	for _, s := range ss {
		s.take()
	}
	z.InputForTest(ss[20], 3, "emote waves.")
	n := 0
	for i, s := range ss {
		if strings.Contains(strings.Join(s.take(), ""), "Walker20 waves.") {
			n++
			if i != 20 && (i < 10 || i > 30) {
				t.Fatalf("Walker%02d, far from Walker20, saw its emote", i)
			}
		}
	}
	if n != 21 {
		t.Fatalf("Walker20's emote reached %d, want itself and the 20 near", n)
	}
}

// A look in a throng names those near and counts the rest, in one line,
// instead of a line for each player there; the mobs are still listed.
func TestZone_ThrongLookNamesThoseNear(t *testing.T) {
	z := throngZone(t)
	var ss []*writeSession
	for i := range 40 {
		ss = append(ss, arrive(t, z, fmt.Sprintf("Walker%02d", i)))
	}
	ss[0].take()
	z.InputForTest(ss[0], 1, "look")
	got := strings.Join(ss[0].take(), "")
	if strings.Contains(got, "is here.") && strings.Contains(got, "Walker05 is here") {
		t.Fatalf("a throng's look listed players one by one:\n%s", got)
	}
	flat := strings.Join(strings.Fields(got), " ")
	if !strings.Contains(flat, "A throng of 39 people is here; near you stand Walker30, Walker31,") ||
		!strings.Contains(flat, "Walker39, Walker01, Walker02,") || !strings.Contains(flat, "Walker09 and Walker10.") {
		t.Fatalf("a throng's look reads:\n%s", got)
	}
	for _, far := range []string{"Walker11", "Walker29"} {
		if strings.Contains(got, far) {
			t.Fatalf("the look names %s, who stands far off:\n%s", far, got)
		}
	}
	// Under the throng size the room is listed as before.
	z.InputForTest(ss[0], 2, "quit")
	for i := 1; i < 11; i++ {
		z.InputForTest(ss[i], 1, "quit")
	}
	ss[39].take()
	z.InputForTest(ss[39], 1, "look")
	if got := strings.Join(ss[39].take(), ""); strings.Contains(got, "throng") || !strings.Contains(got, "Walker11 is here.") {
		t.Fatalf("a room of 29 looks like:\n%s", got)
	}
}
