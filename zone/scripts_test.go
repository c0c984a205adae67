package zone_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"zonemud/content"
	"zonemud/script"
	"zonemud/store"
	"zonemud/world"
	"zonemud/zone"
)

// scriptWorld builds a world, like benchWorld, over a copy of the starter
// areas with emberfall.toml edited, and [lua] set to lua.
func scriptWorld(t *testing.T, lua script.Config, edit func(emberfall []byte) []byte) *world.World {
	t.Helper()
	dir := copyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			return edit(data)
		}
		return data
	})
	set, err := content.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dir+"/test.db", store.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	wcfg := world.DefaultConfig()
	wcfg.Lua = lua
	zcfg := zone.DefaultConfig()
	zcfg.Dormant = false
	w, err := world.New(set, db, wcfg, zcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// heavyMob is a mob whose on_tick does about 10,000 units of work and
// then says which mob it is and how often it has ticked.
const heavyMob = `
[mobs.heavy]
keywords = ["thinker"]
short = "a heavy thinker"
long = "A heavy thinker ponders here."
level = 1
script = """
function on_tick()
  local x = 0
  for i = 1, 5000 do x = x + i end
  self.state.n = (self.state.n or 0) + 1
  self:emote("ponders " .. self:id() .. " " .. self.state.n)
end
"""
`

// TestScripts_HeavyZoneKeepsToItsBudget puts 200 heavy scripts in one
// zone. Time is counted in pulses and work in the budget's units, never
// in milliseconds: a zone's pulse costs what its scripts do in it, so a
// zone held to its budget leaves the machine to the other zones. The hog
// is driven in lockstep with a quiet zone, as one core would run them: a
// player there is answered after every pulse of the hog, and what the hog
// did in between is bounded by the budget.
func TestScripts_HeavyZoneKeepsToItsBudget(t *testing.T) {
	lua := script.DefaultConfig()
	lua.MaxInstructions = 20000
	lua.PulseInstructions = 100000
	lua.DeadlineMs = 0 // no hang guard: counts decide, never the machine's speed
	// A call that starts under the budget may finish over it.
	limit := int64(lua.PulseInstructions + lua.MaxInstructions)
	const mobs, pulses = 200, 48

	t.Run("without a budget the test fails", func(t *testing.T) {
		cfg := lua
		cfg.PulseInstructions = 1000000000
		w := scriptWorld(t, cfg, func(b []byte) []byte { return append(b, heavyMob...) })
		hog := w.Zone("emberfall")
		hog.BootForTest()
		hog.SpawnForTest("emberfall:mob:heavy", "emberfall:room:graveyard", mobs)
		worst := int64(0)
		for i := 0; i < 4; i++ { // on_tick runs on the fourth
			hog.TickForTest()
			work, _ := hog.ScriptWorkForTest()
			worst = max(worst, work)
		}
		if worst <= limit {
			t.Fatalf("worst pulse %d units without a budget, want over %d: the heavy scripts are too light to test anything", worst, limit)
		}
	})

	w := scriptWorld(t, lua, func(b []byte) []byte { return append(b, heavyMob...) })
	hog, quiet := w.Zone("emberfall"), w.Zone("whisperwood")
	hog.BootForTest()
	quiet.BootForTest()
	hog.SpawnForTest("emberfall:mob:heavy", "emberfall:room:graveyard", mobs)
	watcher := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	hog.Arrive(&zone.CharRecord{Name: "Watcher", Level: 1, Admin: true}, watcher, "emberfall:room:graveyard", "")
	hog.DrainForTest()
	walker := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	quiet.Arrive(&zone.CharRecord{Name: "Walker", Level: 1}, walker, "whisperwood:room:forest_edge", "")
	quiet.DrainForTest()
	_, _, _, walkerIn := quiet.CharState("Walker")
	_, _, _, watcherIn := hog.CharState("Watcher")
	if !walkerIn || !watcherIn {
		t.Fatal("the players did not arrive")
	}

	for p := 1; p <= pulses; p++ {
		hog.TickForTest()
		hog.DrainForTest()
		if work, _ := hog.ScriptWorkForTest(); work > limit {
			t.Fatalf("pulse %d: the hog's scripts did %d units, over the budget's bound of %d", p, work, limit)
		}
		// The quiet zone's player, and the hog's own, are answered
		// before the hog's next pulse.
		mark := len(walker.text())
		quiet.InputForTest(walker, uint64(p), "look")
		if !strings.Contains(walker.text()[mark:], "Exits:") {
			t.Fatalf("pulse %d: the quiet zone's player got no answer", p)
		}
		mark = len(watcher.text())
		hog.InputForTest(watcher, uint64(p), "score")
		if !strings.Contains(watcher.text()[mark:], "Watcher") {
			t.Fatalf("pulse %d: the hog's own player got no answer", p)
		}
		quiet.TickForTest()
	}

	// Every heavy script got its turns, round and round: the budget
	// defers ticks, it does not starve anyone.
	ticks := map[string]int{}
	for _, m := range regexp.MustCompile(`ponders (char:\d+) (\d+)`).FindAllStringSubmatch(watcher.text(), -1) {
		var n int
		fmt.Sscan(m[2], &n)
		ticks[m[1]] = max(ticks[m[1]], n)
	}
	least, most := pulses, 0
	for _, n := range ticks {
		least, most = min(least, n), max(most, n)
	}
	if len(ticks) != mobs || least < 2 || most-least > 1 {
		t.Fatalf("%d mobs ticked, from %d to %d times each; want all %d, at least twice, evenly", len(ticks), least, most, mobs)
	}
	_, st := hog.ScriptWorkForTest()
	if st.Deferred == 0 || st.Overruns == 0 {
		t.Fatalf("stats %+v: want ticks deferred and pulses over budget", st)
	}
	// The zone's builders and admins are told which scripts are heaviest.
	if !strings.Contains(watcher.text(), "scripts spent the budget of 100000 instructions") ||
		!strings.Contains(watcher.text(), "Heaviest: emberfall:mob:heavy (emberfall.toml:") {
		t.Fatalf("the admin was not told of the spent budget:\n%s", lastLines(watcher.text(), 5))
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// A room whose on_command swallows every command, as a hostile or broken
// script might: the player can still quit, and can still leave once the
// script has refused every way out.
const trapRoom = `script = """
function on_command(actor, verb, args)
  actor:send("The street will not let you go.")
  return true
end
"""
`

func TestScripts_OnCommandCannotTrapAPlayer(t *testing.T) {
	lua := script.DefaultConfig()
	lua.DeadlineMs = 0
	w := scriptWorld(t, lua, func(b []byte) []byte {
		return bytes.Replace(b, []byte("[rooms.north_street]\n"), []byte("[rooms.north_street]\n"+trapRoom), 1)
	})
	z := w.Zone("emberfall")
	z.BootForTest()
	builder := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Builder", Level: 1, Admin: true}, builder, "emberfall:room:square", "")
	s := &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
	z.Arrive(&zone.CharRecord{Name: "Trapped", Level: 1}, s, "emberfall:room:north_street", "")
	z.DrainForTest()
	seq := uint64(0)
	do := func(line string) string {
		seq++
		mark := len(s.text())
		z.InputForTest(s, seq, line)
		return s.text()[mark:]
	}
	// The script may refuse a move, with its own line, again and again
	// while a way out is left untried.
	for i := 0; i < 4; i++ {
		if out := do("north"); !strings.Contains(out, "will not let you go") || strings.Contains(out, "Exits:") {
			t.Fatalf("north #%d: %q, want the script's refusal", i+1, out)
		}
	}
	// Commands that are not moves neither count nor reset the run.
	if out := do("look"); !strings.Contains(out, "will not let you go") {
		t.Fatalf("look: %q, want the script's answer", out)
	}
	// South is the last way out to be refused: the player is let through.
	out := do("south")
	if !strings.Contains(out, "you are let through") || !strings.Contains(out, "Emberfall Square") {
		t.Fatalf("south after every way out was refused: %q, want the player let through to the square", out)
	}
	if !strings.Contains(builder.text(), "emberfall:room:north_street refused every way out of emberfall:room:north_street to Trapped, 3 times in a row") {
		t.Fatalf("the builder was not told:\n%s", lastLines(builder.text(), 5))
	}
	// Back in the trap: the count starts afresh, and quit always quits.
	if out := do("north"); !strings.Contains(out, "Temple Street") {
		t.Fatalf("north from the square: %q", out)
	}
	if out := do("south"); !strings.Contains(out, "will not let you go") {
		t.Fatalf("south on returning: %q, want a fresh refusal", out)
	}
	do("quit")
	if !s.Closed() {
		t.Fatalf("quit in the trap room did not quit:\n%s", lastLines(s.text(), 5))
	}
}

// heavyGreeter is a mob whose on_greet does about 10,000 units of work and
// then says which mob it is and whom it greets.
const heavyGreeter = `
[mobs.greeter]
keywords = ["greeter"]
short = "a heavy greeter"
long = "A heavy greeter waits here."
level = 1
script = """
function on_greet(actor)
  local x = 0
  for i = 1, 5000 do x = x + i end
  self:emote("greets from " .. self:id())
end
"""
`

// TestScripts_GreetersKeepToTheTriggerBudget walks a player into a room of
// 200 heavy greeters. The triggers a player's action fires have a budget
// of their own per pulse: the walk is answered at once, the greetings the
// budget leaves out come in the following pulses, every greeter greets
// exactly once, and the zone's builders are told. Work is counted, never
// timed.
func TestScripts_GreetersKeepToTheTriggerBudget(t *testing.T) {
	lua := script.DefaultConfig()
	lua.MaxInstructions = 20000
	lua.PulseInstructions = 100000
	lua.TriggerInstructions = 100000
	lua.DeadlineMs = 0
	limit := int64(lua.TriggerInstructions + lua.MaxInstructions)
	const mobs = 200

	walkIn := func(t *testing.T, lua script.Config) (z *zone.Zone, walker, builder *logSession, out string) {
		w := scriptWorld(t, lua, func(b []byte) []byte { return append(b, heavyGreeter...) })
		z = w.Zone("emberfall")
		z.BootForTest()
		z.SpawnForTest("emberfall:mob:greeter", "emberfall:room:north_street", mobs)
		builder = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
		z.Arrive(&zone.CharRecord{Name: "Builder", Level: 1, Admin: true}, builder, "emberfall:room:square", "")
		walker = &logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}
		z.Arrive(&zone.CharRecord{Name: "Walker", Level: 1}, walker, "emberfall:room:square", "")
		z.DrainForTest()
		z.TickForTest() // a fresh pulse
		mark := len(walker.text())
		z.InputForTest(walker, 1, "north")
		return z, walker, builder, walker.text()[mark:]
	}
	greetings := regexp.MustCompile(`greets from (char:\d+)`)

	t.Run("without a budget the test fails", func(t *testing.T) {
		cfg := lua
		cfg.TriggerInstructions = 1000000000
		cfg.PulseInstructions = 1000000000
		z, _, _, out := walkIn(t, cfg)
		work, _ := z.ScriptWorkForTest()
		if n := len(greetings.FindAllString(out, -1)); work <= limit || n != mobs {
			t.Fatalf("without a budget: %d units and %d greetings in the walk's turn, want over %d and all %d", work, n, limit, mobs)
		}
	})

	z, walker, builder, out := walkIn(t, lua)
	if !strings.Contains(out, "Exits:") {
		t.Fatalf("the walk into the greeters' room was not answered: %q", lastLines(out, 3))
	}
	if work, _ := z.ScriptWorkForTest(); work > limit {
		t.Fatalf("the walk's turn did %d units of script work, over the trigger budget's bound of %d", work, limit)
	}
	if n := len(greetings.FindAllString(out, -1)); n == 0 || n == mobs {
		t.Fatalf("%d greetings in the walk's turn, want some but not all %d", n, mobs)
	}
	for p := 1; p <= 100; p++ {
		z.TickForTest()
		z.DrainForTest()
		if work, _ := z.ScriptWorkForTest(); work > limit {
			t.Fatalf("pulse %d: %d units of script work, over the bound of %d", p, work, limit)
		}
	}
	seen := map[string]int{}
	for _, m := range greetings.FindAllStringSubmatch(walker.text(), -1) {
		seen[m[1]]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s greeted %d times, want once", id, n)
		}
	}
	if len(seen) != mobs {
		t.Fatalf("%d of %d greeters greeted after 100 pulses", len(seen), mobs)
	}
	if _, st := z.ScriptWorkForTest(); st.TriggersOver == 0 {
		t.Fatalf("stats %+v: want triggers put off", st)
	}
	if !strings.Contains(builder.text(), "triggers of players' actions spent their budget of 100000 instructions a pulse") ||
		!strings.Contains(builder.text(), "Heaviest: emberfall:mob:greeter (emberfall.toml:") {
		t.Fatalf("the builder was not told of the spent trigger budget:\n%s", lastLines(builder.text(), 5))
	}
}
