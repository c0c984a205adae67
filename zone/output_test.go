package zone_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"zonemud/zone"
)

// writeSession records each Write a zone makes, one string per call.
type writeSession struct {
	benchSession
	mu     sync.Mutex
	writes []string
}

func newWriteSession() *writeSession {
	return &writeSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
}

func (s *writeSession) Write(p []byte, prompt bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := string(p)
	if prompt {
		w += "|PROMPT"
	}
	s.writes = append(s.writes, w)
	return true
}

// take returns the writes since the last take.
func (s *writeSession) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.writes
	s.writes = nil
	return w
}

func crowdZone(t *testing.T, crowd int) *zone.Zone {
	t.Helper()
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	cfg.CrowdSize = crowd
	z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	return z
}

func arrive(t *testing.T, z *zone.Zone, name string) *writeSession {
	t.Helper()
	s := newWriteSession()
	z.Arrive(&zone.CharRecord{Name: name, Level: 1}, s, "", "")
	z.DrainForTest()
	if _, _, _, ok := z.CharState(name); !ok {
		t.Fatalf("%s did not arrive", name)
	}
	return s
}

// Lines handled together reach each player in one write, in order, with
// one prompt at the end, rather than one write and one prompt per line.
func TestZone_BatchFlushesEachPlayerOnce(t *testing.T) {
	z := crowdZone(t, 0)
	z.SetFlushGapForTest(0) // every batch flushes everyone (see the gap's own test)
	talker := arrive(t, z, "Talker")
	var hearers []*writeSession
	for i := range 5 {
		hearers = append(hearers, arrive(t, z, fmt.Sprintf("Hearer%c", 'a'+i)))
	}
	talker.take()
	for _, h := range hearers {
		h.take()
	}
	words := []string{"one", "two", "three", "four", "five"}
	for i, w := range words {
		z.QueueInputForTest(talker, uint64(i+1), "say "+w)
	}
	z.BatchForTest()

	for _, h := range hearers {
		got := h.take()
		if len(got) != 1 {
			t.Fatalf("a hearer got %d writes for one batch, want 1: %q", len(got), got)
		}
		var want strings.Builder
		for _, w := range words {
			want.WriteString("Talker says, '{W}" + w + "{x}'\n")
		}
		want.WriteString("> |PROMPT")
		if got[0] != want.String() {
			t.Fatalf("a hearer got\n%q\nwant\n%q", got[0], want.String())
		}
	}
	got := talker.take()
	if len(got) != 1 || strings.Count(got[0], "You say") != 5 || !strings.HasSuffix(got[0], "> |PROMPT") {
		t.Fatalf("the talker got %q, want one write with five lines and a prompt", got)
	}

	// A lone command is its own batch, flushed when it is handled.
	z.QueueInputForTest(talker, 6, "say six")
	z.BatchForTest()
	if got := hearers[0].take(); len(got) != 1 || !strings.Contains(got[0], "six") {
		t.Fatalf("a lone say reached a hearer as %q", got)
	}
}

// Output a player did not ask for waits out the gap since their last
// flush, gathering what comes meanwhile; their own answer goes at once and
// takes what waited with it.
func TestZone_OthersTalkWaitsOutTheGap(t *testing.T) {
	z := crowdZone(t, 1)            // two players make a crowd here
	z.SetFlushGapForTest(time.Hour) // nothing waits out the gap in this test
	talker := arrive(t, z, "Talker")
	hearer := arrive(t, z, "Hearer")
	talker.take()
	hearer.take()

	z.QueueInputForTest(talker, 1, "say one")
	z.BatchForTest()
	z.QueueInputForTest(talker, 2, "say two")
	z.BatchForTest()
	if got := talker.take(); len(got) != 2 {
		t.Fatalf("the talker's own answers: %q, want one write each", got)
	}
	if got := hearer.take(); len(got) != 0 {
		t.Fatalf("the hearer was flushed within the gap: %q", got)
	}
	if z.FlushDueForTest().IsZero() {
		t.Fatal("output waits with no time set to flush it")
	}
	// The hearer's own command: the answer, with what waited before it,
	// in one write.
	z.QueueInputForTest(hearer, 1, "look")
	z.BatchForTest()
	got := hearer.take()
	if len(got) != 1 || !strings.HasPrefix(got[0], "Talker says, '{W}one{x}'\nTalker says, '{W}two{x}'\n") ||
		!strings.Contains(got[0], "Exits:") || !strings.HasSuffix(got[0], "> |PROMPT") {
		t.Fatalf("the hearer's answer: %q", got)
	}
	if !z.FlushDueForTest().IsZero() {
		t.Fatal("nothing waits, yet a flush is due")
	}
	if !z.WaitingConsistentForTest() {
		t.Fatal("the zone's count of waiting players is off")
	}

	// In a room that is not crowded, others' talk goes out with its batch.
	quiet := crowdZone(t, 30)
	quiet.SetFlushGapForTest(time.Hour)
	a := arrive(t, quiet, "Anna")
	b := arrive(t, quiet, "Bert")
	a.take()
	b.take()
	quiet.QueueInputForTest(a, 1, "say one")
	quiet.BatchForTest()
	quiet.QueueInputForTest(a, 2, "say two")
	quiet.BatchForTest()
	if got := b.take(); len(got) != 2 {
		t.Fatalf("in a room that is not crowded a hearer got %q, want each line at once", got)
	}
}

// Talk keeps coming faster than the gap, batch after batch: a hearer's
// waiting output still goes out about once a gap, never starved by the
// stream that fills it.
func TestZone_GapHoldsUnderASteadyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z := crowdZone(t, 1)
		const gap = 40 * time.Millisecond
		z.SetFlushGapForTest(gap)
		talker := arrive(t, z, "Talker")
		hearer := arrive(t, z, "Hearer")
		talker.take()
		hearer.take()
		start := time.Now()
		var flushedAt []time.Duration
		lines := 0
		for i := 1; i <= 100; i++ { // a say every 2 ms for 200 ms
			time.Sleep(2 * time.Millisecond)
			z.QueueInputForTest(talker, uint64(i), fmt.Sprintf("say n%d", i))
			z.BatchForTest()
			for _, w := range hearer.take() {
				flushedAt = append(flushedAt, time.Since(start))
				lines += strings.Count(w, "says,")
			}
		}
		if len(flushedAt) < 3 || len(flushedAt) > 6 {
			t.Fatalf("the hearer was flushed %d times in 200 ms with a %v gap: at %v", len(flushedAt), gap, flushedAt)
		}
		for i := 1; i < len(flushedAt); i++ {
			if d := flushedAt[i] - flushedAt[i-1]; d < gap || d > gap+gap/4+2*time.Millisecond {
				t.Fatalf("flushes %v apart, want %v to %v: at %v", d, gap, gap+gap/4, flushedAt)
			}
		}
		if !z.WaitingConsistentForTest() {
			t.Fatal("the zone's count of waiting players is off")
		}
		z.DrainForTest()
		lines += strings.Count(strings.Join(hearer.take(), ""), "says,")
		if lines != 100 {
			t.Fatalf("the hearer got %d of 100 lines", lines)
		}
	})
}

// Past the crowd size, comings and goings are gathered for a pulse and told
// as one line each, naming a few; nobody is told of their own.
func TestZone_CrowdComingsAreSummarised(t *testing.T) {
	z := crowdZone(t, 3)
	var first []*writeSession
	for i := range 4 {
		first = append(first, arrive(t, z, fmt.Sprintf("Early%c", 'a'+i)))
	}
	// Earlya saw Earlyb, Earlyc and Earlyd enter one by one: the room held
	// at most three players when they came.
	if got := strings.Join(first[0].take(), ""); strings.Count(got, "has entered the world.") != 3 {
		t.Fatalf("before the room was crowded, Earlya saw:\n%s", got)
	}
	for _, s := range first[1:] {
		s.take()
	}
	var late []*writeSession
	for i := range 5 {
		late = append(late, arrive(t, z, fmt.Sprintf("Late%c", 'a'+i)))
	}
	if got := strings.Join(first[0].take(), ""); strings.Contains(got, "entered") {
		t.Fatalf("arrivals in a crowd were told one by one:\n%s", got)
	}
	z.TickForTest()
	z.DrainForTest()
	want := "Latea, Lateb, Latec and 2 others have entered the world."
	for _, s := range first {
		got := strings.Join(s.take(), "")
		if strings.Count(got, "entered the world") != 1 || !strings.Contains(got, want) {
			t.Fatalf("after the pulse an early player saw:\n%s\nwant the one line %q", got, want)
		}
	}
	for _, s := range late {
		if got := strings.Join(s.take(), ""); strings.Contains(got, "have entered the world") {
			t.Fatalf("a newcomer was told of its own arrival:\n%s", got)
		}
	}

	// Two leave: both named.
	z.InputForTest(late[0], 1, "quit")
	z.InputForTest(late[1], 1, "quit")
	if !z.WaitingConsistentForTest() {
		t.Fatal("the zone's count of waiting players is off after quits")
	}
	first[0].take()
	// The room told its news a pulse ago: this waits out the second
	// (four pulses) since.
	for range 3 {
		z.TickForTest()
		z.DrainForTest()
		if got := strings.Join(first[0].take(), ""); strings.Contains(got, "left the world") {
			t.Fatalf("news was told again within a second of the last:\n%s", got)
		}
	}
	z.TickForTest()
	z.DrainForTest()
	if got := strings.Join(first[0].take(), ""); !strings.Contains(got, "Latea and Lateb have left the world.") {
		t.Fatalf("a second after the last news, an early player saw:\n%s", got)
	}
}

// countShard counts what the zone checkpoints and takes hand-backs
// quietly: the characters in these tests never entered through the world.
type countShard struct {
	discardShard
	mu      sync.Mutex
	batches int
	records int
}

func (s *countShard) Checkpoint(b *zone.SaveBatch) {
	s.mu.Lock()
	s.batches++
	s.records += len(b.Chars)
	s.mu.Unlock()
}

func (s *countShard) HandBack(*zone.CharRecord, string) {}

// Everyone leaving at once copies each character for the saver about once,
// not once per leaver: a character already on its way to the saver,
// unchanged since, is not copied again.
func TestSave_QuitStormCopiesEachCharacterOnce(t *testing.T) {
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	sh := &countShard{discardShard: discardShard{w}}
	z := zone.New(set.Zones["emberfall"], set, sh, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	const n = 60
	var ss []*writeSession
	for i := range n {
		s := newWriteSession()
		z.Arrive(&zone.CharRecord{Name: fmt.Sprintf("Quitter%c%c", 'a'+i/26, 'a'+i%26), Level: 1}, s, "", "")
		z.DrainForTest()
		ss = append(ss, s)
	}
	for _, s := range ss {
		z.InputForTest(s, 1, "look") // everyone has changed since any save
	}
	// The saver has not answered any batch: every one is still in flight.
	for _, s := range ss {
		z.InputForTest(s, 2, "quit")
	}
	if sh.batches < n {
		t.Fatalf("%d batches for %d quits: every hand-back must checkpoint", sh.batches, n)
	}
	if sh.records > 2*n {
		t.Fatalf("%d quits copied %d records for the saver, want at most %d", n, sh.records, 2*n)
	}
}

// A batch handles at most 32 messages (or 5 ms of them, whichever comes
// first: seed 002), then the zone's timers get their turn and the batch's
// output goes out; a flood does not hold a pulse back behind it. In a
// synctest bubble no time passes while the zone works, so the count bound
// is what ends the batch.
func TestZone_BatchStopsAtThirtyTwoMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z := crowdZone(t, 0)
		z.SetFlushGapForTest(0)
		talker := arrive(t, z, "Flooder")
		talker.take()
		for i := range 100 {
			z.QueueInputForTest(talker, uint64(i+1), fmt.Sprintf("say %d", i))
		}
		for i, want := range []int{32, 32, 32, 4} {
			z.BatchForTest()
			got := strings.Count(strings.Join(talker.take(), ""), "You say")
			if got != want {
				t.Fatalf("batch %d handled %d lines, want %d", i+1, got, want)
			}
		}
	})
}

// Comings and goings, in any room, wait until a second (newsGap) has
// passed since the player's last flush; talk or an answer that comes
// sooner takes them along in its write, at the talk's own gap.
func TestZone_ComingsAndGoingsWaitForNewsGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z := crowdZone(t, 30) // three players: not a crowd
		stayer := arrive(t, z, "Stayer")
		talker := arrive(t, z, "Talker")
		walker := arrive(t, z, "Walker")
		z.QueueInputForTest(walker, 1, "north")
		z.BatchForTest()
		stayer.take()
		talker.take()
		time.Sleep(2 * time.Second) // everyone's last flush is long past

		z.QueueInputForTest(walker, 2, "south")
		z.BatchForTest()
		if got := stayer.take(); len(got) != 1 || !strings.Contains(got[0], "Walker arrives from the north.") {
			t.Fatalf("a second after its last flush, the stayer got %q, want the arrival at once", got)
		}
		time.Sleep(100 * time.Millisecond)
		z.QueueInputForTest(walker, 3, "north")
		z.BatchForTest()
		if got := stayer.take(); len(got) != 0 {
			t.Fatalf("a departure 100 ms after the last flush went out at once: %q", got)
		}
		time.Sleep(200 * time.Millisecond)
		z.QueueInputForTest(talker, 1, "say hello")
		z.BatchForTest()
		got := stayer.take()
		if len(got) != 1 || !strings.Contains(got[0], "Walker leaves north.") || !strings.Contains(got[0], "Talker says") {
			t.Fatalf("talk after a departure reached the stayer as %q, want one write with both", got)
		}
		time.Sleep(100 * time.Millisecond)
		z.QueueInputForTest(walker, 4, "south")
		z.BatchForTest()
		for range 8 {
			time.Sleep(100 * time.Millisecond)
			z.BatchForTest()
			if got := stayer.take(); len(got) > 0 {
				t.Fatalf("an arrival went out %v before the second was up: %q", time.Second, got)
			}
		}
		time.Sleep(150 * time.Millisecond)
		z.BatchForTest()
		if got := stayer.take(); len(got) != 1 || !strings.Contains(got[0], "Walker arrives from the north.") {
			t.Fatalf("a second after the last flush the stayer got %q, want the arrival", got)
		}
		if !z.WaitingConsistentForTest() {
			t.Fatal("the zone's count of waiting players is off")
		}
	})
}

// A channel line is news, as comings and goings are: a listener who had
// output in the last second gets it when the second is up, gathered with
// any other line that came meanwhile, or sooner with an answer of their
// own; a listener whose last output is older gets it at once, and the
// talker's own line is the talker's answer. A world-wide channel is a
// line to every player: told at once, each line was a write to each.
func TestZone_ChannelLinesWaitForNewsGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z := crowdZone(t, 30) // not a crowd: talk here would go at once
		talker := arrive(t, z, "Talker")
		hearer := arrive(t, z, "Hearer")
		far := func(text string) {
			t.Helper()
			z.DeliverChannel(&zone.ChannelLine{Channel: "gossip", From: "Faraway", Text: text, Line: "[Gossip] Faraway: " + text})
			z.DrainWithGapForTest()
		}
		time.Sleep(2 * time.Second) // everyone's last flush is long past
		talker.take()
		hearer.take()

		z.QueueInputForTest(talker, 1, "gossip one")
		z.BatchForTest()
		if got := hearer.take(); len(got) != 1 || !strings.Contains(got[0], "Talker: one") {
			t.Fatalf("a second after the hearer's last flush, a channel line reached it as %q, want at once", got)
		}
		talker.take()

		time.Sleep(100 * time.Millisecond)
		far("two")
		time.Sleep(100 * time.Millisecond)
		z.QueueInputForTest(talker, 2, "gossip three")
		z.BatchForTest()
		if got := talker.take(); len(got) != 1 || !strings.Contains(got[0], "Talker: three") || !strings.Contains(got[0], "Faraway: two") {
			t.Fatalf("the talker's own line (its answer) went out as %q, want at once with the line that waited", got)
		}
		for range 7 {
			if got := hearer.take(); len(got) > 0 {
				t.Fatalf("channel lines went out before a second since the hearer's last flush: %q", got)
			}
			time.Sleep(100 * time.Millisecond)
			z.BatchForTest()
		}
		time.Sleep(150 * time.Millisecond)
		z.BatchForTest()
		got := hearer.take()
		if len(got) != 1 || !strings.Contains(got[0], "Faraway: two") || !strings.Contains(got[0], "Talker: three") ||
			strings.Index(got[0], "Faraway: two") > strings.Index(got[0], "Talker: three") {
			t.Fatalf("a second after its last flush the hearer got %q, want both lines, in order, in one write", got)
		}

		time.Sleep(200 * time.Millisecond)
		far("four")
		if got := hearer.take(); len(got) != 0 {
			t.Fatalf("a channel line 200 ms after the last flush went out at once: %q", got)
		}
		z.QueueInputForTest(hearer, 1, "look")
		z.BatchForTest()
		if got := hearer.take(); len(got) != 1 || !strings.Contains(got[0], "Faraway: four") {
			t.Fatalf("the hearer's answer went out as %q, want it to carry the channel line that waited", got)
		}
		if !z.WaitingConsistentForTest() {
			t.Fatal("the zone's count of waiting players is off")
		}
	})
}

// gmcpSession records what a GMCP client's session is asked to do, in
// order: "now PKG" for a GMCP message sent at once, "with PKG" for one
// queued for the burst of the Write that follows, and "write TEXT".
type gmcpSession struct {
	writeSession
	events []string // under writeSession.mu
}

func newGMCPSession() *gmcpSession {
	return &gmcpSession{writeSession: writeSession{benchSession: benchSession{id: sessionIDs.Add(1)}}}
}

func (s *gmcpSession) note(e string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

func (s *gmcpSession) GMCP(pkg string, data any)       { s.note("now " + pkg) }
func (s *gmcpSession) GMCPBefore(pkg string, data any) { s.note("with " + pkg) }
func (s *gmcpSession) GMCPAny() bool                   { return true }
func (s *gmcpSession) Write(p []byte, prompt bool) bool {
	s.note("write " + string(p))
	return s.writeSession.Write(p, prompt)
}

// takeEvents returns the events since the last take, channel text only
// (a session's other GMCP, such as Room.Info on arrival, is not asked about).
func (s *gmcpSession) takeEvents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		if strings.HasPrefix(e, "write ") || strings.HasSuffix(e, "Comm.Channel.Text") || strings.HasSuffix(e, "Room.Info") {
			out = append(out, e)
		}
	}
	s.events = nil
	return out
}

// What GMCP says of a line (Comm.Channel.Text of a channel line, a say, a
// tell; Room.Info of a room shown) goes with the line, in the burst of its
// write: for a channel line that waits for newsGap it waits too, rather
// than going ahead in a write of its own, and a line that goes at once
// takes its GMCP in the same burst. The vitals at a prompt go the same way.
func TestZone_GMCPGoesInTheBurstOfItsText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		z := crowdZone(t, 30)
		talker := arrive(t, z, "Talker")
		g := newGMCPSession()
		z.Arrive(&zone.CharRecord{Name: "Mudlet", Level: 1}, g, "", "")
		z.DrainForTest()
		time.Sleep(2 * time.Second)
		talker.take()
		g.takeEvents()

		far := func(text string) {
			z.DeliverChannel(&zone.ChannelLine{Channel: "gossip", From: "Faraway", Text: text,
				Line: "[Gossip] Faraway: " + text, GMCP: []byte(`{"channel":"gossip","talker":"Faraway","text":"` + text + `"}`)})
			z.DrainWithGapForTest()
		}
		far("one") // the last flush is long past: at once
		if got := g.takeEvents(); len(got) != 2 || got[0] != "with Comm.Channel.Text" || !strings.HasPrefix(got[1], "write [Gossip] Faraway: one") {
			t.Fatalf("a channel line told at once reached the GMCP client as %q, want its GMCP queued with the write, then the write", got)
		}
		time.Sleep(100 * time.Millisecond)
		far("two") // waits for newsGap, and so does its GMCP
		if got := g.takeEvents(); len(got) != 0 {
			t.Fatalf("a channel line that waits for newsGap sent %q at once", got)
		}
		time.Sleep(time.Second)
		z.BatchForTest()
		if got := g.takeEvents(); len(got) != 2 || got[0] != "with Comm.Channel.Text" || !strings.HasPrefix(got[1], "write [Gossip] Faraway: two") {
			t.Fatalf("when newsGap was up the GMCP client got %q, want the line's GMCP queued with its write, then the write", got)
		}

		time.Sleep(2 * time.Second)
		z.QueueInputForTest(talker, 1, "say hello")
		z.BatchForTest()
		got := g.takeEvents()
		if len(got) != 2 || got[0] != "with Comm.Channel.Text" || !strings.HasPrefix(got[1], "write Talker says") {
			t.Fatalf("a say reached the GMCP client as %q, want its GMCP queued with the write, then the write", got)
		}
		z.QueueInputForTest(g, 1, "look")
		z.BatchForTest()
		got = g.takeEvents()
		if len(got) != 2 || got[0] != "with Room.Info" || !strings.HasPrefix(got[1], "write ") || !strings.Contains(got[1], "Exits:") {
			t.Fatalf("a look reached the GMCP client as %q, want Room.Info queued with the room's write, then the write", got)
		}
	})
}

// In a room that is not crowded, talk goes out with its batch even to a
// player whose comings and goings were waiting for newsGap, and takes them
// along: a crowd's gap is no reason to hold it. (The player's gap held it
// back, and a talker fast enough filled half a megabyte in the wait.)
func TestZone_TalkAfterWaitingNewsGoesAtOnceWhenNotCrowded(t *testing.T) {
	z := crowdZone(t, 30)
	z.SetFlushGapForTest(time.Hour) // were the gap applied, nothing would go out
	talker := arrive(t, z, "Talker")
	hearer := arrive(t, z, "Hearer")
	talker.take()
	hearer.take()
	z.Arrive(&zone.CharRecord{Name: "Latecomer", Level: 1}, newWriteSession(), "", "")
	z.DrainWithGapForTest()
	if got := hearer.take(); len(got) != 0 {
		t.Fatalf("an arrival was told at once, not gathered for newsGap: %q", got)
	}
	z.QueueInputForTest(talker, 1, "say hello")
	z.BatchForTest()
	got := hearer.take()
	if len(got) != 1 || !strings.Contains(got[0], "Latecomer has entered the world.") || !strings.Contains(got[0], "hello") {
		t.Fatalf("the hearer got %q; want the arrival and the say in one write with the say's batch", got)
	}
}
