package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// mixWorld is a zone of two rooms, each with a grocer who sells bread and
// buys it back and a crowd of weak rats that carry gold: a bot of the mix
// sees prey and a shop wherever it stands.
const mixWorld = `
[zone]
name = "The Market"
reset_secs = 60

[rooms.square]
name = "The Market Square"
description = "Stalls and rats."
exits = { east = "lane" }

[rooms.lane]
name = "The Market Lane"
description = "More stalls, more rats."
exits = { west = "square" }

[mobs.rat]
keywords = ["rat", "grey"]
short = "a grey rat"
long = "A grey rat is here."
description = "It is small."
level = 1
hp = "1d2"
damage = "1d1"
gold = "20"

[mobs.grocer]
keywords = ["grocer", "fat"]
short = "a fat grocer"
long = "A fat grocer is here."
description = "He sells bread."
level = 30
hp = "30d8+150"
damage = "1d2"

[mobs.grocer.shop]
stock = [
  { item = "bread" },
]
buy_factor = 1.0
sell_factor = 0.5
trades = ["food"]

[items.bread]
keywords = ["bread", "brown"]
short = "a brown bread"
long = "A brown bread lies here."
type = "food"
weight = 1
value = 4

[[resets]]
mob = "grocer"
room = "square"
max = 1

[[resets]]
mob = "grocer"
room = "lane"
max = 2

[[resets]]
mob = "rat"
room = "square"
max = 20

[[resets]]
mob = "rat"
room = "lane"
max = 40
`

// A small mix run against a real server: the bots walk, look, talk,
// gossip, fight the rats they see (and flee or fight on) and trade with
// the grocer they see, paying with the rats' gold; every command is
// answered, each kind is counted on its own, and kills, buys and sells
// all happen.
func TestRun_MixOnARealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	cfg := servertest.Config(t)
	areas := filepath.Join(t.TempDir(), "areas")
	if err := os.MkdirAll(areas, 0o755); err != nil {
		t.Fatal(err)
	}
	game, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "game.toml"))
	if err != nil {
		t.Fatal(err)
	}
	channels, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "channels.toml"))
	if err != nil {
		t.Fatal(err)
	}
	g := strings.NewReplacer(`"emberfall:room:square"`, `"market:room:square"`, `"emberfall:room:temple"`, `"market:room:square"`).Replace(string(game))
	if g == string(game) {
		t.Fatal("the starter game.toml no longer names emberfall's square and temple as its start and recall")
	}
	for name, text := range map[string]string{"game.toml": g, "channels.toml": string(channels), "market.toml": mixWorld} {
		if err := os.WriteFile(filepath.Join(areas, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Server.AreasDir = areas
	srv := servertest.Start(t, cfg)

	sc, ok := scenarioByName("mix")
	if !ok || !sc.Mix {
		t.Fatal("no mix scenario")
	}
	w, err := ParseMix("walk=1,look=1,say=1,gossip=0.5,fight=3,shop=3")
	if err != nil {
		t.Fatal(err)
	}
	lc := testConfig(srv.TelnetAddr())
	lc.Bots = 6
	lc.Every = 100 * time.Millisecond
	lc.Duration = 4 * time.Second
	lc.ReplyTimeout = 20 * time.Second
	lc.LoginTimeout = 30 * time.Second
	lc.QuitWait = 10 * time.Second
	lc.Scenario, lc.Commands = sc.Name, mustCommands(sc.Commands)
	lc.Mix = &Mix{Weights: w, Prey: Words(DefaultPrey), Keepers: Words(DefaultKeepers + ",grocer")}
	s := runWithin(t, context.Background(), lc, 2*time.Minute)
	checkHealthy(t, s, lc)
	got := map[string]SeriesSummary{}
	var all int64
	for _, sr := range s.Series {
		got[sr.Name] = sr
		all += int64(sr.Latency.Count) + sr.Refused
	}
	for _, name := range []string{"walk", "look", "say", "gossip", "kill", "list", "buy", "sell"} {
		if got[name].Latency.Count == 0 {
			t.Errorf("no %s answered: %+v", name, got[name])
		}
	}
	if _, ok := got["flee"]; !ok {
		t.Error("no flee series")
	}
	if all != s.Answered {
		t.Errorf("the kinds count %d answers in all, the run %d", all, s.Answered)
	}
	if s.Kills == 0 {
		t.Errorf("no rat killed:\n%s", s.Text())
	}
	if txt := s.Text(); !strings.Contains(txt, "mix: walk=1 look=1 say=1 gossip=0.5 fight=3 shop=3;") || !strings.Contains(txt, "kills") {
		t.Errorf("summary without the mix line:\n%s", txt)
	}
	if t.Failed() {
		t.Logf("summary:\n%s", s.Text())
	}
}

func TestParseMix(t *testing.T) {
	w, err := ParseMix(DefaultMix)
	if err != nil || w[mixWalk] != 30 || w[mixGossip] != 0.05 || w[mixShop] != 15 {
		t.Errorf("ParseMix(%q) = %v, %v", DefaultMix, w, err)
	}
	for _, bad := range []string{"", "walk", "run=3", "walk=-1", "walk=x", "walk=0,look=0", "walk=NaN"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) took it", bad)
		}
	}
}

// The reader's view of the room: prey and keepers are found as whole
// words in the listing after the exits line, the cheapest of a shop's
// list is its goods, gold is counted, and the fight is followed from the
// bot's own attack to its foe's death, through a failed flee.
func TestMixState_ReadsRoomShopAndFight(t *testing.T) {
	m := &mixState{see: newSeeing([]string{"rat"}, []string{"grocer"})}
	feed := func(lines ...string) {
		for _, l := range lines {
			m.line([]byte(l))
		}
	}
	m.exits()
	feed("A pirate is here.", "The corpse of a brown rat lies here.", "A fat grocer is here.", "A grey rat is here.")
	if m.cur.prey != "rat" || !m.cur.keeper {
		t.Errorf("after the listing: %+v, want the rat and the grocer (not the pirate's 'rat')", m.cur)
	}
	m.exits()
	feed("The corpse of a grey rat lies here.")
	if m.cur.prey != "" {
		t.Errorf("a corpse is prey: %+v", m.cur)
	}
	m.prompt()
	feed("A rat arrives from the west.")
	feed("> A fat grocer sells:", "  a brown bread                    4 gold (plenty)", "  a big cake    12 gold (3 left)")
	if m.cur.goods != "bread" || m.cur.price != 4 {
		t.Errorf("after the list: %+v, want bread at 4", m.cur)
	}
	m.prompt()
	feed("> You attack a grey rat!")
	if !m.fight {
		t.Error("not fighting after the attack")
	}
	feed("> PANIC! You could not get away!")
	if !m.fight {
		t.Error("not fighting after a failed flee")
	}
	feed("A grey rat is DEAD!", "You take 20 gold coins from the body.", "> You buy a brown bread for 4 gold.", "You sell a brown bread for 2 gold.")
	if m.fight || m.kills != 1 || m.cur.prey != "" || m.gold != 18 || m.held != 0 {
		t.Errorf("after the kill and the trades: fight %v, kills %d, prey %q, gold %d, held %d; want false, 1, none, 18, 0",
			m.fight, m.kills, m.cur.prey, m.gold, m.held)
	}
	m.exits()
	if m.cur != (seen{}) {
		t.Errorf("a new listing keeps %+v", m.cur)
	}
}
