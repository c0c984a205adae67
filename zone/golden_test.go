package zone_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"zonemud/internal/markup"
	"zonemud/zone"
)

// update rewrites the golden files instead of comparing with them: run
// `go test ./zone -run Golden -update` after changing what a player sees
// on purpose, and read the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or writes it there with
// -update. Escape characters are written as \e, so a reviewer reads the
// colour codes in a diff; the rest is the bytes the player gets.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, "\x1b", `\e`)
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from what the player now sees; if the change is meant, rewrite it with -update:\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first line where want and got part, with a line of
// context each side.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for j := max(0, i-1); j <= i+1; j++ {
		if j < len(w) {
			fmt.Fprintf(&b, "  want %3d: %q\n", j+1, w[j])
		}
		if j < len(g) {
			fmt.Fprintf(&b, "  got  %3d: %q\n", j+1, g[j])
		}
	}
	return b.String()
}

// screenSession is a session of a given width and colour level that keeps
// what the zone writes, rendered at its level as the gate's writer renders
// it, with the prompt marked.
type screenSession struct {
	benchSession
	width  int
	color  markup.Level
	reader bool // the client reports a screen reader

	mu  sync.Mutex
	out strings.Builder
}

func (s *screenSession) Width() int { return s.width }
func (s *screenSession) Client() zone.ClientInfo {
	return zone.ClientInfo{Name: "golden", Transport: "telnet", Color: s.color, Reported: s.color, ScreenReader: s.reader, UTF8: true}
}
func (s *screenSession) Write(p []byte, prompt bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(markup.Render(nil, p, s.color))
	if prompt {
		s.out.WriteString("<prompt>\n")
	}
	return true
}

// take returns what was written since the last take.
func (s *screenSession) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.out.String()
	s.out.Reset()
	return out
}

// screen runs the zone of Emberfall Square by hand, in a synctest bubble
// so its clock (the time played that score shows) is the test's, puts a
// new level 1 character in the square on s, and returns what each command
// shows.
func screen(t *testing.T, s *screenSession, cmds ...string) []string {
	t.Helper()
	var out []string
	synctest.Test(t, func(t *testing.T) {
		w, _ := benchWorld(t)
		set := w.Content()
		cfg := zone.DefaultConfig()
		cfg.Dormant = false
		z := zone.New(set.Zones["emberfall"], set, discardShard{w}, cfg, zone.Options{Seed: 1})
		z.BootForTest()
		s.benchSession.id = sessionIDs.Add(1)
		z.Arrive(&zone.CharRecord{Name: "Aria", Level: 1}, s, "", "")
		z.DrainForTest()
		s.take() // the arrival: the room, as the first look shows it
		for i, cmd := range cmds {
			z.InputForTest(s, uint64(i+1), cmd)
			out = append(out, s.take())
		}
	})
	return out
}

// The room as a player sees it, at every colour level and at a narrow,
// the usual and a wide window, and for a screen reader.
func TestGolden_Room(t *testing.T) {
	levels := []markup.Level{markup.None, markup.Color16, markup.Color256, markup.TrueColor}
	for _, width := range []int{40, 80, 132} {
		for _, lvl := range levels {
			t.Run(fmt.Sprintf("w%d-%s", width, lvl), func(t *testing.T) {
				s := &screenSession{width: width, color: lvl}
				golden(t, fmt.Sprintf("room-w%d-%s.txt", width, lvl), screen(t, s, "look")[0])
			})
		}
	}
	t.Run("screenreader", func(t *testing.T) {
		s := &screenSession{width: 80, color: markup.None, reader: true}
		golden(t, "room-screenreader.txt", screen(t, s, "look")[0])
	})
}

// Help as a new player meets it: the list of topics, a topic, a command's
// usage and the list of commands, at the usual width and a narrow one.
func TestGolden_Help(t *testing.T) {
	for _, width := range []int{40, 80} {
		t.Run(fmt.Sprintf("w%d", width), func(t *testing.T) {
			s := &screenSession{width: width, color: markup.Color16}
			cmds := []string{"help", "help newbie", "help look", "commands"}
			var b strings.Builder
			for i, out := range screen(t, s, cmds...) {
				fmt.Fprintf(&b, "> %s\n%s", cmds[i], out)
			}
			golden(t, fmt.Sprintf("help-w%d.txt", width), b.String())
		})
	}
}

// score for a new character, with colour.
func TestGolden_Score(t *testing.T) {
	s := &screenSession{width: 80, color: markup.Color256}
	golden(t, "score.txt", screen(t, s, "score")[0])
}
