package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/internal/genworld"
	"zonemud/server/servertest"
)

// A tiny gather run against a real server on a generated tree: every bot
// walks to its own leaf over real telnet, crossing zones on the way, and
// every look, say, up and down after that is answered (a down at a leaf
// is answered by its refusal), with nobody cut off, and the says are heard
// by the others in the room.
func TestRun_GatherOnARealTree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	// 9 leaves for 12 bots: three leaves hold two, so says are heard.
	tree := genworld.TreeOptions{Fanout: 3, Depth: 2}
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = filepath.Join(t.TempDir(), "tree")
	gameToml, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "game.toml"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := genworld.Generate(cfg.Server.AreasDir, genworld.Options{Game: gameToml, Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	if st.Zones != 1+9 || st.Rooms != 1+3+9 {
		t.Fatalf("wrote %d rooms in %d zones, want 13 in 10", st.Rooms, st.Zones)
	}
	srv := servertest.Start(t, cfg)

	sc, ok := scenarioByName("gather")
	if !ok {
		t.Fatal("no gather scenario")
	}
	lc := testConfig(srv.TelnetAddr())
	lc.Bots = 12
	lc.Every = 100 * time.Millisecond
	lc.Duration = 2 * time.Second
	lc.ReplyTimeout = 20 * time.Second
	lc.LoginTimeout = 30 * time.Second
	lc.QuitWait = 10 * time.Second
	lc.Scenario, lc.Tree, lc.Hear = sc.Name, tree, sc.Hear
	lc.Commands = mustCommands(sc.Commands)
	s := runWithin(t, context.Background(), lc, 2*time.Minute)
	checkHealthy(t, s, lc)
	if s.Walked != int64(lc.Bots*tree.Depth) {
		t.Errorf("walked %d steps on the way to the leaves, want %d", s.Walked, lc.Bots*tree.Depth)
	}
	if h := s.Heard; h.Count == 0 || !(0 < h.P50 && h.P50 <= h.P99 && h.P99 <= h.Max) {
		t.Errorf("heard %+v: want the says other bots read, in order", h)
	}
}

// A crowd run with half the commands on gossip against a real server in
// the starter world: every command is answered (a gossip line by the
// bot's own line on the channel, or by the channel's refusal), and the
// other bots' reading of each line is counted and timed.
func TestRun_CrowdWithChannel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := servertest.Start(t, nil)
	sc, _ := scenarioByName("crowd")
	lc := testConfig(srv.TelnetAddr())
	lc.Bots = 6
	lc.Every = 400 * time.Millisecond // 0.5 x 25 in 10 s: past the rate of 5, so refusals come too
	lc.Duration = 3 * time.Second
	lc.ReplyTimeout = 20 * time.Second
	lc.LoginTimeout = 30 * time.Second
	lc.QuitWait = 10 * time.Second
	lc.Scenario, lc.Channel = sc.Name, 0.5
	lc.Commands = mustCommands(sc.Commands)
	s := runWithin(t, context.Background(), lc, 2*time.Minute)
	checkHealthy(t, s, lc)
	if h := s.ChannelHeard; h.Count == 0 || !(0 < h.P50 && h.P50 <= h.P99 && h.P99 <= h.Max) {
		t.Errorf("channel heard %+v: want the gossip lines other bots read, in order", h)
	}
	if !strings.Contains(s.Text(), "channel: 50% of commands on gossip;") {
		t.Errorf("summary without the channel line:\n%s", s.Text())
	}
}

func TestChannelStampIn(t *testing.T) {
	own := []byte(gossipFrom("Botab"))
	for line, want := range map[string]int64{
		"[Gossip] Botac: hello zz123zz": 123,
		"[Gossip] Botab: hello zz123zz": 0, // its own
		"[Gossip] Botabc: hello zz77zz": 77,
		"Botac says, 'hello zz5zz'":     0,
		"[Gossip] Botac: hello":         0,
	} {
		got, ok := channelStampIn([]byte(line), own)
		if ok != (want != 0) || got != want {
			t.Errorf("channelStampIn(%q) = %d %v, want %d", line, got, ok, want)
		}
	}
}
