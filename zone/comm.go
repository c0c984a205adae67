package zone

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"zonemud/content"
	"zonemud/internal/markup"
)

// CommRecord is what a player chose about talk, saved with the character:
// the channels turned on or off against their default, the players
// ignored, and the aliases.
type CommRecord struct {
	Channels map[string]bool // channel -> on, where the player chose
	Ignore   []string        // names, as stored (capitalised)
	Aliases  map[string]string
}

// Clone returns a deep copy.
func (r CommRecord) Clone() CommRecord {
	return CommRecord{Channels: maps.Clone(r.Channels), Ignore: slices.Clone(r.Ignore), Aliases: maps.Clone(r.Aliases)}
}

// commState is a player's talk: what CommRecord keeps, and what lasts
// only while the player is in the world (away, the rate windows). Zone
// goroutine only; it travels with the character.
type commState struct {
	rec      CommRecord
	afk      bool
	afkMsg   string
	afkTells int                // tells that came while away
	rates    map[string]*window // channel -> the player's recent lines on it
	tells    window             // the player's recent tells
}

func newCommState(r CommRecord) commState { return commState{rec: r.Clone()} }

// record is the saved form: a copy, since the saver reads it on its own
// goroutine while the zone goes on changing the state.
func (s *commState) record() CommRecord { return s.rec.Clone() }

// ignores reports whether the player ignores name.
func (s *commState) ignores(name string) bool {
	return len(s.rec.Ignore) > 0 && slices.Contains(s.rec.Ignore, name)
}

// hears reports whether the player listens to ch.
func (s *commState) hears(ch *content.Channel) bool {
	if on, ok := s.rec.Channels[ch.Name]; ok {
		return on
	}
	return ch.On
}

// window counts a player's recent acts to limit their rate: at most n in
// per. The times are a ring of the last n.
type window struct {
	at   []time.Time
	next int
}

// allow records an act at now and reports true if fewer than n happened
// in the per before it; otherwise it records nothing and reports false.
func (w *window) allow(now time.Time, n int, per time.Duration) bool {
	if n <= 0 {
		return false
	}
	if cap(w.at) != n {
		// First use, or the channel's rate changed with a reload.
		w.at, w.next = make([]time.Time, 0, n), 0
	}
	if len(w.at) < n {
		w.at = append(w.at, now)
		return true
	}
	if oldest := w.at[w.next]; now.Sub(oldest) < per {
		return false
	}
	w.at[w.next] = now
	w.next = (w.next + 1) % n
	return true
}

// cleanText is text a player typed, made safe to show to others: control
// characters (escape codes, bells, telnet bytes a front let through)
// dropped, and colour markup escaped so it shows as typed.
func cleanText(s string) string {
	s = strings.TrimSpace(s)
	if strings.IndexFunc(s, isControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if isControl(r) {
				return -1
			}
			return r
		}, s)
	}
	return markup.Escape(s)
}

func isControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == 0xfffd
}
