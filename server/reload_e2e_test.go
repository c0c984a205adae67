package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"zonemud/content"
	"zonemud/server"
	"zonemud/server/servertest"
	"zonemud/zone"
)

// Hot reload, end to end: a real server on a copy of the starter world in
// a temporary folder, real files written the ways editors write them, and
// players who see the change. Nothing here waits on the clock: each test
// waits for the reload's report (WaitReload), bounded only against a hang.

// reloadBound is a generous bound on a hang, never what a test measures.
const reloadBound = 60 * time.Second

// reloadWorld starts a server on a copy of the starter world whose folder
// is watched, and returns it with the folder.
func reloadWorld(t *testing.T, admins ...string) (*server.Server, string) {
	t.Helper()
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(_ string, data []byte) []byte { return data })
	cfg.World.Admins = admins
	for _, a := range admins {
		servertest.Admin(t, cfg, a, strings.ToLower(a)+"-pass")
	}
	cfg.World.WatchAreas = true
	return servertest.Start(t, cfg), cfg.Server.AreasDir
}

// lastSeq is the sequence number of the server's last reload report.
func lastSeq(srv *server.Server) uint64 { return srv.World().LastReload().Seq }

// waitReport waits for the next reload report after seq.
func waitReport(t *testing.T, srv *server.Server, seq uint64) zone.ReloadReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), reloadBound)
	defer cancel()
	rep, err := srv.World().WaitReload(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// waitApplied waits until a reload after seq has applied a new version,
// past any refused on the way (an editor's save can be seen half done).
func waitApplied(t *testing.T, srv *server.Server, seq uint64) zone.ReloadReport {
	t.Helper()
	for {
		rep := waitReport(t, srv, seq)
		if !rep.Refused() && !rep.Unchanged {
			return rep
		}
		t.Logf("reload %d on the way: %s", rep.Seq, rep.Text())
		seq = rep.Seq
	}
}

// edit rewrites a file of the areas folder through fn, in place (as nano
// and most editors' plain save do) or through a temporary file renamed
// over it (as vim, emacs and VS Code's safe saves do).
func edit(t *testing.T, dir, name string, rename bool, fn func(string) string) {
	t.Helper()
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := fn(string(data))
	if out == string(data) {
		t.Fatalf("edit of %s changed nothing", name)
	}
	write(t, dir, name, rename, out)
}

func write(t *testing.T, dir, name string, rename bool, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if !rename {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func replaceOnce(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// A player stands in the square while a builder rewrites its description,
// once in place and once through a temporary file: look shows each new
// text, and the player never left the room.
func TestReload_DescriptionRewrittenShowsOnLook(t *testing.T) {
	srv, dir := reloadWorld(t)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Watcher", "watcher-pass")
	p.DoExpect("look", "You stand in the heart of Emberfall")

	old := "You stand in the heart of Emberfall, a cobbled square on the crown of the\nhill."
	for i, rename := range []bool{false, true} {
		text := []string{"A square freshly swept by the builders.", "A square rebuilt in white stone."}[i]
		seq := lastSeq(srv)
		edit(t, dir, "emberfall.toml", rename, replaceOnce(old, text))
		old = text
		rep := waitApplied(t, srv, seq)
		if !strings.Contains(strings.Join(rep.Changes, "\n"), "rooms changed: square") {
			t.Errorf("report of the edit does not name the room: %s", rep.Text())
		}
		out := p.DoExpect("look", text)
		if !strings.Contains(out, "Emberfall Square") {
			t.Errorf("look after the edit: %q", out)
		}
	}
}

// An editor's swap, backup and lock files beside the area files are no
// area files: a reload reads past them, and a save that changes nothing a
// player could notice (a comment) changes nothing.
func TestReload_EditorScratchFilesIgnored(t *testing.T) {
	srv, dir := reloadWorld(t)
	seq := lastSeq(srv)
	for _, name := range []string{".emberfall.toml.swp", "emberfall.toml~", "4913", "#emberfall.toml#", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("[[[ not toml"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, dir, "whisperwood.toml", true, func(s string) string { return s + "\n# a comment\n" })
	rep := waitReport(t, srv, seq)
	if rep.Refused() || !rep.Unchanged {
		t.Fatalf("after scratch files and a comment: %s; want a reload that found nothing changed", rep.Text())
	}
}

// builderAndPlayer logs in an admin who grants a builder, the builder, and
// a player with no role.
func builderAndPlayer(t *testing.T, srv *server.Server) (builder, player *servertest.Client) {
	t.Helper()
	boss := servertest.Dial(t, srv.TelnetAddr())
	boss.Login("Boss", "boss-pass")
	builder = servertest.Dial(t, srv.TelnetAddr())
	builder.Create("Maker", "maker-pass")
	boss.DoExpect("grant maker builder", "Maker is now a builder of every zone.")
	builder.Expect("You are now a builder.")
	boss.Quit()
	player = servertest.Dial(t, srv.TelnetAddr())
	player.Create("Walker", "walker-pass")
	return builder, player
}

// A save with a syntax error changes nothing: the builder online is told
// the file and the line, the player plays on in the world as it was (and
// is told nothing), and the save that fixes it applies.
func TestReload_SyntaxErrorToldToBuilderWorldKeepsRunning(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, player := builderAndPlayer(t, srv)
	seq := lastSeq(srv)
	good, err := os.ReadFile(filepath.Join(dir, "emberfall.toml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(good), "You stand in the heart of Emberfall", "A square half rewritten", 1)
	broken = strings.Replace(broken, `exits = { north = "north_street"`, `exits = {{ north = "north_street"`, 1)
	line := strings.Count(broken[:strings.Index(broken, "exits = {{")], "\n") + 1
	write(t, dir, "emberfall.toml", false, broken)
	want := fmt.Sprintf("emberfall.toml:%d: ", line)
	rep := waitReport(t, srv, seq)
	for !rep.Refused() || !strings.HasPrefix(rep.Problems[0].String(), want) {
		// A save seen half written is refused too, for another reason:
		// wait for the reload that read the whole of it.
		if !rep.Refused() && !rep.Unchanged {
			t.Fatalf("a file with a syntax error was applied: %s", rep.Text())
		}
		rep = waitReport(t, srv, rep.Seq)
	}
	if len(rep.Problems) != 1 {
		t.Fatalf("problems: %v; want one at %s", rep.Problems, want)
	}
	builder.Expect("Reload refused")
	builder.Expect(want)

	player.DoExpect("look", "You stand in the heart of Emberfall")
	player.DoExpect("north", "Temple Street")
	player.DoExpect("south", "Emberfall Square")
	player.DoExpect("reload", "Huh?")

	seq = rep.Seq
	write(t, dir, "emberfall.toml", true, strings.Replace(broken, "exits = {{", "exits = {", 1))
	rep = waitApplied(t, srv, seq)
	builder.Expect("Reload applied")
	player.DoExpect("look", "A square half rewritten")

	// Typed, it reports a reload with nothing to change.
	builder.DoExpect("reload", "nothing in the files has changed")
	builder.DoExpect("areas", "emberfall.toml")
	if got := string(player.Raw()); strings.Contains(got, "Reload refused") || strings.Contains(got, "Reload applied") {
		t.Errorf("a player with no role was told of reloads: %q", got)
	}
}

// A file put back as the running version after a refused save is a
// reload with nothing to change: the builder online, who was told of the
// refusal, is told in game that nothing changed and the problems are gone.
func TestReload_PutBackToldNothingChanged(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, _ := builderAndPlayer(t, srv)
	good, err := os.ReadFile(filepath.Join(dir, "emberfall.toml"))
	if err != nil {
		t.Fatal(err)
	}
	seq := lastSeq(srv)
	write(t, dir, "emberfall.toml", false, strings.Replace(string(good), `exits = { north = "north_street"`, `exits = {{ north = "north_street"`, 1))
	rep := waitReport(t, srv, seq)
	for !rep.Refused() {
		rep = waitReport(t, srv, rep.Seq)
	}
	builder.Expect("Reload refused")
	seq = rep.Seq
	write(t, dir, "emberfall.toml", false, string(good))
	for rep = waitReport(t, srv, seq); !rep.Unchanged; rep = waitReport(t, srv, rep.Seq) {
		if !rep.Refused() {
			t.Fatalf("the file put back applied a change: %s", rep.Text())
		}
	}
	builder.Expect("nothing changed: the files are back to the running version")
}

// What zonemud check warns of (help that shows a command the game lacks)
// is in the reload report the builder reads in game; it refuses nothing.
func TestReload_HelpWarningsInTheReport(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, _ := builderAndPlayer(t, srv)
	seq := lastSeq(srv)
	edit(t, dir, "help.toml", false, func(s string) string {
		return s + `
[[help]]
keywords = ["juggling"]
title = "Juggling"
text = """Type "juggle balls" to amaze the square."""
`
	})
	rep := waitApplied(t, srv, seq)
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), `"juggle balls"`) {
		t.Errorf("the report's warnings: %q", rep.Warnings)
	}
	builder.Expect("Reload applied")
	builder.Expect(`warning: help.toml: topic "juggling": shows "juggle balls", but juggle is not a command`)
}

// squareExits is the square's exits line in the starter world.
const squareExits = `exits = { north = "north_street", south = "inn", west = "market", east = "cinder_lane" }`

// waitUntil waits through reloads after seq until cond holds of the
// world, and returns the report that made it so.
func waitUntil(t *testing.T, srv *server.Server, seq uint64, cond func() bool) zone.ReloadReport {
	t.Helper()
	for {
		rep := waitReport(t, srv, seq)
		if cond() {
			return rep
		}
		t.Logf("reload %d on the way: %s", rep.Seq, rep.Text())
		seq = rep.Seq
	}
}

// A room and an exit to it are added while a player stands by: the player
// walks up into it. Then the room is taken out again while the player
// stands in it: the player is moved to safety with a line, and keeps what
// they carry.
func TestReload_RoomAddedWalkedIntoThenRemovedUnderThePlayer(t *testing.T) {
	srv, dir := reloadWorld(t)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Climber", "climber-pass")
	p.DoExpect("south", "Exits:")
	p.DoExpect("get lantern", "You get")
	inv := p.Do("inventory")
	p.DoExpect("north", "Emberfall Square")

	seq := lastSeq(srv)
	edit(t, dir, "emberfall.toml", false, func(s string) string {
		s = strings.Replace(s, squareExits, strings.TrimSuffix(squareExits, " }")+`, up = "rooftop" }`, 1)
		return s + `
[rooms.rooftop]
name = "On the Inn Roof"
description = "Warm slates under your boots, and the whole town below."
exits = { down = "square" }
`
	})
	rep := waitApplied(t, srv, seq)
	if !strings.Contains(strings.Join(rep.Changes, "\n"), "added: rooftop") {
		t.Errorf("report: %s", rep.Text())
	}
	p.DoExpect("look", "up")
	p.DoExpect("up", "On the Inn Roof")

	seq = rep.Seq
	edit(t, dir, "emberfall.toml", true, func(s string) string {
		s = strings.Replace(s, `, up = "rooftop" }`, " }", 1)
		return s[:strings.Index(s, "\n[rooms.rooftop]")] + "\n"
	})
	p.Expect("unmade by the world's builders")
	p.Expect("Emberfall Square")
	waitApplied(t, srv, seq)
	if got := p.Do("inventory"); got != inv {
		t.Errorf("inventory after the room went: %q; before: %q", got, inv)
	}
	p.DoExpect("look", "Emberfall Square")
	p.DoExpect("up", "You cannot go that way")
}

// A new zone file, and an exit into it from an old zone: a player walks in.
func TestReload_NewZoneWalkedInto(t *testing.T) {
	srv, dir := reloadWorld(t)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Wanderer", "wanderer-pass")
	seq := lastSeq(srv)
	write(t, dir, "meadow.toml", true, `
[zone]
name = "The Low Meadow"
description = "Grass below the town."

[rooms.field]
name = "A Wet Field"
description = "Long grass, heavy with dew, and a ladder back up to the square."
exits = { up = "emberfall:room:square" }

[items.stone]
keywords = ["stone"]
short = "a wet stone"
long = "A wet stone lies in the grass."

[[resets]]
item = "stone"
room = "field"
`)
	edit(t, dir, "emberfall.toml", false, replaceOnce(squareExits, strings.TrimSuffix(squareExits, " }")+`, down = "meadow:room:field" }`))
	rep := waitUntil(t, srv, seq, func() bool {
		sq := srv.World().Content().Rooms["emberfall:room:square"]
		return sq != nil && sq.Exits[content.Down] != nil
	})
	if srv.World().Zone("meadow") == nil {
		t.Fatalf("the new zone is not hosted: %s", rep.Text())
	}
	p.DoExpect("down", "A Wet Field")
	p.DoExpect("get stone", "You get a wet stone")
	inv := p.Do("inventory")

	// The zone file is taken out (and the exit into it) while the player
	// stands there: they are moved to the start room with a line, and the
	// zone is unhosted once it is empty.
	seq = lastSeq(srv)
	edit(t, dir, "emberfall.toml", true, replaceOnce(`, down = "meadow:room:field" }`, " }"))
	if err := os.Remove(filepath.Join(dir, "meadow.toml")); err != nil {
		t.Fatal(err)
	}
	p.Expect("This part of the world has been unmade by its builders.")
	p.Expect("Emberfall Square")
	rep = waitUntil(t, srv, seq, func() bool { return srv.World().Zone("meadow") == nil })
	if !strings.Contains(strings.Join(rep.Changes, "\n"), "meadow: unhosted") {
		t.Errorf("report: %s", rep.Text())
	}
	if got := p.Do("inventory"); got != inv {
		t.Errorf("inventory after the zone went: %q, want %q", got, inv)
	}
	p.DoExpect("look", "Emberfall Square")
}

// A script that fails on every call is switched off by its breaker; its
// builder edits it, and it runs again.
func TestReload_ScriptSwitchedOffRunsAgainOnceEdited(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, _ := builderAndPlayer(t, srv)
	seq := lastSeq(srv)
	edit(t, dir, "emberfall.toml", false, func(s string) string {
		return strings.Replace(s, squareExits, squareExits+`
script = """
function on_command(actor, verb, args)
  if verb == "tinker" then
    error("the fountain is not ready")
  end
  return false
end"""`, 1)
	})
	waitApplied(t, srv, seq)
	for i := 0; !strings.Contains(string(builder.Raw()), "switched off"); i++ {
		if i == 50 {
			t.Fatalf("the breaker did not switch the script off after 50 failures: %q", builder.Do("tinker"))
		}
		builder.DoExpect("tinker", "the fountain is not ready")
		builder.Expect("> ") // the end of that burst: a switch-off is told in it
	}
	builder.DoExpect("tinker", "Huh?")
	builder.DoExpect("scripterrors", "emberfall emberfall:room:square: emberfall.toml:")
	builder.Expect("the fountain is not ready")
	builder.DoExpect("scripterrors all", "switched off")
	// The gauge of scripts switched off counts it, and counts it no more
	// once the fixed script runs in its place.
	offGauge := func(want float64) {
		t.Helper()
		got := -1.0
		for i := 0; i < 300; i++ { // a bound on a hang: the zone publishes about once a second
			if got = scrape(t, srv.HTTPAddr()).value("zonemud_lua_scripts_off", "template", "emberfall"); got == want {
				return
			}
			builder.DoExpect("look", "Emberfall Square") // keep the zone busy publishing
			time.Sleep(200 * time.Millisecond)           // scrapes are limited to 10 a second
		}
		t.Fatalf("zonemud_lua_scripts_off for emberfall is %v, want %v", got, want)
	}
	offGauge(1)

	seq = lastSeq(srv)
	edit(t, dir, "emberfall.toml", true, replaceOnce(`    error("the fountain is not ready")`, `    actor:send("The fountain gurgles at you.")
    return true`))
	rep := waitApplied(t, srv, seq)
	if !strings.Contains(strings.Join(rep.Changes, "\n"), "emberfall:room:square") {
		t.Errorf("report does not name the recompiled script: %s", rep.Text())
	}
	builder.DoExpect("tinker", "The fountain gurgles at you.")
	offGauge(0)
}

// Bad input in the areas folder: each is refused with a clear problem,
// the running world is untouched while it lasts (the player looks around,
// walks, and keeps what they carry), and the world takes the next valid
// version.
func TestReload_BadInputRefusedWorldUntouched(t *testing.T) {
	srv, dir := reloadWorld(t)
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Holder", "holder-pass")
	p.DoExpect("south", "The Banked Fire")
	p.DoExpect("get lantern", "You get")
	inv := p.Do("inventory")
	version := srv.World().LastReload().Version
	untouched := func(what string) {
		t.Helper()
		if v := srv.World().Snapshot().Version; v != version {
			t.Fatalf("%s: the world runs version %d, want %d untouched", what, v, version)
		}
		p.DoExpect("north", "Emberfall Square")
		p.DoExpect("south", "The Banked Fire")
		if got := p.Do("inventory"); got != inv {
			t.Fatalf("%s: inventory %q, want %q", what, got, inv)
		}
	}
	// refused makes a bad change, waits for the reload that refuses it,
	// checks the problem and the world, and undoes the change.
	refused := func(what, want string, bad, undo func()) {
		t.Helper()
		seq := lastSeq(srv)
		bad()
		rep := waitReport(t, srv, seq)
		for !rep.Refused() || !strings.Contains(rep.Problems.Error(), want) {
			if !rep.Refused() && !rep.Unchanged {
				t.Fatalf("%s: applied: %s", what, rep.Text())
			}
			rep = waitReport(t, srv, rep.Seq)
		}
		t.Logf("%s: %s", what, rep.Text())
		untouched(what)
		seq = rep.Seq
		undo()
		for {
			rep = waitReport(t, srv, seq)
			if !rep.Refused() {
				break
			}
			seq = rep.Seq
		}
		untouched(what + ", undone")
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	remove := func(name string) func() {
		return func() {
			if err := os.Remove(path(name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	original := map[string]string{}
	for _, name := range []string{"emberfall.toml", "whisperwood.toml", "scripts/lever.lua"} {
		data, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		original[name] = string(data)
	}
	restore := func(name string) func() { return func() { write(t, dir, name, true, original[name]) } }

	// Half written: the first half of a file, as the watcher might see
	// an editor's save midway; then the rest.
	half := original["emberfall.toml"][:len(original["emberfall.toml"])/2]
	half = half[:strings.LastIndex(half, "\n")] + "\nname = \"cut"
	refused("a half-written file", "emberfall.toml:", func() { write(t, dir, "emberfall.toml", false, half) }, restore("emberfall.toml"))

	refused("a 100 MB file", "big.toml: file is too large", func() {
		f, err := os.Create(path("big.toml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(100 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}, remove("big.toml"))

	refused("a symlink loop", "loop.toml: cannot read: a symbolic link that loops", func() {
		if err := os.Symlink("loop.toml", path("loop.toml")); err != nil {
			t.Fatal(err)
		}
	}, remove("loop.toml"))

	refused("a file that is not UTF-8", "latin.toml:3: file is not valid UTF-8", func() {
		write(t, dir, "latin.toml", false, "[zone]\nname = \"Latin\"\n# caf\xe9\n")
	}, remove("latin.toml"))

	refused("an exit to a zone that does not exist", `rooms.square.exits.up: no zone "atlantis"`, func() {
		edit(t, dir, "emberfall.toml", true, replaceOnce(squareExits, strings.TrimSuffix(squareExits, " }")+`, up = "atlantis:room:gate" }`))
	}, restore("emberfall.toml"))

	refused("Lua that does not compile", "scripts/lever.lua:", func() {
		write(t, dir, "scripts/lever.lua", true, original["scripts/lever.lua"]+"\nfunction broken(\n")
	}, restore("scripts/lever.lua"))

	refused("two files claiming one zone", `whisperwood2.toml:`, func() {
		write(t, dir, "whisperwood2.toml", true, strings.Replace(original["whisperwood.toml"], "[zone]\n", "[zone]\nid = \"whisperwood\"\n", 1))
	}, remove("whisperwood2.toml"))

	// A zone file deleted and written again at once (within the watcher's
	// quiet time, or not: either way the world ends with the zone as it
	// was, and nobody in it is moved).
	p.DoExpect("north", "Emberfall Square")
	for _, d := range []string{"east", "east", "east", "east"} {
		p.DoExpect(d, "Exits:")
	}
	here := strings.SplitN(strings.TrimSpace(p.Do("look")), "\n", 2)[0] // the room's name
	seq := lastSeq(srv)
	if err := os.Remove(path("ashridge.toml")); err != nil {
		t.Fatal(err)
	}
	ash, err := os.ReadFile(filepath.Join(servertest.Root(), "areas", "ashridge.toml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "ashridge.toml", false, string(ash))
	waitUntil(t, srv, seq, func() bool { return srv.World().Content().Zones["ashridge"] != nil })
	if got := p.Do("look"); !strings.HasPrefix(strings.TrimSpace(got), here) {
		t.Errorf("after ashridge.toml was deleted and written again: %q, want to stand in %q", got, here)
	}
	if got := p.Do("inventory"); got != inv {
		t.Errorf("inventory: %q, want %q", got, inv)
	}

	// A thousand saves as fast as they go: a few reloads, and the world
	// ends with the last.
	seq = lastSeq(srv)
	base := original["whisperwood.toml"]
	for i := 0; i < 1000; i++ {
		write(t, dir, "whisperwood.toml", i%2 == 0, base+fmt.Sprintf("\n# save %d\n", i))
	}
	write(t, dir, "whisperwood.toml", true, strings.Replace(base, `name = "The Whisperwood"`, `name = "The Whisperwood, Saved"`, 1))
	rep := waitUntil(t, srv, seq, func() bool { return srv.World().Content().Zones["whisperwood"].Name == "The Whisperwood, Saved" })
	t.Logf("1,001 saves made %d reloads", rep.Seq-seq)
	if got := p.Do("inventory"); got != inv {
		t.Errorf("inventory after a thousand saves: %q, want %q", got, inv)
	}
}

// A file of inline tables nested 2,000 deep (8 KB; decoded, about 470 MB)
// saved into a running server's areas is refused with its file, line and
// the limit, the world runs on untouched, and the whole reload allocates
// a few megabytes, not the decoder's hundreds.
func TestReload_DeeplyNestedFileRefusedInBoundedMemory(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, _ := builderAndPlayer(t, srv)
	version := srv.World().Snapshot().Version
	seq := lastSeq(srv)
	deep := "[zone]\nname = \"Deep\"\n\n" + "x = " + strings.Repeat("{a=", 2000) + "1" + strings.Repeat("}", 2000) + "\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	write(t, dir, "deep.toml", true, deep)
	rep := waitReport(t, srv, seq)
	for !rep.Refused() || !strings.Contains(rep.Problems.Error(), "deep.toml:4: nested 33 deep") {
		if !rep.Refused() && !rep.Unchanged {
			t.Fatalf("the deep file was applied: %s", rep.Text())
		}
		rep = waitReport(t, srv, rep.Seq)
	}
	runtime.ReadMemStats(&after)
	if !strings.Contains(rep.Problems.Error(), "the limit is 32") {
		t.Errorf("problems %v; want the limit named", rep.Problems)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("the refused reload allocated %d bytes; want under 64 MB", n)
	} else {
		t.Logf("the refused reload allocated %d bytes", n)
	}
	builder.Expect("deep.toml:4: nested 33 deep")
	if v := srv.World().Snapshot().Version; v != version {
		t.Errorf("the world runs version %d, want %d untouched", v, version)
	}
	builder.DoExpect("look", "Exits:")
}

// The builder commands, as a builder of every zone and as one limited to
// a zone, on a live world being edited.
func TestBuild_Commands(t *testing.T) {
	srv, dir := reloadWorld(t, "Boss")
	builder, player := builderAndPlayer(t, srv)
	boss := servertest.Dial(t, srv.TelnetAddr())
	boss.Login("Boss", "boss-pass")
	limited := servertest.Dial(t, srv.TelnetAddr())
	limited.Create("Ward", "ward-pass")
	boss.DoExpect("grant ward builder whisperwood", "Ward is now a builder of whisperwood.")
	limited.Expect("You are now a builder.")

	builder.DoExpect("rstat", "Room emberfall:room:square")
	builder.Expect("Written: emberfall.toml:29 ")
	builder.Expect("Walker (player)")
	builder.DoExpect("rstat ashridge:room:pithead", "Room ashridge:room:pithead")
	builder.Expect("Written: ashridge.toml:")
	builder.DoExpect("rstat emberfall:room:sqare", "did you mean emberfall:room:square?")
	limited.DoExpect("rstat", "You build only in whisperwood; emberfall is not yours to build.")
	limited.DoExpect("rstat ashridge:room:pithead", "You build only in whisperwood; ashridge is not yours to build.")
	limited.DoExpect("rstat whisperwood:room:forest_edge", "Room whisperwood:room:forest_edge")

	builder.DoExpect("where walker", "Walker is in emberfall, Emberfall Square (emberfall:room:square).")
	builder.DoExpect("where jory", "emberfall:room:inn (emberfall:mob:old_miner)")
	limited.DoExpect("where jory", "no mob in the zones you build answers to")

	builder.DoExpect("south", "The Banked Fire")
	builder.DoExpect("mstat jory", "Mob emberfall:mob:old_miner")
	// The line the starter file declares Jory on, read from the file so an
	// edit above it does not break this test.
	src, err := os.ReadFile(filepath.Join("..", "areas", "emberfall.toml"))
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := strings.Cut(string(src), "[mobs.old_miner]")
	builder.Expect(fmt.Sprintf("Written: emberfall.toml:%d", strings.Count(before, "\n")+1))
	builder.Expect("Made by resets[")
	builder.DoExpect("mstat emberfall:mob:rat", "Mob prototype emberfall:mob:rat")
	builder.Expect("In emberfall now: ")

	builder.DoExpect("load emberfall:item:bread", "into your inventory")
	builder.DoExpect("ostat bread", "Item emberfall:item:bread")
	builder.Expect("Carried by Maker")
	builder.DoExpect("load emberfall:mob:rat", "Loaded a giant rat here.")
	builder.DoExpect("purge rat", "Purged.")
	builder.DoExpect("load ashridge:mob:kobold", "A mob is made only in its own zone")
	builder.DoExpect("purge", "Purged")
	if got := builder.Do("look"); strings.Contains(got, "Old Jory") || !strings.Contains(got, "Exits:") {
		t.Errorf("after purge, the room: %q", got)
	}
	builder.DoExpect("zreset", "The resets of emberfall ran")
	builder.DoExpect("look", "Old Jory")

	// Jory's prototype is edited: the Jory in the world was made from the
	// old one, and says so; one made now is made from the new.
	seq := lastSeq(srv)
	edit(t, dir, "emberfall.toml", false, replaceOnce(`long = "Old Jory, once a miner, nurses a mug of ale by the hearth."`, `long = "Old Jory, once a miner, dozes by the hearth."`))
	waitApplied(t, srv, seq)
	builder.DoExpect("mstat jory", "made from an older version of its prototype")
	builder.DoExpect("purge jory", "Purged.")
	builder.DoExpect("zreset", "1 mob(s)")
	builder.DoExpect("look", "Old Jory, once a miner, dozes by the hearth.")
	builder.DoExpect("scripterrors", "No script has failed in emberfall lately.")

	player.DoExpect("rstat", "Huh?")
	player.DoExpect("where jory", "Huh?")
}

// The crypt is edited while a player is inside a copy of it: the copy
// keeps the version it was minted from (and the reload says so), and the
// next copy is made from the new one.
func TestReload_LiveCopyKeepsItsVersionNewCopyGetsTheNew(t *testing.T) {
	srv, dir := reloadWorld(t, "Ama", "Bex")
	ama := servertest.Dial(t, srv.TelnetAddr())
	ama.Login("Ama", "ama-pass")
	ama.DoExpect("goto whisperwood:room:barrow_mound", "Exits:")
	ama.DoExpect("down", "The Crumbling Stair")
	first := srv.World().Where("Ama")
	if first == nil || !zone.IsInstanceID(first.ID()) {
		t.Fatalf("Ama is in %v, want a copy of the crypt", first)
	}

	seq := lastSeq(srv)
	edit(t, dir, "sunken_crypt.toml", true, replaceOnce(`name = "The Crumbling Stair"`, `name = "The Mended Stair"`))
	rep := waitApplied(t, srv, seq)
	copies := strings.Join(rep.Copies, "\n")
	if !strings.Contains(copies, "sunken_crypt: 1 live copy keep") || !strings.Contains(copies, first.ID()+" (version 1)") {
		t.Errorf("the report does not list the live copy with its version:\n%s", rep.Text())
	}
	if first.Version() != 1 {
		t.Errorf("the live copy reconciled to version %d", first.Version())
	}
	ama.DoExpect("look", "The Crumbling Stair")

	bex := servertest.Dial(t, srv.TelnetAddr())
	bex.Login("Bex", "bex-pass")
	bex.DoExpect("goto whisperwood:room:barrow_mound", "Exits:")
	bex.DoExpect("down", "The Mended Stair")
	second := srv.World().Where("Bex")
	if second == nil || second == first || !zone.IsInstanceID(second.ID()) || second.Version() != rep.Version {
		t.Fatalf("Bex is in %v (version %d), want a new copy of version %d", second, second.Version(), rep.Version)
	}
	ama.DoExpect("look", "The Crumbling Stair")

	// The template is taken out of the files (and the door to it) while
	// copies of it are live: they run on with the version they were made
	// from, and the report says the template is kept for them.
	seq = rep.Seq
	edit(t, dir, "whisperwood.toml", true, replaceOnce(`instance_entrances = { down = "sunken_crypt" }`, ""))
	if err := os.Remove(filepath.Join(dir, "sunken_crypt.toml")); err != nil {
		t.Fatal(err)
	}
	rep = waitUntil(t, srv, seq, func() bool { return srv.World().Content().Zones["sunken_crypt"] == nil })
	copies = strings.Join(rep.Copies, "\n")
	if !strings.Contains(copies, "sunken_crypt: 2 live copies") || !strings.Contains(copies, "kept for these until they empty") {
		t.Errorf("the report on a template taken out under its copies:\n%s", rep.Text())
	}
	ama.DoExpect("look", "The Crumbling Stair")
	bex.DoExpect("look", "The Mended Stair")
	bex.DoExpect("north", "Exits:")
	bex.DoExpect("south", "The Mended Stair")
}
