package script

import (
	"runtime"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// prompt is the generous bound on a hang of a call that must be stopped
// by its budget: anything near ten seconds means it was not stopped.
const prompt = 10 * time.Second

// healthy checks the VM still runs an ordinary script after a failure.
func (w *world) healthy() {
	w.t.Helper()
	id := char(2)
	w.attach(id, "ember:mob:healthy", `
function on_greet(actor)
  self:say(string.upper("welcome, ") .. actor:name() .. "!")
  return true
end`)
	before := len(w.host.calls)
	if !w.vm.Fire(id, "on_greet", char(1)) {
		w.t.Fatalf("healthy script: Fire = false, want true; reports %v", w.host.reports)
	}
	if got, want := w.host.calls[before:], "Say char:2 WELCOME, Ann!"; len(got) != 1 || got[0] != want {
		w.t.Fatalf("healthy script: calls %q, want [%q]", got, want)
	}
}

// fireBody attaches a script whose on_tick is body (starting on script
// line 2, area line 11) to the rat, fires it and returns how long it took.
func (w *world) fireBody(body string) time.Duration {
	w.t.Helper()
	w.attach(char(3), "ember:mob:rat", "function on_tick()\n"+body+"\nend\n")
	start := time.Now()
	w.vm.Fire(char(3), "on_tick")
	return time.Since(start)
}

func TestSandbox_Hostile(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"infinite loop", `while true do end`, "timed out"},
		{"tail recursion", `local function f() return f() end f()`, "timed out"},
		{"deep recursion", `local function f() return f() + 1 end f()`, "stack overflow"},
		{"recursion through pcall", `local function f() pcall(f) f() end f()`, ""},
		{"pcall swallowing the deadline", `while true do pcall(function() while true do end end) end`, "timed out"},
		{"string.rep 2^31", `local s = string.rep("x", 2^31)`, "string.rep: result of 2147483648 bytes"},
		{"string.rep twice", `local s = string.rep("x", 2^20) local u = string.rep(s, 2^20)`, "string.rep: result|timed out"},
		{"doubling a string", `local s = "x" for i = 1, 40 do s = s .. s end`, "concatenation: result|timed out"},
		{"one wide concatenation", `local s = string.rep("x", 65536) s = s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s`, "concatenation: result|timed out"},
		{"string method doubling", `local s = "x" while true do s = s:rep(2) end`, "string.rep: result|timed out"},
		{"table.concat growth", `local t = {} for i = 1, 64 do t[i] = string.rep("y", 65536) end local s = table.concat(t, ",")`, "table.concat: result|timed out"},
		{"format growth", `local s = string.rep("z", 600000) s = string.format("%s%s", s, s)`, "string.format: result|timed out"},
		{"gsub growth", `local s = string.rep("a", 60000) s = s:gsub("a", "%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0")`, "string.gsub: result|timed out"},
		{"format width", `local s = string.format("%099999999d", 1)`, "invalid format"},
		{"billion inserts", `local t = {} for i = 1, 1e9 do t[i] = i end`, "timed out"},
		{"table.insert flood", `local t = {} while true do table.insert(t, "x") end`, "timed out"},
		{"long subject", `string.find(string.rep("a", 1e5), ".-.-.-.-b")`, "subject of 100000 bytes"},
		{"long subject of a million", `string.find(string.rep("a", 1e6), ".-.-.-.-b")`, "subject of 1000000 bytes"},
		{"backtracking pattern", `string.find(string.rep("a", 60000), ".-.-.-.-b")`, "timed out"},
		{"backtracking gsub", `string.gsub(string.rep("a", 60000), "a*a*a*a*b", "")`, "timed out"},
		{"backtracking gmatch", `for m in string.gmatch(string.rep("a", 60000), ".-.-.-b") do end`, "timed out"},
		{"pattern too complex", `string.find("aaa", string.rep("a*", 300))`, "pattern too complex"},
		{"sort flood", `local t = {} for i = 1, 60000 do t[i] = -i end while true do table.sort(t) end`, "timed out"},
		{"sort with a looping comparator", `table.sort({3, 2, 1}, function(a, b) while true do end end)`, "timed out"},
		{"os.exit", `os.exit(1)`, "nil"},
		{"io.open", `io.open("/etc/passwd")`, "nil"},
		{"require", `require("os")`, "non-function"},
		{"load", `load("return 1")`, "non-function"},
		{"loadstring", `loadstring("return 1")`, "non-function"},
		{"dofile", `dofile("/etc/passwd")`, "non-function"},
		{"getfenv", `local g = getfenv(print)`, "non-function"},
		{"setfenv", `setfenv(1, {})`, "non-function"},
		{"debug.getinfo", `debug.getinfo(1)`, "nil"},
		{"coroutine", `coroutine.create(print)`, "nil"},
		{"module", `module("x")`, "non-function"},
		{"newproxy", `newproxy(true)`, "non-function"},
		{"_printregs", `_printregs()`, "non-function"},
		{"collectgarbage", `collectgarbage()`, "non-function"},
		{"rawset on string", `rawset(string, "x", 1)`, "non-function"},
		{"assign string.upper", `string.upper = nil`, "read-only table 'string'"},
		{"assign string.x", `string.x = 1`, "read-only table 'string'"},
		{"assign mud.spawn", `mud.spawn = print`, "read-only table 'mud'"},
		{"assign math.random", `math.random = function() return 4 end`, "read-only table 'math'"},
		{"string metatable", `getmetatable("").__index.upper = nil`, "nil"},
		{"setmetatable on string", `setmetatable(string, {})`, "protected metatable"},
		{"setmetatable on env", `setmetatable(_G, nil)`, "protected metatable"},
		{"setmetatable on a number", `setmetatable(1, {__index = function() return 1 end})`, "table expected"},
		{"setmetatable on a handle", `setmetatable(self, {})`, "table expected"},
		{"table.insert into string", `table.insert(string, "x")`, "read-only"},
		{"table.sort of math", `table.sort(math)`, "read-only"},
		{"self.state replaced by a library", `self.state = string`, "self.state can only be set to a table"},
		{"handle field", `self.name = "x"`, "cannot assign"},
		{"unpack a huge range", `local n = select("#", unpack({}, 1, 1e8))`, "overflow"},
		{"string.byte of a megabyte", `local n = select("#", string.byte(string.rep("x", 1e6), 1, -1))`, "overflow"},
		{"__tostring recursion", `local t = setmetatable({}, {__tostring = function(x) return tostring(x) end}) tostring(t)`, "overflow"},
		{"__index recursion", `local t = setmetatable({}, {}) getmetatable(t).__index = function(x, k) return x[k] end local v = t.x`, "overflow"},
		{"xpcall with a failing handler", `xpcall(error, error) error("after")`, ""},
		{"error with a huge message", `error(string.rep("e", 1e6))`, "eeee"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The default budget stops what must be stopped; no clock is
			// involved, so a stall of the test machine changes nothing.
			w := newWorld(t, "ember", DefaultConfig())
			if d := w.fireBody(tc.body); d > prompt {
				t.Errorf("call took %v, want well under %v", d, prompt)
			}
			r := w.lastReport()
			if r.script != "ember:mob:rat" {
				t.Errorf("report for %q, want ember:mob:rat", r.script)
			}
			if !strings.HasPrefix(r.msg, "test.toml:11: ") {
				t.Errorf("report %q, want it to start with test.toml:11: ", r.msg)
			}
			if !containsAny(r.msg, tc.want) {
				t.Errorf("report %q, want it to contain %q", r.msg, tc.want)
			}
			w.healthy()
		})
	}
}

// containsAny reports whether s contains one of the |-separated wants.
// A growth case may hit its cap or its budget first: both stop it.
func containsAny(s, wants string) bool {
	for _, w := range strings.Split(wants, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestSandbox_Caps runs the growth cases under a budget large enough
// that the caps, not the budget, must stop them.
func TestSandbox_Caps(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"string.rep", `local s = string.rep("x", 2^20) local u = string.rep(s, 2^20)`, "string.rep: result of 1099511627776 bytes"},
		{"string.rep with sep", `local u = string.rep("x", 2^19, "--")`, "string.rep: result of"},
		{"doubling", `local s = "x" for i = 1, 40 do s = s .. s end`, "concatenation: result of 2097152 bytes"},
		{"wide concatenation", `local s = string.rep("x", 65536) s = s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s`, "concatenation: result of"},
		{"method doubling", `local s = "x" while true do s = s:rep(2) end`, "string.rep: result of 2097152 bytes"},
		{"table.concat", `local t = {} for i = 1, 64 do t[i] = string.rep("y", 65536) end local s = table.concat(t, ",")`, "table.concat: result of"},
		{"format", `local s = string.rep("z", 600000) s = string.format("%s%s", s, s)`, "string.format: result of"},
		{"format %q", `local s = string.rep("\n", 600000) s = string.format("%q", s)`, "string.format: result of"},
		{"gsub", `local s = string.rep("a", 60000) s = s:gsub("a", "%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0")`, "string.gsub: result of"},
		{"gsub function", `local s = string.rep("a", 60000) s = s:gsub("a", function(m) return string.rep(m, 100) end)`, "string.gsub: result of"},
		{"upper of a huge constant", `local s = string.rep("a", 2^20) .. "b"`, "concatenation: result of"},
	}
	cfg := DefaultConfig()
	cfg.MaxInstructions = 100000000
	cfg.PulseInstructions = cfg.MaxInstructions
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "ember", cfg)
			w.fireBody(tc.body)
			if r := w.lastReport(); !strings.HasPrefix(r.msg, "test.toml:11: ") || !strings.Contains(r.msg, tc.want) {
				t.Errorf("report %q, want test.toml:11: and %q", r.msg, tc.want)
			}
			w.healthy()
		})
	}
}

func TestSandbox_BigArrayIndex(t *testing.T) {
	// In stock gopher-lua this one assignment pads 64M slots (gigabytes).
	w := newWorld(t, "ember", DefaultConfig())
	d := w.fireBody(`local t = {} t[67108863] = 1 t[2^40] = 2 self.state.n = t[67108863] + t[2^40]`)
	if d > prompt {
		t.Errorf("call took %v, want well under %v", d, prompt)
	}
	if len(w.host.reports) != 0 {
		t.Errorf("reports %v, want none", w.host.reports)
	}
}

func TestSandbox_ReadOnlyBuiltins(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	// One entity tries everything inside pcall; another then relies on
	// the builtins.
	w.attach(char(3), "ember:mob:vandal", `
function on_tick()
  pcall(function() string.upper = function() return "pwned" end end)
  pcall(function() getmetatable("").__index.upper = nil end)
  pcall(function() table.insert(string, "x") end)
  pcall(function() setmetatable(string, {}) end)
  pcall(function() mud.log = nil end)
  pcall(function() print = nil end)
  upper = "shadowed only here"
end`)
	w.vm.Fire(char(3), "on_tick")
	w.attach(char(2), "ember:mob:checker", `
function on_tick()
  assert(string.upper("a") == "A", "string.upper changed")
  assert(("b"):upper() == "B", "string method changed")
  assert(getmetatable("") == "locked", "string metatable visible")
  assert(getmetatable(string) == "locked", "string proxy metatable visible")
  assert(getmetatable(self) == "locked", "handle metatable visible")
  assert(getmetatable(_G) == "locked", "env metatable visible")
  assert(rawget(string, "upper") == nil, "proxy not empty")
  assert(string[1] == nil, "table.insert reached the proxy")
  assert(upper == nil, "another entity's global visible")
  assert(_G._G == _G, "_G is not the env")
  assert(type(print) == "function" and type(mud.log) == "function")
  print("ok")
end`)
	w.vm.Fire(char(2), "on_tick")
	for _, r := range w.host.reports {
		if r.script == "ember:mob:checker" {
			t.Fatalf("checker failed: %s", r.msg)
		}
	}
	if got := w.host.logs[len(w.host.logs)-1]; got != "ember:mob:checker: ok" {
		t.Fatalf("last log %q, want the checker's ok", got)
	}
}

func TestSandbox_EntitiesCannotSeeEachOther(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
secret = 42
local hidden = "upvalue"
function on_tick() self.state.mine = "priestess" end
`)
	w.vm.Fire(char(2), "on_tick")
	w.attach(char(3), "ember:mob:rat", `
function on_greet(other)
  assert(secret == nil, "global of another entity")
  assert(_G.secret == nil, "_G of another entity")
  assert(hidden == nil, "local of another entity")
  assert(other.state == nil, "state of another entity")
  assert(self.state ~= nil and self.state.mine == nil, "shared state")
  assert(on_tick == nil, "trigger of another entity")
end`)
	w.vm.Fire(char(3), "on_greet", char(2))
	if len(w.host.reports) != 0 {
		t.Fatalf("reports %v, want none", w.host.reports)
	}
}

func TestSandbox_HandleFromAnotherVM(t *testing.T) {
	a := newWorld(t, "ember", DefaultConfig())
	b := newWorld(t, "ember#2", DefaultConfig()) // an instance: the same IDs
	a.attach(char(2), "ember:mob:priestess", `function on_tick() end`)
	b.attach(char(2), "ember:mob:priestess", `
function on_tick()
  local name = self.name(foreign)      -- this VM's method on the foreign handle
  local r1 = mud.broadcast(foreign, "hi")
  local r2 = mud.spawn("ember:rat", foreign)
  local ok, err = pcall(function() return foreign:say("hi") end)
  local ok2 = pcall(foreign_spawn, "ember:rat", "ember:hall")
  mud.log(tostring(name) .. " " .. tostring(r1) .. " " .. tostring(r2) .. " " .. tostring(ok) .. " " .. tostring(ok2))
end`)
	// A handle and a function value of VM a, smuggled into VM b's env:
	// only Go code could do this; nothing in Lua can.
	foreign := a.vm.handle(char(2))
	spawnA := a.vm.ls.GetField(a.vm.builtins.RawGetString("mud"), "spawn")
	env := b.vm.entities[char(2)].env
	env.RawSetString("foreign", foreign)
	env.RawSetString("foreign_spawn", spawnA)
	b.vm.Fire(char(2), "on_tick")
	if len(b.host.reports) != 0 {
		t.Fatalf("reports %v", b.host.reports)
	}
	if got, want := b.host.logs[0], "ember:mob:priestess: nil false nil false false"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	if len(a.host.calls) != 0 || len(b.host.calls) != 0 {
		t.Errorf("host calls a=%v b=%v, want none", a.host.calls, b.host.calls)
	}
}

func TestSandbox_ForgottenHandle(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:priestess", `
function on_greet(actor) victim = actor end
function on_tick()
  mud.log(tostring(victim:name()) .. " " .. tostring(victim:damage(5)) .. " " .. tostring(victim:room()) .. " " .. tostring(victim:is_player()))
end`)
	w.vm.Fire(char(2), "on_greet", char(3))
	delete(w.host.chars, 3)
	w.vm.Forget(char(3))
	w.vm.Fire(char(2), "on_tick")
	if got, want := w.host.logs[0], "ember:mob:priestess: nil false nil nil"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	if w.host.called("Damage") {
		t.Errorf("Damage reached the host: %v", w.host.calls)
	}
}

func TestSandbox_TableFloodMemoryReleased(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 3; i++ {
		if d := w.fireBody(`local t = {} for i = 1, 1e9 do t[i] = i end`); d > prompt {
			t.Fatalf("call took %v", d)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
		t.Errorf("heap grew by %d MiB after the floods, want them released", grew>>20)
	}
	if s := w.vm.Stats(); s.Timeouts != 3 {
		t.Errorf("Timeouts = %d, want 3", s.Timeouts)
	}
}

func TestSandbox_CompileErrorLine(t *testing.T) {
	_, err := Compile("function on_tick()\n  x = = 1\nend\n", "emberfall.toml", 120, "ember:mob:x")
	if err == nil || !strings.Contains(err.Error(), "emberfall.toml:121: ") {
		t.Fatalf("err = %v, want emberfall.toml:121", err)
	}
	_, err = Compile("function on_tick()\n  if x then\n", "emberfall.toml", 120, "ember:mob:x")
	if err == nil || !strings.Contains(err.Error(), "emberfall.toml:12") {
		t.Fatalf("err = %v, want an emberfall.toml line", err)
	}
	_, err = Compile("local x = 1\nbreak\n", "emberfall.toml", 120, "ember:mob:x")
	if err == nil || !strings.Contains(err.Error(), "emberfall.toml:") {
		t.Fatalf("err = %v, want an emberfall.toml line", err)
	}
	deep := "return " + strings.Repeat("{", 5000) + strings.Repeat("}", 5000)
	if _, err = Compile(deep, "f.toml", 1, "k"); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("deep nesting: err = %v, want nested too deeply", err)
	}
}

func TestSandbox_RuntimeErrorLine(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	c, err := Compile(`
local function helper(n)
  return n.missing.field
end
function on_tick()
  helper({})
end`, "emberfall.toml", 200, "ember:mob:x")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.vm.Attach(char(2), c); err != nil {
		t.Fatal(err)
	}
	w.vm.Fire(char(2), "on_tick")
	// helper's body is script line 3: file line 202.
	if r := w.lastReport(); !strings.HasPrefix(r.msg, "emberfall.toml:202: ") {
		t.Fatalf("report %q, want emberfall.toml:202", r.msg)
	}
	// error() with a table value still gets a position.
	w.attach(char(3), "ember:mob:y", "function on_tick()\n  error({})\nend")
	w.vm.Fire(char(3), "on_tick")
	if r := w.lastReport(); !strings.HasPrefix(r.msg, "test.toml:11: ") || !strings.Contains(r.msg, "table") {
		t.Fatalf("report %q, want test.toml:11 and the value's type", r.msg)
	}
}

func TestSandbox_GoPanicInBindingIsAFailure(t *testing.T) {
	w := newWorld(t, "ember", DefaultConfig())
	w.attach(char(2), "ember:mob:x", "function on_tick()\n  mud.zone()\nend")
	w.host.zone = "" // not used: we swap in a host that panics
	w.vm.host = panicky{w.host}
	if w.vm.Fire(char(2), "on_tick") {
		t.Fatal("Fire = true, want false")
	}
	if r := w.lastReport(); !strings.Contains(r.msg, "test.toml:11") || !strings.Contains(r.msg, "zone exploded") {
		t.Fatalf("report %q, want the position and the panic", r.msg)
	}
	w.vm.host = w.host
	w.healthy()
}

type panicky struct{ *fakeHost }

func (panicky) ZoneID() string { panic("zone exploded") }

func TestSizer_TableFields(t *testing.T) {
	if !tableFields.ok {
		t.Fatal("gopher-lua's LTable no longer has array, dict, strdict, keys and k2i; update size.go")
	}
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	for i := 0; i < 1000; i++ {
		tb.RawSetString(strings.Repeat("k", 10)+string(rune('a'+i%26))+string(rune('a'+i/26)), lua.LTrue)
	}
	full := tableStorage(tb)
	tb.ForEach(func(k, _ lua.LValue) { tb.RawSet(k, lua.LNil) })
	if empty := tableStorage(tb); empty < full/2 {
		t.Errorf("a table emptied by assignment measures %d bytes, full %d: dead keys not counted", empty, full)
	}
}
