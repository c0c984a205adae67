package server_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// The starter world's scripts, driven by real players over telnet: a
// greeting mob that answers talk, a lever that opens a shutter and lets it
// fall on a timer, a trap that springs a few seconds after you arrive.
func TestLua_StarterWorldScripts(t *testing.T) {
	srv := servertest.Start(t, nil)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Pilgrim", "pilgrim-pass")

	// The greeting mob (on_greet, on_speech, self.state, mud.random).
	p.DoExpect("north", "Temple Street")
	p.DoExpect("north", "Before the Temple")
	p.DoExpect("west", "Temple of the Hearth")
	p.Expect("Sister Maelis says, '")
	p.DoExpect("say what of the hearth?", "Sister Maelis looks at the grey stones")
	p.Expect("Something of Berrick's was taken")

	// The timed trap (on_enter, mud.after, actor:room(), damage, mud.roll).
	p.DoExpect("east", "Before the Temple")
	p.DoExpect("south", "Temple Street")
	p.DoExpect("south", "Emberfall Square")
	for _, d := range []string{"east", "east", "east", "east"} {
		p.DoExpect(d, "Exits:")
	}
	p.DoExpect("south", "The Slag Heaps")
	p.Expect("The crust of slag creaks")
	p.ExpectWithin("gives way", servertest.ExpectTimeout) // a 12-pulse timer
	p.Expect("You are hurt")
}

// The lever room, from a copy of the starter world with the office lit and
// a short timer: pull lever opens the shutter,
// and it slams down again when its timer runs out.
func TestLua_LeverOpensAndCloses(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		switch name {
		case "ashridge.toml":
			data = bytes.Replace(data, []byte("coords = [6, 1, 0]\nflags = [\"dark\", \"indoors\"]"), []byte("coords = [6, 1, 0]\nflags = [\"indoors\"]"), 1)
		case "scripts/lever.lua":
			data = bytes.Replace(data, []byte("mud.after(120,"), []byte("mud.after(12,"), 1)
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Delver", "delver-pass")
	p.DoExpect("advance self 20", "Huh?") // not an admin: no shortcuts
	for _, d := range []string{"east", "east", "east", "east", "east", "east", "north"} {
		p.DoExpect(d, "Exits:")
	}
	p.DoExpect("look", "Foreman's Office")
	p.DoExpect("east", "closed")
	p.DoExpect("pull lever", "the iron shutter rises")
	p.DoExpect("look", "Exits:")
	p.DoExpect("east", "Exits:")
	p.DoExpect("west", "Foreman's Office")
	p.ExpectWithin("slams down again", servertest.ExpectTimeout) // a 12-pulse timer
	p.DoExpect("east", "closed")
}

// A mob's or a room's script cannot send a player into an instance: the
// call is refused inside the sandbox, and the player stays where they are.
func TestLua_SendToInstanceIsSelfOnly(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			data = bytes.Replace(data, []byte("[rooms.market]\n"), []byte(`[rooms.market]
script = """
function on_enter(actor)
  local ok, err = mud.send_to_instance(actor, "sunken_crypt")
  actor:send("the market tried: " .. tostring(ok) .. ", " .. tostring(err))
end
"""
`), 1)
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Shopper", "shop-pass")
	p.DoExpect("west", "the market tried: nil, not allowed")
	p.DoExpect("look", "Market Row")
	if z := srv.World().Where("Shopper"); z == nil || z.ID() != "emberfall" {
		t.Fatalf("the player was moved: now in %v", z)
	}
}

// Hostile scripts, run in a real zone by a player's command, while another
// player in the same zone keeps getting answers and the zone keeps
// ticking. Each is stopped or refused and reported; none hurts the server.
func TestLua_HostileScriptsInAZone(t *testing.T) {
	attacks := []string{
		`while true do end`,
		`local function f() return f() + 1 end return f()`,
		`local function f(n) return 1 + f(n + 1) end return f(1)`,
		`return string.rep("x", 2^31)`,
		`local s = "x" for i = 1, 64 do s = s .. s end`,
		`local t = {} for i = 1, 1e9 do t[i] = i end`,
		`return string.find(string.rep("a", 60000), ".-.-.-.-b")`,
		`os.exit(1)`,
		`io.open("/etc/passwd")`,
		`require("os")`,
		`load("return 1")()`,
		`dofile("/etc/passwd")`,
		`getfenv(print).x = 1`,
		`debug.getinfo(1)`,
		`string.upper = nil`,
		`getmetatable("").__index.upper = nil`,
		`rawset(string, "x", 1)`,
		`for i = 1, 10000 do mud.after(1, function() end) end`,
	}
	var src strings.Builder
	src.WriteString("local attacks = {\n")
	for _, a := range attacks {
		fmt.Fprintf(&src, "  function() %s end,\n", a)
	}
	src.WriteString(`}
function on_command(actor, verb, args)
  if verb ~= "attack" then return false end
  local n = tonumber(args)
  actor:send("running attack " .. n)
  attacks[n]()
  actor:send("attack " .. n .. " returned")
  return true
end
`)
	cfg := servertest.Config(t)
	cfg.Lua.BreakerThreshold = 1000 // keep the room's script on through every attack
	cfg.Lua.BreakerWindowCalls = 1000
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			data = bytes.Replace(data, []byte("[rooms.smithy]\n"), []byte("[rooms.smithy]\nscript = \"\"\"\n"+src.String()+"\"\"\"\n"), 1)
		}
		return data
	})
	cfg.World.Admins = []string{"Hacker"}
	servertest.Admin(t, cfg, "Hacker", "hack-pass")
	srv := servertest.Start(t, cfg)
	h := servertest.Dial(t, srv.TelnetAddr())
	h.Login("Hacker", "hack-pass")
	o := servertest.Dial(t, srv.TelnetAddr())
	o.Create("Onlooker", "look-pass")
	h.DoExpect("east", "Cinder Lane")
	h.DoExpect("north", "Exits:")
	z := srv.World().Zone("emberfall")
	for i := range attacks {
		before := z.Pulses()
		h.Skip()
		h.Send(fmt.Sprintf("attack %d", i+1))
		h.Expect(fmt.Sprintf("running attack %d", i+1))
		// The builder (an admin here) sees the failure with file and line.
		h.Expect("[script] emberfall.toml:")
		want := fmt.Sprintf("You say, 'ping %d'", i)
		o.Send(fmt.Sprintf("say ping %d", i))
		if _, ok := o.Try(want, servertest.ExpectTimeout); !ok {
			t.Fatalf("attack %d (%s): the other player got no answer", i+1, attacks[i])
		}
		deadline := time.Now().Add(servertest.ExpectTimeout) // a bound on a hang: a pulse is 250 ms
		for z.Pulses() == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if z.Pulses() == before {
			t.Fatalf("attack %d (%s): the zone stopped ticking", i+1, attacks[i])
		}
	}
	if z.Faults() != 0 {
		t.Fatalf("%d zone faults from hostile scripts", z.Faults())
	}
}
