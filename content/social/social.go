package social

import (
	"fmt"
	"sort"
	"strings"
)

// Position is the least a social needs of its actor: a sleeping
// character snores no sigh, a resting one may still wave.
type Position uint8

const (
	Sleeping Position = iota
	Resting
	Sitting
	Standing
)

// Social is one social: what the actor, the target and the room see with
// no target, with a target, and with the actor as its own target. Only
// CharNoArg is required; a social without target lines takes no target,
// and one without self lines answers NotFound to itself.
type Social struct {
	Name string

	CharNoArg   string // the actor, no target: "You smile happily."
	OthersNoArg string // the room, no target: "$n smiles happily."
	CharFound   string // the actor, a target: "You smile at $N."
	OthersFound string // the room, a target: "$n smiles at $N."
	VictFound   string // the target: "$n smiles at you."
	CharAuto    string // the actor, at itself: "You smile at yourself."
	OthersAuto  string // the room, the actor at itself: "$n smiles at $mself."
	NotFound    string // no such target here; "" for the usual line
	MinPos      Position
}

// Targeted reports whether the social takes a target.
func (s *Social) Targeted() bool { return s.CharFound != "" }

// Spec is one social as the socials file writes it, under its name.
type Spec struct {
	CharNoArg   string `toml:"char_no_arg"`
	OthersNoArg string `toml:"others_no_arg"`
	CharFound   string `toml:"char_found"`
	OthersFound string `toml:"others_found"`
	VictFound   string `toml:"vict_found"`
	CharAuto    string `toml:"char_auto"`
	OthersAuto  string `toml:"others_auto"`
	NotFound    string `toml:"not_found"`
	Position    string `toml:"position"` // sleeping, resting (the default), sitting, standing
}

// Problem is one thing wrong with a spec: the key under the social's name
// ("" for the social itself) and what is wrong.
type Problem struct {
	Social, Key, Msg string
}

// Table is every social by name. Immutable after New.
type Table struct {
	byName map[string]*Social
	names  []string // sorted
}

// maxName and maxLine bound what one social may be.
const (
	maxName = 20
	maxLine = 400
)

// New checks specs and builds the table, or returns every problem found.
func New(specs map[string]Spec) (*Table, []Problem) {
	t := &Table{byName: make(map[string]*Social, len(specs))}
	var probs []Problem
	bad := func(name, key, format string, args ...any) {
		probs = append(probs, Problem{Social: name, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	for name, sp := range specs {
		if !validName(name) {
			bad(name, "", "a social's name is 1 to %d lower-case letters, got %q", maxName, name)
			continue
		}
		s := &Social{
			Name: name, CharNoArg: sp.CharNoArg, OthersNoArg: sp.OthersNoArg,
			CharFound: sp.CharFound, OthersFound: sp.OthersFound, VictFound: sp.VictFound,
			CharAuto: sp.CharAuto, OthersAuto: sp.OthersAuto, NotFound: sp.NotFound,
		}
		switch sp.Position {
		case "sleeping":
			s.MinPos = Sleeping
		case "", "resting":
			s.MinPos = Resting
		case "sitting":
			s.MinPos = Sitting
		case "standing":
			s.MinPos = Standing
		default:
			bad(name, "position", "want sleeping, resting, sitting or standing, got %q", sp.Position)
		}
		if s.CharNoArg == "" {
			bad(name, "char_no_arg", "required: what the actor sees with no target")
		}
		lines := []struct {
			key, text string
			target    bool
		}{
			{"char_no_arg", s.CharNoArg, false}, {"others_no_arg", s.OthersNoArg, false},
			{"char_found", s.CharFound, true}, {"others_found", s.OthersFound, true},
			{"vict_found", s.VictFound, true}, {"char_auto", s.CharAuto, false},
			{"others_auto", s.OthersAuto, false}, {"not_found", s.NotFound, false},
		}
		for _, l := range lines {
			if len(l.text) > maxLine {
				bad(name, l.key, "longer than %d bytes", maxLine)
			}
			if strings.ContainsAny(l.text, "\r\n") {
				bad(name, l.key, "one line only")
			}
			if err := Check(l.text, l.target); err != nil {
				bad(name, l.key, "%v", err)
			}
		}
		if s.CharFound != "" && (s.OthersFound == "" || s.VictFound == "") {
			bad(name, "char_found", "a social with a target needs others_found and vict_found too")
		}
		if s.CharFound == "" && (s.OthersFound != "" || s.VictFound != "") {
			bad(name, "char_found", "required when others_found or vict_found is written")
		}
		if (s.CharAuto == "") != (s.OthersAuto == "") {
			bad(name, "char_auto", "char_auto and others_auto go together")
		}
		t.byName[name] = s
		t.names = append(t.names, name)
	}
	sort.Strings(t.names)
	sort.Slice(probs, func(i, j int) bool {
		if probs[i].Social != probs[j].Social {
			return probs[i].Social < probs[j].Social
		}
		return probs[i].Key < probs[j].Key
	})
	if len(probs) > 0 {
		return nil, probs
	}
	return t, nil
}

func validName(s string) bool {
	if s == "" || len(s) > maxName {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// Find returns the social with exactly this name, or nil. A nil table
// has none.
func (t *Table) Find(name string) *Social {
	if t == nil {
		return nil
	}
	return t.byName[name]
}

// Names lists every social's name, sorted. The slice is shared.
func (t *Table) Names() []string {
	if t == nil {
		return nil
	}
	return t.names
}

// Len is how many socials there are.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.names)
}
