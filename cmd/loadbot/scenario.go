package main

import (
	"fmt"
	"slices"
	"strings"
	"zonemud/internal/genworld"
)

// Command is one thing a bot may type, and how it knows the answer.
type Command struct {
	// Line is what is sent. ExitLine ("@exit") is a step through a random
	// open exit of the room the bot last saw.
	Line string
	// Markers: the answer is the first prompt after text containing any of
	// them. They must be text that only this command's own reply carries
	// (never other players' lines), so that in a crowded room a prompt that
	// came with somebody else's `say` is not taken for the answer. With no
	// markers the answer is simply the next prompt, which in a crowd
	// flatters the server.
	Markers []string
}

// mintRefusals are the starter world's lines that refuse the way into a
// private copy: the answer to down at the barrow when no copy opens.
var mintRefusals = []string{"will not open", "too often", "already hold", "crowded", "Too many", "does not open",
	"closes", "already opening", "You cannot"}

// ExitLine in a command list is a step through a random open exit.
const ExitLine = "@exit"

// moveMarkers are the texts of a step's answer: the new room's exits line,
// or one of the refusals.
var moveMarkers = []string{"Exits:", "You cannot", " is closed", "does not open", "Flee first", "wake first", "is blocked"}

// knownMarkers are the answer markers of common commands in the starter
// world's words; a command in -commands gets them unless it names its own.
var knownMarkers = map[string][]string{
	"look":      {"Exits:"},
	"l":         {"Exits:"},
	"say":       {"You say"},
	"'":         {"You say"},
	"who":       {"Players in"},
	"inventory": {"You are carrying"},
	"i":         {"You are carrying"},
	"exits":     {"Obvious exits"},
	ExitLine:    moveMarkers,
}

func init() {
	for _, d := range []string{"north", "south", "east", "west", "up", "down", "northeast", "northwest",
		"southeast", "southwest", "n", "s", "e", "w", "u", "d", "ne", "nw", "se", "sw"} {
		knownMarkers[d] = moveMarkers
	}
}

// markersFor returns the known markers of a command line: by the whole
// line ("look"), else by its first word ("say hello").
func markersFor(line string) []string {
	l := strings.ToLower(strings.TrimSpace(line))
	if m, ok := knownMarkers[l]; ok {
		return m
	}
	if strings.HasPrefix(l, "'") {
		return knownMarkers["'"]
	}
	if i := strings.IndexByte(l, ' '); i > 0 {
		return knownMarkers[l[:i]]
	}
	return nil
}

// ParseCommands reads a comma-separated command list. Each entry is a
// command, optionally followed by "|" and its answer markers separated by
// "|" ("look|Exits:"); "|" alone ("score|") asks for no marker. Without a
// "|" the known markers apply.
func ParseCommands(s string) ([]Command, error) {
	var out []Command
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		line, rest, explicit := strings.Cut(e, "|")
		line = strings.TrimSpace(line)
		if line == "" {
			return nil, fmt.Errorf("-commands: %q has no command before its marker", e)
		}
		c := Command{Line: line}
		if explicit {
			for _, m := range strings.Split(rest, "|") {
				if m != "" {
					c.Markers = append(c.Markers, m)
				}
			}
		} else {
			c.Markers = markersFor(line)
		}
		out = append(out, c)
	}
	return out, nil
}

// Scenario is a named shape of load.
type Scenario struct {
	Name     string
	About    string
	Commands string // in ParseCommands form
	// Walk is how many steps each bot takes away from the start room
	// right after logging in, before it counts as ready.
	Walk int
	// Path is what each bot types, in order, once it has logged in (and
	// walked), before it counts as ready: the way to where its commands
	// apply. It is in ParseCommands form.
	Path string
	// Tree sends bot i to leaf i of a tree world (see Config.Tree).
	Tree genworld.TreeOptions
	// Hear stamps says and measures how long others take to hear them
	// (see Config.Hear).
	Hear bool
	// InOrder makes each round type every command, in order, each as soon
	// as the one before is answered, a round every -every; without it a
	// bot types one command at random every -every.
	InOrder bool
	// Mix makes the bots' turns a weighted mix of walking, looking,
	// talking, gossip, fights and trades (mix.go; -mix, -prey, -keepers),
	// each kind counted on its own; Commands is then unused.
	Mix bool
	// Series names commands whose round trips are also counted on their
	// own, by command line: an answer that matched the command's first
	// marker is a success whose round trip counts; an answer that matched
	// any other marker is a refusal.
	Series map[string]string
}

// Scenarios are the named loads. Their commands are for the starter world
// (crowd, fight, walk) or any world with exits (spread).
var Scenarios = []Scenario{
	{
		Name:     "crowd",
		About:    "every bot stays in the start room and sends look or say hello",
		Commands: "look,say hello",
	},
	{
		Name:     "spread",
		About:    "every bot walks away from the start room at once, then looks, talks and steps through random exits",
		Commands: "look,say hello," + ExitLine,
		Walk:     40,
	},
	{
		Name:  "fight",
		About: "bots go down to the cellar and fight the rats, strike, flee and look",
		// A fight's own round messages come with prompts, so the fighting
		// commands answer at the next prompt; look and the steps have
		// markers.
		Commands: "south,down,kill rat|,kill rat|,strike rat|,up,north,look,score|,flee|",
	},
	{
		Name: "instance",
		About: "bots walk to the Whisperwood's barrow, then in rounds go down into a private copy of the crypt (a copy is minted " +
			"for each entry), step north and back and climb out; the mint series is from typing down to the copy's room",
		Path:     "north,north,north,open gate|,north,north,north,north,north,north",
		Commands: "down|The Crumbling Stair|" + strings.Join(mintRefusals, "|") + ",north,south,up",
		InOrder:  true,
		Series:   map[string]string{"down": "mint"},
	},
	{
		Name: "gather",
		About: "on a tree world (zonemud genworld -tree 9x4), each bot walks to its own leaf, then looks, talks and " +
			"goes up or down at random: up and down drift bots into the upper rooms and the down spine in packs",
		Commands: "look,say hello,up,down",
		Tree:     genworld.TreeOptions{Fanout: 9, Depth: 4},
		Hear:     true,
	},
	{
		Name: "mix",
		About: "a real world's mix (-mix): every bot walks away from the start room, then walks, looks, talks, gossips, fights " +
			"the mobs of -prey it sees (kill, and flee while fighting) and trades where it sees a keeper of -keepers (list, buy, sell)",
		Commands: "look,say hello," + ExitLine,
		Walk:     40,
		Mix:      true,
	},
	{
		Name:     "walk",
		About:    "bots wander the starter village and talk (the historical default mix)",
		Commands: "look,north,south,east,west,say hello,who,inventory,exits",
	},
}

// scenarioByName returns the named scenario.
func scenarioByName(name string) (Scenario, bool) {
	i := slices.IndexFunc(Scenarios, func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		return Scenario{}, false
	}
	return Scenarios[i], true
}

func scenarioNames() string {
	var names []string
	for _, s := range Scenarios {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}
