package script

import (
	"strings"
	"testing"
)

func problems(t *testing.T, src string) []string {
	t.Helper()
	c, err := Compile(src, "test.toml", 10, "ember:mob:x")
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c.Problems()
}

func TestLint_FindsWhatCannotWork(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"os.execute", "function on_tick()\n  os.execute('rm -rf /')\nend", "test.toml:11: os.execute: scripts have no os"},
		{"io.open", "local f = io.open('/etc/passwd')", "test.toml:10: io.open: scripts have no io"},
		{"a missing global called", "function on_tick()\n  dofile('x')\nend", "test.toml:11: calls dofile, which scripts do not have"},
		{"a typo of a builtin", "function on_tick()\n  prnt('x')\nend", "calls prnt, which scripts do not have (did you mean print?)"},
		{"a trigger typo", "function on_tik()\nend", "test.toml:10: on_tik is not a trigger, so nothing will call it (did you mean on_tick?)"},
		{"a trigger assigned", "on_greeet = function(a) end", "on_greeet is not a trigger, so nothing will call it (did you mean on_greet?)"},
		{"an on_ name", "function on_hello()\nend", "on_hello is not a trigger, so nothing will call it (the triggers: on_spawn,"},
		{"a handle method typo", "function on_greet(a)\n  a:sned('hi')\nend", "test.toml:11: :sned(): no handle or string has a method sned (did you mean send?)"},
		{"a library member", "local s = string.sprintf('%d', 1)", "string.sprintf does not exist"},
		{"a mud function typo", "function on_tick()\n  mud.brodcast(self:room(), 'x')\nend", "mud.brodcast does not exist (did you mean mud.broadcast?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := problems(t, tc.src)
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestLint_QuietOnOrdinaryScripts checks the linter stays silent on the
// idioms scripts use: what it reports must be wrong.
func TestLint_QuietOnOrdinaryScripts(t *testing.T) {
	src := `
local greeting = "Welcome, "
local function shout(s) return s:upper() .. "!" end
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
counter = 0
local Guard = {}
Guard.__index = Guard
function Guard.new(name) return setmetatable({name = name}, Guard) end
function Guard:warn(who) who:send(self.name .. " eyes you.") end
local helpers = {greet = function(a) a:say("hi") end}
function bump() counter = counter + 1 end

function on_spawn()
  self.state.guard = Guard.new("Hask")
end

function on_greet(actor)
  bump()
  self:say(greeting .. actor:name())
  self.state.guard:warn(actor)
  helpers.greet(self)
  if maybe_set_later then print("set") end
  for i, c in ipairs(self:room():occupants()) do
    if c:is_player() and c ~= actor then c:send(shout("hello " .. i)) end
  end
  for k, v in pairs(self:vitals()) do print(k, v) end
  local ok, err = pcall(function() error("x") end)
  mud.after(4, function() self:emote(string.format("waits %d", fact(3))) end)
  local t = {}
  table.insert(t, math.floor(mud.random(10) / 2))
  local s = ("abc"):rep(2):sub(1, 3)
  repeat local n = #t until n > 0
  return true
end

function on_command(actor, verb, args)
  if verb == "pull" then self:set_door("north", "open") return true end
end
on_tick = function() self.state.n = (self.state.n or 0) + 1 end
`
	if got := problems(t, src); len(got) != 0 {
		t.Fatalf("problems %q, want none", got)
	}
}
