package script

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// noReports fails the test if any script failed.
func (w *world) noReports() {
	w.t.Helper()
	if len(w.host.reports) != 0 {
		w.t.Fatalf("reports %v, want none", w.host.reports)
	}
}

// wantCalls checks the host saw exactly these acts, in order, since mark.
func (w *world) wantCalls(mark int, want ...string) {
	w.t.Helper()
	got := w.host.calls[mark:]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		w.t.Fatalf("host calls:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// wantLogs checks the builder log since mark.
func (w *world) wantLogs(mark int, want ...string) {
	w.t.Helper()
	got := w.host.logs[mark:]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		w.t.Fatalf("logs:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestAPI_Reads(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
function on_greet(actor)
  local r = self:room()
  local v = actor:vitals()
  local fl = self:flags()
  local names = {}
  for _, c in ipairs(r:occupants()) do names[#names + 1] = c:name() end
  local things = {}
  for _, i in ipairs(r:contents()) do things[#things + 1] = i:short() .. "/" .. i:proto() .. "/" .. i:id() end
  local ex = r:exits()
  print(self:id(), actor:id(), r:id(), self:name(), self:short(), self:long(), self:level(), self:proto())
  print(actor:is_player(), self:is_player(), table.concat(fl, ","), self:has_flag("healer"), self:has_flag("aggressive"))
  print(v.hp, v.max_hp, v.mana, v.max_mana, v.moves, v.max_moves)
  print(table.concat(names, ","), table.concat(things, ","))
  print(ex.south:id(), ex.east, ex.south:name(), mud.zone(), tostring(self), tostring(r))
  print(self == actor, self == self, r == ex.south:exits().north, r:occupants() ~= nil, self:occupants(), self:exits())
end`)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	w.wantLogs(0,
		"ember:mob:priestess: char:2\tchar:1\tember:hall\tthe priestess\tthe priestess\tA priestess prays here.\t20\temberfall:priestess",
		"ember:mob:priestess: true\tfalse\tsentinel,healer\ttrue\tfalse",
		"ember:mob:priestess: 50\t60\t10\t20\t30\t40",
		"ember:mob:priestess: Ann,the priestess\ta sword/emberfall:sword/item:10",
		"ember:mob:priestess: ember:yard\telsewhere:gate\tThe Yard\tember\tchar:2 (the priestess)\tember:hall",
		"ember:mob:priestess: false\ttrue\ttrue\ttrue\tnil\tnil",
	)
}

func TestAPI_Acts(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
function on_command(actor, verb, args)
  if verb ~= "pray" then return false end
  local r = self:room()
  local sword = r:contents()[1]
  local rat = r:exits().south:occupants()[1]
  print(actor:send("You pray: " .. args))
  print(self:say("Bless you."))
  print(self:emote("smiles."))
  print(mud.broadcast(r, "A bell rings."), mud.broadcast("ember:yard", "Far away, a bell."))
  print(rat:move("north"), rat:teleport("ember:yard"), rat:teleport(r), rat:teleport("nowhere"))
  print(actor:damage(5), actor:damage(-3), actor:damage(1e12), actor:heal(7))
  print(actor:give(sword), r:give(sword), actor:give(actor))
  print(r:set_door("south", "locked"), self:set_door("south", "open"))
  print(rat:purge(), rat:purge(), actor:purge())
  return true
end`)
	if !w.vm.Fire(char(2), "on_command", char(1), "pray", "for rain") {
		t.Fatalf("on_command = false, want true; reports %v", w.host.reports)
	}
	if w.vm.Fire(char(2), "on_command", char(1), "dance", "") {
		t.Fatalf("on_command dance = true, want false")
	}
	w.noReports()
	w.wantCalls(0,
		"Send char:1 You pray: for rain",
		"Say char:2 Bless you.",
		"Emote char:2 smiles.",
		"Broadcast ember:hall A bell rings.",
		"Broadcast ember:yard Far away, a bell.",
		"Move char:3 north",
		"Teleport char:3 ember:yard",
		"Teleport char:3 ember:hall",
		"Teleport char:3 nowhere",
		"Damage char:1 5 from char:2",
		"Damage char:1 0 from char:2",
		"Damage char:1 1000000 from char:2",
		"Heal char:1 7",
		"Give item:10 char:1",
		"Give item:10 ember:hall",
		"SetDoor ember:hall south locked",
		"Purge char:3",
		"Purge char:1",
	)
	w.wantLogs(0,
		"ember:mob:priestess: true",
		"ember:mob:priestess: true",
		"ember:mob:priestess: true",
		"ember:mob:priestess: true\ttrue",
		"ember:mob:priestess: true\ttrue\ttrue\tfalse",
		"ember:mob:priestess: true\ttrue\ttrue\ttrue",
		"ember:mob:priestess: true\ttrue\tfalse",
		"ember:mob:priestess: true\tfalse",
		"ember:mob:priestess: true\tfalse\tfalse",
	)
	if d := w.host.rooms["ember:hall"].doors["south"]; d != "locked" {
		t.Errorf("door = %q, want locked", d)
	}
}

func TestAPI_SayAsAPlayerIsRefused(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
function on_greet(actor) print(actor:say("I am a fool."), actor:emote("dances.")) end`)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	w.wantCalls(0)
	w.wantLogs(0, "ember:mob:priestess: false\tfalse")
}

func TestAPI_RandomAndRoll(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:dice", `
function on_tick()
  for i = 1, 200 do
    local a, b, c, d = mud.random(6), mud.random(3, 4), math.random(10), math.random()
    assert(a >= 1 and a <= 6 and a == math.floor(a), "mud.random(6)")
    assert(b == 3 or b == 4, "mud.random(3, 4)")
    assert(c >= 1 and c <= 10, "math.random(10)")
    assert(d >= 0 and d < 1, "math.random()")
    local r = mud.roll("2d6+1")
    assert(r >= 3 and r <= 13, "roll 2d6+1")
    assert(mud.roll("d4") <= 4 and mud.roll("3d1-3") == 0, "roll forms")
  end
  math.randomseed(42)
  for _, bad in ipairs({"101d6", "1d10001", "2d", "d", "x", "2d6+", "2d6*2", "0d6", "1d0", "99999999999d6", "1d6+10000000"}) do
    assert(not pcall(mud.roll, bad), "roll accepted " .. bad)
  end
  assert(not pcall(mud.random, 0), "random(0)")
  assert(not pcall(mud.random, 5, 1), "random(5, 1)")
end`)
	w.vm.Fire(char(2), "on_tick")
	w.noReports()
}

func TestAPI_Log(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:chatty", `
function on_tick()
  for i = 1, 100 do mud.log("line " .. i) end
  print(string.rep("x", 10000))
end`)
	w.vm.Fire(char(2), "on_tick")
	w.noReports()
	if got, want := len(w.host.logs), 21; got != want {
		t.Fatalf("%d log lines, want %d (20 and a notice)", got, want)
	}
	if !strings.Contains(w.host.logs[20], "log limit") {
		t.Errorf("last line %q, want the limit notice", w.host.logs[20])
	}
	w.vm.Fire(char(2), "on_tick") // a new call has a new budget
	if got := len(w.host.logs); got != 42 {
		t.Errorf("%d log lines after two calls, want 42", got)
	}
}

func TestAPI_LongTextIsCapped(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:x", `function on_greet(a) a:send(string.rep("é", 5000)) mud.log(string.rep("y", 9000)) end`)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	sent := strings.TrimPrefix(w.host.calls[0], "Send char:1 ")
	if len(sent) > maxTextBytes || !strings.HasSuffix(sent, "é") {
		t.Errorf("sent %d bytes ending %q, want at most %d on a character boundary", len(sent), sent[len(sent)-3:], maxTextBytes)
	}
	if n := len(w.host.logs[0]); n > maxTextBytes+len("ember:mob:x: ") {
		t.Errorf("log line of %d bytes, want it capped", n)
	}
}

func TestAPI_State(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:counter", `
function on_greet(actor)
  self.state.visits = (self.state.visits or 0) + 1
  self:say("visit " .. self.state.visits)
end
function on_tick() self.state = { visits = 100 } end`)
	for i := 0; i < 3; i++ {
		w.vm.Fire(char(2), "on_greet", char(1))
	}
	w.vm.Fire(char(2), "on_tick")
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	w.wantCalls(0, "Say char:2 visit 1", "Say char:2 visit 2", "Say char:2 visit 3", "Say char:2 visit 101")
}

func TestAPI_Timers(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:timer", `
function on_greet(actor)
  mud.after(2, function() self:say("two pulses later") end)
  local id = mud.after(3, function() self:say("never") end)
  print(mud.cancel(id), mud.cancel(id), mud.cancel(12345))
  mud.after(1, function() mud.after(1, function() self:say("chained") end) end)
end`)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	if s := w.vm.Stats(); s.Timers != 2 {
		t.Fatalf("Timers = %d, want 2", s.Timers)
	}
	w.host.advance(5)
	w.noReports()
	w.wantCalls(0, "Say char:2 two pulses later", "Say char:2 chained")
	w.wantLogs(0, "ember:mob:timer: true\tfalse\tfalse")
	if s := w.vm.Stats(); s.Timers != 0 {
		t.Fatalf("Timers = %d after they ran, want 0", s.Timers)
	}
	// Timers die with their entity.
	w.vm.Fire(char(2), "on_greet", char(1))
	w.vm.Detach(char(2))
	if s := w.vm.Stats(); s.Timers != 0 || w.host.liveTimers() != 0 {
		t.Fatalf("Timers = %d, host %d after Detach, want 0", s.Timers, w.host.liveTimers())
	}
	mark := len(w.host.calls)
	w.host.advance(5)
	w.wantCalls(mark)
	// Bad arguments.
	w.attach(char(3), "ember:mob:bad", `
function on_tick()
  assert(not pcall(mud.after, 0, print), "0 pulses")
  assert(not pcall(mud.after, 100001, print), "too many pulses")
  assert(not pcall(mud.after, 5, "print"), "not a function")
end`)
	w.vm.Fire(char(3), "on_tick")
	w.noReports()
}

func TestAPI_TimerFlood(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:flood", `
function on_tick()
  for i = 1, 10000 do mud.after(1, function() self.state.n = (self.state.n or 0) + 1 end) end
end
function on_greet() self:say("ran " .. tostring(self.state.n)) end`)
	w.vm.Fire(char(2), "on_tick")
	r := w.lastReport()
	if !strings.HasPrefix(r.msg, "test.toml:12: ") || !strings.Contains(r.msg, "256 live timers") {
		t.Fatalf("report %q, want the timer limit at test.toml:12", r.msg)
	}
	if s := w.vm.Stats(); s.Timers != 256 {
		t.Fatalf("Timers = %d, want 256", s.Timers)
	}
	w.host.advance(1)
	w.vm.Fire(char(2), "on_greet", char(1))
	if got := w.host.calls[len(w.host.calls)-1]; got != "Say char:2 ran 256" {
		t.Fatalf("%q, want the 256 timers to have run", got)
	}
	w.healthy()
}

func TestAPI_SpawnCaps(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSpawnsPerZone = 40
	w := newWorld(t, "ember", cfg)
	w.attach(char(2), "ember:mob:spawner", `
function on_tick()
  for i = 1, 100 do mud.spawn("ember:rat", "ember:yard") end
end
function on_greet()
  local n, why = 0, nil
  for i = 1, 16 do
    local h, err = mud.spawn("ember:rat", self:room())
    if h then n = n + 1 else why = err end
  end
  print(n, why)
end`)
	w.vm.Fire(char(2), "on_tick")
	if r := w.lastReport(); !strings.Contains(r.msg, "more than 16 spawns in one call") || !strings.HasPrefix(r.msg, "test.toml:12: ") {
		t.Fatalf("report %q, want the per-call cap at test.toml:12", r.msg)
	}
	if s := w.vm.Stats(); s.Spawned != 16 {
		t.Fatalf("Spawned = %d, want 16", s.Spawned)
	}
	w.vm.Fire(char(2), "on_greet", char(1))
	w.vm.Fire(char(2), "on_greet", char(1))
	w.wantLogs(0, "ember:mob:spawner: 16\tnil", "ember:mob:spawner: 8\tzone spawn limit reached")
	if s := w.vm.Stats(); s.Spawned != 40 {
		t.Fatalf("Spawned = %d, want the zone cap 40", s.Spawned)
	}
	// The zone tells the VM when spawned mobs go; their charge is freed.
	for rid := uint64(101); rid <= 110; rid++ {
		w.vm.Forget(char(rid))
	}
	if s := w.vm.Stats(); s.Spawned != 30 {
		t.Fatalf("Spawned = %d after 10 were forgotten, want 30", s.Spawned)
	}
	w.vm.Fire(char(2), "on_greet", char(1))
	w.wantLogs(2, "ember:mob:spawner: 10\tzone spawn limit reached")
	// Items to a character, and a failed spawn.
	w.attach(char(3), "ember:mob:smith", `
function on_greet(actor)
  local s = mud.spawn("ember:sword", actor)
  print(s:short(), s:room():id(), mud.spawn("ember:rat", "nowhere"), (mud.spawn("ember:rat", 42)))
end`)
	w.vm.Forget(char(111))
	w.vm.Forget(char(112))
	w.vm.Fire(char(3), "on_greet", char(1))
	w.wantLogs(3, "ember:mob:smith: a sword\tember:hall\tnil\tnil")
}

func TestAPI_StateCap(t *testing.T) {
	// A budget that lets 20,000 rounds of the loop below finish: the
	// state cap, not the budget, is under test.
	cfg := DefaultConfig()
	cfg.MaxInstructions = 10000000
	cfg.PulseInstructions = cfg.MaxInstructions
	w := newWorld(t, "ember", cfg)
	w.attach(char(2), "ember:mob:hoarder", `
function on_tick() self.state.big = string.rep("x", 100000) end
function on_greet() self:say("state " .. tostring(self.state.big)) end
function on_speech(actor, text)
  for i = 1, 20000 do self.state["k" .. i] = true; self.state["k" .. i] = nil end
end`)
	w.vm.Fire(char(2), "on_tick")
	r := w.lastReport()
	if !strings.Contains(r.msg, "self.state is over 65536 bytes") || !strings.HasPrefix(r.msg, "test.toml:10: ") {
		t.Fatalf("report %q, want the state cap", r.msg)
	}
	w.vm.Fire(char(2), "on_greet", char(1))
	w.wantCalls(0, "Say char:2 state nil")
	// A state that is empty to Lua but keeps 20000 dead keys is caught.
	n := len(w.host.reports)
	w.vm.Fire(char(2), "on_speech", char(1), "hi")
	if len(w.host.reports) != n+1 || !strings.Contains(w.lastReport().msg, "self.state is over") {
		t.Fatalf("reports %v, want the dead-key state caught", w.host.reports[n:])
	}
	if s := w.vm.Stats(); s.StateOver != 2 {
		t.Errorf("StateOver = %d, want 2", s.StateOver)
	}
}

func TestAPI_GlobalsCap(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:hoarder", `
local hoard = {}
function on_tick()
  for i = 1, 100 do hoard[#hoard + 1] = string.rep("y", 1000) end
end`)
	w.vm.Fire(char(2), "on_tick")
	r := w.lastReport()
	if !strings.Contains(r.msg, "globals and upvalues are over") {
		t.Fatalf("report %q, want the globals cap", r.msg)
	}
	if w.vm.Has(char(2), "on_tick") {
		t.Fatal("script still attached after its globals passed the cap")
	}
	if s := w.vm.Stats(); s.Entities != 0 {
		t.Fatalf("Entities = %d, want 0", s.Entities)
	}
}

func TestAPI_Breaker(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	src := "function on_tick()\n  error('broken')\nend\nfunction on_greet() self:say('hi') end"
	c := w.attach(char(2), "ember:mob:broken", src)
	w.vm.Fire(char(2), "on_greet", char(1)) // one success among the failures
	// Six errors in a row: a score of 1 + d + ... + d^5 = 5.5, with d the
	// decay of a half-life of twenty calls; five make only 4.7.
	for i := 0; i < 6; i++ {
		w.vm.Fire(char(2), "on_tick")
	}
	if got := len(w.host.reports); got != 7 {
		t.Fatalf("%d reports, want 6 failures and 1 trip: %v", got, w.host.reports)
	}
	trips := 0
	for _, r := range w.host.reports {
		if strings.Contains(r.msg, "switched off") {
			trips++
		}
	}
	if trips != 1 {
		t.Fatalf("%d trip reports, want 1", trips)
	}
	mark := len(w.host.calls)
	w.vm.Fire(char(2), "on_tick")
	w.vm.Fire(char(2), "on_greet", char(1))
	if len(w.host.reports) != 7 || len(w.host.calls) != mark {
		t.Fatalf("a switched-off script ran: reports %d, calls %v", len(w.host.reports), w.host.calls[mark:])
	}
	if w.vm.Has(char(2), "on_greet") {
		t.Error("Has = true for a switched-off script")
	}
	if s := w.vm.Stats(); s.ScriptsOff != 1 || s.Errors != 6 {
		t.Errorf("ScriptsOff = %d, Errors = %d, want 1 and 6", s.ScriptsOff, s.Errors)
	}
	// A repop with the same Compiled stays off; a reload brings it back.
	if err := w.vm.Attach(char(3), c); !errors.Is(err, ErrSwitchedOff) {
		t.Fatalf("Attach of the switched-off script: %v, want ErrSwitchedOff", err)
	}
	w.attach(char(2), "ember:mob:broken", src)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.wantCalls(mark, "Say char:2 hi")
}

func TestAPI_SendToInstanceIsSelfOnly(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	const body = `print(mud.send_to_instance(actor, "crypt"))`
	w.attach(char(2), "ember:mob:priestess", "function on_greet(actor) "+body+" end")
	w.attach(room("ember:hall"), "ember:room:hall", "function on_enter(actor) "+body+" end")
	w.attach(itemID(10), "ember:obj:sword", "function on_command(actor, verb) "+body+" return true end")
	w.vm.Fire(char(2), "on_greet", char(1))
	w.vm.Fire(room("ember:hall"), "on_enter", char(1))
	w.vm.Fire(itemID(10), "on_command", char(1), "enter", "")
	w.noReports()
	if w.host.called("SendToInstance") {
		t.Fatalf("SendToInstance reached from a mob, room or item script: %v", w.host.calls)
	}
	w.wantLogs(0,
		"ember:mob:priestess: nil\tnot allowed",
		"ember:room:hall: nil\tnot allowed",
		"ember:obj:sword: nil\tnot allowed",
	)
	// A script running as the player itself may.
	w.attach(char(1), "ember:player:enter", `
function on_command(actor, verb, args)
  print(mud.send_to_instance(self, args))
  print(mud.send_to_instance(actor, args))
  return true
end`)
	w.vm.Fire(char(1), "on_command", char(1), "enter", "crypt")
	w.wantCalls(0, "SendToInstance char:1 crypt", "SendToInstance char:1 crypt")
	w.wantLogs(3, "ember:player:enter: true", "ember:player:enter: true")
	// The player's script cannot send another character either.
	w.attach(char(1), "ember:player:push", `function on_greet(other) print(mud.send_to_instance(other, "crypt")) end`)
	w.vm.Fire(char(1), "on_greet", char(2))
	w.wantLogs(5, "ember:player:push: nil\tnot allowed")
}

func TestAPI_AttachAndOnSpawn(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:p", `
self.state.born = true
function on_spawn() self:say("I live.") end`)
	w.wantCalls(0, "Say char:2 I live.")
	if !w.vm.Has(char(2), "on_spawn") || w.vm.Has(char(2), "on_tick") || w.vm.Has(char(3), "on_spawn") {
		t.Fatal("Has is wrong")
	}
	c, err := Compile("error('at load')", "test.toml", 5, "ember:mob:bad")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.vm.Attach(char(3), c); !errors.Is(err, ErrFailed) {
		t.Fatalf("Attach of a failing chunk: %v, want ErrFailed", err)
	}
	if r := w.lastReport(); !strings.HasPrefix(r.msg, "test.toml:5: ") {
		t.Fatalf("report %q, want test.toml:5", r.msg)
	}
	if w.vm.Fire(char(3), "on_tick") {
		t.Fatal("Fire on an entity whose chunk failed")
	}
	if s := w.vm.Stats(); s.Entities != 1 || s.MemBytes <= 0 || s.Calls != 3 {
		t.Fatalf("Stats = %+v", s)
	}
}

func TestAPI_SelfPurgeDuringCall(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(3), "ember:mob:rat", `
function on_tick()
  mud.after(5, function() self:say("ghost") end)
  self:purge()
  print(self:name(), self:say("after death"))
  self.state.x = 1
end`)
	w.vm.Fire(char(3), "on_tick")
	w.noReports()
	w.host.advance(10)
	if w.host.called("Say") {
		t.Fatalf("a purged mob spoke: %v", w.host.calls)
	}
	w.wantLogs(0, "ember:mob:rat: nil\tfalse")
}

// echoHost makes Say fire on_speech on every other scripted character in
// the room at once, as a zone does.
type echoHost struct{ *fakeHost }

func (h echoHost) Say(from ID, text string) bool {
	h.fakeHost.Say(from, text)
	for _, id := range h.Occupants(room(h.chars[from.RID].room)) {
		if id != from {
			h.vm.Fire(id, "on_speech", from, text)
		}
	}
	return true
}

func TestAPI_NestedTriggers(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.vm.host = echoHost{w.host}
	w.host.chars[3].room = "ember:hall"
	const parrot = `function on_speech(actor, text) self:say(text .. "!") end`
	w.attach(char(2), "ember:mob:a", parrot)
	w.attach(char(3), "ember:mob:b", parrot)
	w.vm.Fire(char(2), "on_speech", char(1), "hello")
	if n := len(w.host.calls); n != maxNestedCalls {
		t.Fatalf("%d says, want the chain cut at %d", n, maxNestedCalls)
	}
	if r := w.lastReport(); !strings.Contains(r.msg, "nested more than 8 deep") {
		t.Fatalf("report %q, want the nesting limit", r.msg)
	}
	if w.vm.depth != 0 || w.vm.ls.GetTop() != 0 {
		t.Fatalf("depth %d, stack top %d after the chain, want 0 and 0", w.vm.depth, w.vm.ls.GetTop())
	}
}

func TestAPI_NestedTimeoutChargesTheOuterScript(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.vm.host = echoHost{w.host}
	w.host.chars[3].room = "ember:hall"
	w.attach(char(2), "ember:mob:slow", `function on_speech() self:say("x") while true do end end`)
	w.attach(char(3), "ember:mob:innocent", `function on_speech() local t = {} for i = 1, 1e9 do t[1] = i end end`)
	w.vm.Fire(char(2), "on_speech", char(1), "go")
	if s := w.vm.Stats(); s.Timeouts < 1 {
		t.Fatalf("Timeouts = %d, want at least 1", s.Timeouts)
	}
	if b := w.vm.breakers[w.vm.entities[char(3)].c]; b.score != 0 {
		t.Errorf("the nested script was charged a score of %g, want 0", b.score)
	}
	if b := w.vm.breakers[w.vm.entities[char(2)].c]; b.score != weightTimeout {
		t.Errorf("the outer script was charged a score of %g, want %g", b.score, weightTimeout)
	}
}

func TestAPI_FireArguments(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:types", `
function on_tick(a, b, c, d, e, f)
  print(type(a), type(b), type(c), type(d), type(e), type(f), a:name(), b, c, d, e)
end`)
	w.vm.Fire(char(2), "on_tick", char(1), "two", 3, 4.5, true, struct{}{})
	w.noReports()
	w.wantLogs(0, "ember:mob:types: userdata\tstring\tnumber\tnumber\tboolean\tnil\tAnn\ttwo\t3\t4.5\ttrue")
}

func TestAPI_ClosedVM(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	c := w.attach(char(2), "ember:mob:x", `function on_tick() mud.after(1, function() self:say("late") end) end`)
	w.vm.Fire(char(2), "on_tick")
	w.vm.Close()
	w.vm.Close()
	if w.vm.Fire(char(2), "on_tick") {
		t.Fatal("Fire on a closed VM")
	}
	if err := w.vm.Attach(char(2), c); !errors.Is(err, ErrClosed) {
		t.Fatalf("Attach on a closed VM: %v", err)
	}
	w.host.advance(3)
	if w.host.called("Say") {
		t.Fatal("a timer ran after Close")
	}
}

func TestConfig_Validate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, tc := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.DeadlineMs = -1 }, "lua.deadline_ms:"},
		{func(c *Config) { c.DeadlineMs = 60000 }, "lua.deadline_ms:"},
		{func(c *Config) { c.RegistrySize = 1 << 17 }, "lua.registry_size:"},
		{func(c *Config) { c.MaxPatternSubject = 2 << 20 }, "lua.max_pattern_subject:"},
		{func(c *Config) { c.BreakerThreshold = 30 }, "lua.breaker_threshold:"},
		{func(c *Config) { c.MaxTimers = -1 }, "lua.max_timers:"},
		{func(c *Config) { c.MaxStateBytes = 10 }, "lua.max_state_bytes:"},
		{func(c *Config) { c.TriggerInstructions = 0 }, "lua.trigger_instructions:"},
		{func(c *Config) { c.TriggerInstructions = -5 }, "lua.trigger_instructions:"},
		{func(c *Config) { c.ProcessInstructions = 0 }, "lua.process_instructions:"},
		{func(c *Config) { c.ProcessInstructions = 1 << 40 }, "lua.process_instructions:"},
	} {
		cfg := DefaultConfig()
		tc.mod(&cfg)
		if err := cfg.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want %s...", err, tc.want)
		}
	}
}

func TestCache(t *testing.T) {
	ca := NewCache()
	a1, err := ca.Get("x = 1", "a.toml", 3, "k")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := ca.Get("x = 1", "a.toml", 3, "k")
	b, _ := ca.Get("x = 1", "a.toml", 4, "k")
	c, _ := ca.Get("x = 2", "a.toml", 3, "k")
	if a1 != a2 || a1 == b || a1 == c {
		t.Fatal("cache identity is wrong")
	}
	if _, err := ca.Get("x = = 1", "a.toml", 3, "k"); !errors.Is(err, ErrCompile) {
		t.Fatalf("bad source: %v, want ErrCompile", err)
	}
	ca.Prune() // all used since creation: kept
	if ca.Len() != 3 {
		t.Fatalf("Len = %d, want 3", ca.Len())
	}
	ca.Get("x = 1", "a.toml", 3, "k")
	ca.Prune()
	if ca.Len() != 1 {
		t.Fatalf("Len = %d after a snapshot using one script, want 1", ca.Len())
	}
}

// TestCompiled_SharedAcrossVMs runs one Compiled in several VMs on their
// own goroutines, as zones do; the race detector checks nothing is shared
// mutably.
func TestCompiled_SharedAcrossVMs(t *testing.T) {
	c, err := Compile(`
function on_greet(actor)
  local s = ""
  for i = 1, 50 do s = s .. string.format("%d,", i) end
  self.state.n = (self.state.n or 0) + #s:gsub("%d", "")
  self:say(actor:name() .. " " .. self.state.n)
end`, "shared.toml", 1, "shared:mob")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			h := newFakeHost(fmt.Sprintf("z%d", i))
			vm := New(h, DefaultConfig())
			defer vm.Close()
			if err := vm.Attach(char(2), c); err != nil {
				done <- err.Error()
				return
			}
			for j := 0; j < 50; j++ {
				vm.Fire(char(2), "on_greet", char(1))
			}
			done <- h.calls[len(h.calls)-1]
		}(i)
	}
	for i := 0; i < 4; i++ {
		if got := <-done; got != "Say char:2 Ann 2500" {
			t.Errorf("got %q, want Say char:2 Ann 2500", got)
		}
	}
}

// The quest functions reach the host for a player and only a player; a
// step out of range is an error of the script.
func TestAPI_Quests(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
function on_greet(actor)
  print(mud.quest_state(actor, "rats"))
  print(mud.quest_start(actor, "rats"))
  print(mud.quest_start(actor, "nope"))
  print(mud.quest_advance(actor, "rats"))
  print(mud.quest_advance(actor, "rats", 3))
  print(mud.quest_state(actor, "nope"))
  print(mud.quest_start(self, "rats"))
  print(mud.quest_state(self, "rats"))
end`)
	w.vm.Fire(char(2), "on_greet", char(1))
	w.noReports()
	w.wantCalls(0, "QuestState char:1 rats", "QuestStart char:1 rats", "QuestStart char:1 nope",
		"QuestAdvance char:1 rats 0", "QuestAdvance char:1 rats 3", "QuestState char:1 nope")
	w.wantLogs(0,
		"ember:mob:priestess: active\t2",
		"ember:mob:priestess: true",
		"ember:mob:priestess: nil\tno quest nope",
		"ember:mob:priestess: true",
		"ember:mob:priestess: true",
		"ember:mob:priestess: nil",
		"ember:mob:priestess: nil\tnot a player here",
		"ember:mob:priestess: nil",
	)
	w.attach(char(3), "ember:mob:bad", `function on_greet(actor) mud.quest_advance(actor, "rats", 0) end`)
	w.vm.Fire(char(3), "on_greet", char(1))
	if r := w.lastReport(); !strings.Contains(r.msg, "step must be between 1 and 1000") {
		t.Fatalf("a step of 0 was not refused: %+v", r)
	}
}
