package zone_test

import (
	"fmt"
	"strings"
	"testing"

	"zonemud/zone"
)

// channelListeners is how many players hear the benchmarks' channel line.
const channelListeners = 10_000

// crowdOf enters n players into z on bench sessions, spread over its rooms
// by entering them all at the start room (where they stand does not
// matter to a channel).
func crowdOf(b *testing.B, z *zone.Zone, n int, prefix string) []*benchSession {
	b.Helper()
	out := make([]*benchSession, n)
	for i := range out {
		out[i] = newBenchSession()
		z.Arrive(&zone.CharRecord{Name: fmt.Sprintf("%s%05d", prefix, i), Level: 1}, out[i], "", "")
		if i%500 == 0 {
			z.DrainForTest()
		}
	}
	z.DrainForTest()
	return out
}

// BenchmarkChannel_SenderZoneHolds10k is one gossip line typed in a zone
// that itself holds all 10,000 listeners: the whole cost of the line on
// the sender's zone (parse, format once, show it to every listener and
// flush each one's output), in ns per line and per recipient. Senders take
// turns so no one meets the channel's rate limit.
func BenchmarkChannel_SenderZoneHolds10k(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	ss := crowdOf(b, z, channelListeners, "Talker")
	seqs := make([]uint64, len(ss))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ss)
		seqs[k]++
		z.InputForTest(ss[k], seqs[k], "gossip the well by the square is dry again")
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/channelListeners, "ns/recipient")
	if ss[len(ss)-1].bytes.Load() == 0 && b.N > 1 {
		b.Fatal("a listener heard nothing")
	}
}

// BenchmarkChannel_SenderAlone is the same line typed by a player alone in
// the zone: the cost on the sender's zone when every listener is
// elsewhere (parse, format and encode once, show it to the sender, hand
// it to the world, which queues its history write for its worker and
// pushes one message on the mailbox of each other zone holding players;
// in this harness no other zone does, so that push, a few tens of ns a
// zone, is not in the figure). The channel's rate limit is lifted for the
// one talker.
func BenchmarkChannel_SenderAlone(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	w, z := benchWorld(b)
	ch := w.Content().Channel("gossip")
	oldRate := ch.Rate
	ch.Rate = b.N + 1
	defer func() { ch.Rate = oldRate }()
	s := enter(b, z, "Loner")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.InputForTest(s, uint64(i+1), "gossip the well by the square is dry again")
	}
	b.StopTimer()
	if !strings.Contains(s.Last(), "[Gossip] Loner:") {
		b.Fatalf("the talker was told %q", s.Last())
	}
}

// BenchmarkChannel_Deliver10k is a receiving zone's side: one channel
// line from another zone shown to the 10,000 listeners it holds, in ns per
// line and per recipient.
func BenchmarkChannel_Deliver10k(b *testing.B) {
	zone.SetOwnerCheck(false)
	defer zone.SetOwnerCheck(true)
	_, z := benchWorld(b)
	ss := crowdOf(b, z, channelListeners, "Hearer")
	l := &zone.ChannelLine{Channel: "gossip", From: "Faraway", Text: "the well is dry", Line: "[Gossip] Faraway: the well is dry"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.DeliverChannel(l)
		z.DrainForTest()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/channelListeners, "ns/recipient")
	if ss[0].bytes.Load() == 0 {
		b.Fatal("a listener heard nothing")
	}
}
