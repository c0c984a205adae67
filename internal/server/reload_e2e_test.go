package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/internal/server"
	"zonemud/internal/servertest"
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
	boss.Create("Boss", "boss-pass")
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
	rep := waitReport(t, srv, seq)
	for !rep.Refused() { // a save seen half written is refused too; wait for this one
		rep = waitReport(t, srv, rep.Seq)
	}
	want := fmt.Sprintf("emberfall.toml:%d: ", line)
	if len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0].String(), want) {
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
