package zone_test

import (
	"strings"
	"testing"

	"zonemud/zone"
)

// silentShard never answers a backup.
type silentShard struct{ discardShard }

func (silentShard) Backup(func(string, int64, error)) {}

// promptSession records what a zone writes and whether it ended with a
// prompt.
type promptSession struct {
	logSession
	prompts int
}

func (s *promptSession) Write(p []byte, prompt bool) bool {
	s.mu.Lock()
	s.all.Write(p)
	if prompt {
		s.prompts++
	}
	s.mu.Unlock()
	return true
}

// An answer that never comes holds the prompt, and the lines typed after
// it, for answerWait at most: then the player is told and plays on.
func TestAnswers_ALostAnswerDoesNotHangThePlayer(t *testing.T) {
	w, _ := benchWorld(t)
	set := w.Content()
	cfg := zone.DefaultConfig()
	cfg.Dormant = false
	z := zone.New(set.Zones["emberfall"], set, silentShard{discardShard{w}}, cfg, zone.Options{Seed: 1})
	z.BootForTest()
	s := &promptSession{logSession: logSession{benchSession: benchSession{id: sessionIDs.Add(1)}}}
	z.Arrive(&zone.CharRecord{Name: "Ada", Level: 1, Admin: true}, s, "emberfall:room:square", "")
	z.DrainForTest()
	s.mu.Lock()
	before := s.prompts
	s.mu.Unlock()
	z.InputForTest(s, 1, "backup")
	z.InputForTest(s, 2, "say still here")
	wait := int(zone.AnswerWaitForTest / zone.PulseInterval)
	for i := 0; i < wait-1; i++ {
		z.TickForTest()
		z.DrainForTest()
	}
	s.mu.Lock()
	held, out := s.prompts-before, s.all.String()
	s.mu.Unlock()
	if held != 0 || strings.Contains(out, "still here") {
		t.Fatalf("a pulse short of the wait: %d prompts, output %q; want the prompt and the say held", held, out)
	}
	for i := 0; i < 2; i++ {
		z.TickForTest()
		z.DrainForTest()
	}
	s.mu.Lock()
	held, out = s.prompts-before, s.all.String()
	s.mu.Unlock()
	if held == 0 || !strings.Contains(out, "taking a while") || !strings.Contains(out, "You say, '{W}still here") {
		t.Fatalf("past the wait: %d prompts, output %q; want the wait told, the prompt, and the say run", held, out)
	}
}
