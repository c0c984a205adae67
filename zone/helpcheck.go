package zone

import (
	"fmt"
	"regexp"
	"strings"

	"zonemud/content"
)

// Help must not promise what the game lacks. HelpProblems reads every help
// topic and every command's usage text the way a player would, and lists
// each command word they show that the game does not have:
//
//   - an example block: indented lines whose first line starts with a
//     lower-case word ("  get lantern     pick something up"); the first
//     word of each line is a command;
//   - a quoted phrase that starts with a lower-case word ("wear lantern");
//     its first word is a command;
//   - "help <word>" in either: word names a topic or a command.
//
// A command word is a command of the table (or an abbreviation of one), a
// direction, or an ability. Words typed at a shell, not in the game, are
// named in shellWords.
func HelpProblems(set *content.Set) []string {
	var out []string
	check := func(where, text string, admin bool) {
		for _, phrase := range shownCommands(text) {
			if p := commandProblem(set, phrase, admin); p != "" {
				out = append(out, where+": "+p)
			}
		}
	}
	for _, h := range set.Help {
		check(fmt.Sprintf("help.toml: topic %q", h.Keywords[0]), h.Text, h.Admin || h.Builder)
	}
	for _, c := range commands {
		check(fmt.Sprintf("command %s: usage", c.name), c.usage, true)
	}
	// help lists a topic by its first keyword, and help <word> answers
	// with a command of that name before any topic: a topic listed under
	// a command's name could never be read by it.
	for _, h := range set.Help {
		for _, c := range commands {
			if c.name == h.Keywords[0] {
				out = append(out, fmt.Sprintf("help.toml: topic %q is listed as %s, but help %s shows the command; list it under another of its keywords first", h.Title, c.name, c.name))
			}
		}
	}
	return out
}

// shellWords start command lines typed at a shell, not in the game.
var shellWords = map[string]bool{"ssh": true, "zonemud": true, "go": true, "telnet": true}

var (
	quoted   = regexp.MustCompile(`"([^"\n]+)"`)
	leadWord = regexp.MustCompile(`^([a-z]+)\b`)
)

// shownCommands returns the phrases in text that show a command typed in
// the game: each line of an example block, and each quoted phrase, that
// starts with a lower-case word.
func shownCommands(text string) []string {
	var out []string
	inBlock, example := false, false
	for _, line := range strings.Split(text, "\n") {
		indented := strings.HasPrefix(line, "  ")
		body := strings.TrimSpace(line)
		switch {
		case !indented || body == "":
			inBlock, example = false, false
		case !inBlock:
			inBlock = true
			example = leadWord.MatchString(body)
		}
		if inBlock && example {
			// The command is what comes before a run of spaces that
			// starts the explanation column.
			cmd, _, _ := strings.Cut(body, "   ")
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	for _, m := range quoted.FindAllStringSubmatch(text, -1) {
		if leadWord.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// commandProblem says what is wrong with a phrase that shows a command, or
// "" if nothing is.
func commandProblem(set *content.Set, phrase string, admin bool) string {
	word := leadWord.FindString(phrase)
	if word == "" || shellWords[word] {
		return ""
	}
	r := rolePlayer
	if admin {
		r = roleAdmin
	}
	if lookupCommand(word, r) == nil && set.Game.Ability(word) == nil && set.Socials.Find(word) == nil && set.Channel(word) == nil {
		return fmt.Sprintf("shows %q, but %s is not a command", phrase, word)
	}
	if word != "help" {
		return ""
	}
	rest := strings.Fields(strings.TrimPrefix(phrase, "help"))
	if len(rest) == 0 {
		return ""
	}
	topic := strings.ToLower(strings.Trim(rest[0], ".,;:"))
	if topic == "<topic>" || topic == "[topic]" || lookupCommand(topic, r) != nil {
		return ""
	}
	for _, h := range set.Help {
		for _, k := range h.Keywords {
			if k == topic && (admin || canRead(h, rolePlayer)) {
				return ""
			}
		}
	}
	return fmt.Sprintf("shows %q, but there is no help on %s", phrase, topic)
}
