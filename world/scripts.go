package world

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"zonemud/script"
	"zonemud/world/content"
	"zonemud/zone"
)

// CheckScripts compiles every script in a content set and reports the first
// problems, as `zonemud check` does before an admin restarts with new areas:
// scripts that do not compile, and what the linter finds in those that do
// (script.Compiled.Problems).
func CheckScripts(set *content.Set, cfg script.Config) (int, error) {
	out, err := compileScripts(set, cfg)
	if err != nil {
		return len(out.Compiled), err
	}
	if probs := scriptProblems(out); len(probs) > 0 {
		return len(out.Compiled), fmt.Errorf("world: scripts that cannot work as written:\n  %s", strings.Join(probs, "\n  "))
	}
	return len(out.Compiled), nil
}

// scriptProblems lists every compiled script's problems, each once, in
// order.
func scriptProblems(s zone.Scripts) []string {
	seen := map[*script.Compiled]bool{}
	var out []string
	for _, c := range s.Compiled {
		if seen[c] {
			continue
		}
		seen[c] = true
		for _, p := range c.Problems() {
			out = append(out, p+" ("+c.Key()+")")
		}
	}
	sort.Strings(out)
	return out
}

// CheckHelp lists what the help text shows that the game lacks: a command
// word no command has, or a help topic that does not exist.
func CheckHelp(set *content.Set) []string { return zone.HelpProblems(set) }

// compileScripts compiles every script in a content set once. Zones and
// instances share the results read-only. A script that does not compile is
// an error naming its file and line, like any other content problem.
func compileScripts(set *content.Set, cfg script.Config) (zone.Scripts, error) {
	if cfg == (script.Config{}) {
		cfg = script.DefaultConfig()
	}
	out := zone.Scripts{Compiled: map[*content.Script]*script.Compiled{}, Config: cfg}
	cache := script.NewCache()
	var errs []error
	add := func(s *content.Script, key string) {
		if s == nil {
			return
		}
		c, err := cache.Get(s.Source, s.File, max(s.Line, 1), key)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %w", s.Key, key, err))
			return
		}
		out.Compiled[s] = c
	}
	for _, r := range set.Rooms {
		add(r.Script, r.Ref)
	}
	for _, m := range set.Mobs {
		add(m.Script, m.Ref)
	}
	for _, it := range set.Items {
		add(it.Script, it.Ref)
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("world: scripts do not compile: %w", errors.Join(errs...))
	}
	return out, nil
}
