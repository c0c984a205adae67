package world

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"zonemud/content"
	"zonemud/script"
	"zonemud/zone"
)

// Check loads and validates a whole version of the content from areas, as
// a reload does and with the same messages: every file read and checked,
// every script compiled and linted, and what the world needs of the set.
// It returns the set and its compiled scripts, or every problem found.
// `zonemud check` runs it offline.
func Check(areas fs.FS, cfg script.Config) (*content.Set, zone.Scripts, error) {
	return validate(areas, cfg, nil, script.NewCache())
}

// validate is Check with the world's caches: files whose bytes did not
// change are not decoded again, and a script whose source, file and line
// did not change keeps its compiled form (and with it its breaker).
func validate(areas fs.FS, cfg script.Config, files *content.Cache, cache *script.Cache) (*content.Set, zone.Scripts, error) {
	set, err := content.LoadCached(areas, files)
	if err != nil {
		return nil, zone.Scripts{}, err
	}
	scripts, sp := compileScripts(set, cfg, cache)
	var probs content.Problems
	for _, p := range sp {
		probs = append(probs, p.Problem)
	}
	if p := startProblem(set); p != "" {
		probs = append(probs, content.Problem{File: content.GameFile, Key: "world.start_room", Msg: p})
	}
	if len(probs) > 0 {
		return nil, zone.Scripts{}, probs
	}
	return set, scripts, nil
}

// startProblem says why the set's start room cannot be where players
// start, or "".
func startProblem(set *content.Set) string {
	start := set.Rooms[set.Game.StartRoom]
	if start == nil || set.Zones[start.Zone] == nil || set.Zones[start.Zone].Instanceable {
		return "start room " + set.Game.StartRoom + " is not in a zone players can walk in (an instanceable zone is entered only through its copies)"
	}
	return ""
}

// CheckHelp lists what the help text shows that the game lacks: a command
// word no command has, or a help topic that does not exist.
func CheckHelp(set *content.Set) []string { return zone.HelpProblems(set) }

// scriptProblem is a script that does not compile, or (lint) one that
// compiles but cannot work as written (script.Compiled.Problems).
type scriptProblem struct {
	content.Problem
	lint bool
}

// compileScripts compiles every script in a content set, through cache.
// Zones and instances share the results read-only. Every script that does
// not compile, and everything the linter finds in those that do, is a
// problem with its file and line.
func compileScripts(set *content.Set, cfg script.Config, cache *script.Cache) (zone.Scripts, []scriptProblem) {
	if cfg == (script.Config{}) {
		cfg = script.DefaultConfig()
	}
	out := zone.Scripts{Compiled: map[*content.Script]*script.Compiled{}, Config: cfg}
	var probs []scriptProblem
	seen := map[*script.Compiled]bool{}
	add := func(s *content.Script, key string) {
		if s == nil {
			return
		}
		// The key path is in the area file; a script_file's messages
		// name lines of the script's own file.
		keyPath := ""
		if strings.HasSuffix(s.File, ".toml") {
			keyPath = s.Key
		}
		c, err := cache.Get(s.Source, s.File, max(s.Line, 1), key)
		if err != nil {
			p := positioned(strings.TrimPrefix(err.Error(), script.ErrCompile.Error()+": "), s.File)
			p.Key, p.Msg = keyPath, p.Msg+" (script of "+key+")"
			probs = append(probs, scriptProblem{Problem: p})
			return
		}
		out.Compiled[s] = c
		if seen[c] {
			return
		}
		seen[c] = true
		for _, text := range c.Problems() {
			p := positioned(text, c.File())
			p.Key, p.Msg = keyPath, p.Msg+" (script of "+key+")"
			probs = append(probs, scriptProblem{Problem: p, lint: true})
		}
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
	sort.Slice(probs, func(i, j int) bool {
		a, b := probs[i].Problem, probs[j].Problem
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Msg < b.Msg
	})
	return out, probs
}

// positioned reads "file:line: message" into a problem.
func positioned(text, file string) content.Problem {
	rest, ok := strings.CutPrefix(text, file+":")
	if !ok {
		return content.Problem{File: file, Msg: text}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	line, err := strconv.Atoi(rest[:i])
	if err != nil || i == len(rest) || rest[i] != ':' {
		return content.Problem{File: file, Msg: text}
	}
	return content.Problem{File: file, Line: line, Msg: strings.TrimSpace(rest[i+1:])}
}

// problemsOf lists an error from Check or a reload as problems: the
// problems of a Problems error, or the error itself as one.
func problemsOf(err error) content.Problems {
	var ps content.Problems
	if errors.As(err, &ps) {
		return ps
	}
	return content.Problems{{Msg: err.Error()}}
}
