package server_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"zonemud/internal/prompt"
	"zonemud/server/servertest"
)

// A player's own prompt shows their vitals, gold, experience to go, the
// room and its exits, still ends with "> ", and is the same after a new
// login; prompt default puts the plain one back.
func TestPrompt_CustomShownAndKept(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")

	score := a.DoExpect("score", "gold.")
	m := regexp.MustCompile(`Hit points (\d+)/(\d+), mana (\d+)/(\d+), moves (\d+)/(\d+)\.\r?\nExperience (\d+) of (\d+) to the next level; you carry (\d+) gold\.`).FindStringSubmatch(score)
	if m == nil {
		t.Fatalf("score:\n%s", score)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	want := fmt.Sprintf("%d/%d hp %d mana %d mv %d gold %d tnl Emberfall Square n e s w > ", n(1), n(2), n(3), n(5), n(9), n(8)-n(7))

	a.DoExpect("prompt", "Your prompt is the default one.")
	a.DoExpect("prompt %h/%H hp %m mana %v mv %g gold %x tnl %r %e %c", "Your prompt is set.")
	a.Expect(want)
	a.DoExpect("look", "Emberfall Square")
	a.Expect(want)
	a.DoExpect("prompt", "Your prompt is: %h/%H hp %m mana %v mv %g gold %x tnl %r %e %c")

	// The room token follows the player.
	a.DoExpect("north", "Temple Street")
	a.Expect("tnl Temple Street n s > ")
	a.DoExpect("south", "Emberfall Square")
	a.Expect(want)

	a.Quit()
	a2 := servertest.Dial(t, srv.TelnetAddr())
	a2.Login("Aria", "secret-a")
	a2.DoExpect("look", "Emberfall Square")
	a2.Expect(want)

	// Colour in the prompt is closed before the "> ", so the last bytes on
	// the wire are "> " with colour on too.
	a2.DoExpect("color 16", "Colour set to 16.")
	a2.DoExpect("prompt {R}%hhp", "Your prompt is set.")
	a2.Expect("hp > ")
	a2.Do("look")
	if raw := a2.Raw(); !bytes.Contains(raw, []byte("hp\x1b[0m > ")) {
		t.Errorf("a coloured prompt does not end in a reset and \"> \": %q", raw[max(0, len(raw)-200):])
	}

	a2.DoExpect("prompt default", "Your prompt is the default one again.")
	out := a2.Do("look")
	if strings.Contains(out, " hp") {
		t.Errorf("prompt default left the custom prompt:\n%s", out)
	}
	a2.DoExpect("prompt", "Your prompt is the default one.")
}

// Bad prompts are refused with a line and leave the prompt as it was:
// an unknown token, a lone %, control bytes and escape codes, one over the
// length cap.
func TestPrompt_BadInputRefused(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("prompt <%hhp>", "Your prompt is set.")
	a.Expect("hp> ")

	a.DoExpect("prompt %q", "That cannot be your prompt: %q is not a token")
	a.DoExpect("prompt 50%", "That cannot be your prompt: a % at the end names no token")
	a.DoExpect("prompt "+strings.Repeat("x", 121), "That cannot be your prompt: a prompt is at most 120 characters")
	for _, bad := range []string{"red\x1b[31mX", "bell\x07X", "c1\u009bX"} {
		out := a.Do("prompt " + bad)
		if !strings.Contains(out, "That cannot be your prompt") && !strings.Contains(out, "Your prompt is set.") {
			t.Errorf("prompt %q answered:\n%s", bad, out)
		}
	}
	// Whatever the front let through, what the prompt shows holds no
	// control byte.
	a.Do("look")
	before := len(a.Raw())
	a.Do("look")
	tail := a.Raw()[before:]
	if i := bytes.LastIndex(tail, []byte("\r\n")); i >= 0 {
		tail = tail[i+2:] // the prompt's line
	}
	for _, b := range []byte{0x1b, 0x07} {
		if bytes.IndexByte(tail, b) >= 0 {
			t.Errorf("the prompt carries byte %#x: %q", b, tail)
		}
	}
	tail = bytes.TrimSuffix(bytes.TrimSuffix(tail, []byte{255, 249}), []byte{255, 239}) // GA or EOR
	if !bytes.HasSuffix(tail, []byte("> ")) {
		t.Errorf("the prompt does not end with \"> \": %q", tail)
	}
}

// practiceBag is a mob for the %c test: a few blows to kill, and too weak
// to hurt its attacker much, so its condition and the player's part.
const practiceBag = `[mobs.practice_bag]
keywords = ["practice", "bag"]
short = "a practice bag"
long = "A practice bag of sand hangs from a post here."
description = "Sand in sacking, patched."
level = 1
hp = "14"
damage = "1d1"
damage_type = "bludgeon"
attack_verb = "sway"
attacks = 1
armor = 0
dodge = 0

[[resets]]
mob = "practice_bag"
room = "square"
max = 1

`

// In a real fight, %c shows the opponent's condition in Diku words, as
// it falls, and nothing out of a fight: read from the prompts the server
// sends after each round.
func TestPrompt_ConditionInARealFight(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			return bytes.Replace(data, []byte("# --------------------------------------------------------------- resets\n"), []byte(practiceBag), 1)
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Aria", "secret-a")
	a.DoExpect("prompt <%h/%H [%c]>", "Your prompt is set.")
	a.Expect(" []> ")

	words := []string{"excellent", "a few scratches", "small wounds", "quite a few wounds", "big nasty wounds", "pretty hurt", "awful", "bleeding, close to death"}
	rank := map[string]int{}
	for i, w := range words {
		rank[w] = i
	}
	re := regexp.MustCompile(`<(\d+)/(\d+) \[([a-z ,]*)\]> `)
	a.DoExpect("kill bag", "You attack a practice bag!")
	fight := a.ExpectWithin("is DEAD!", 40*2500*time.Millisecond)
	after := a.Expect("> ")
	last, differs := -1, false
	seen := 0
	for _, m := range re.FindAllStringSubmatch(fight, -1) {
		w := m[3]
		if w == "" {
			continue // the prompt of the kill command, before the first round
		}
		r, ok := rank[w]
		if !ok {
			t.Fatalf("%%c showed %q, not a Diku condition word", w)
		}
		if r < last {
			t.Errorf("the bag's condition rose from %q to %q in a fight", words[last], w)
		}
		last = r
		seen++
		h, _ := strconv.Atoi(m[1])
		most, _ := strconv.Atoi(m[2])
		if r > 0 && w != prompt.Condition(h, most) {
			differs = true
		}
	}
	if seen == 0 {
		t.Fatalf("no prompt in the fight showed a condition:\n%s", fight)
	}
	if last < 1 || !differs {
		t.Errorf("%%c never showed the bag hurt, apart from the player's own condition:\n%s", fight)
	}
	if m := re.FindStringSubmatch(after); m == nil || m[3] != "" {
		t.Errorf("after the kill the prompt shows a condition: %q", after)
	}
}
