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
//
// An example that handles an item ("drink ale", "put bread in pack",
// "buy 3 bread") must name an item a player can come by: one that a reset
// places, a shop sells, a quest gives or a script names, of the kind the
// verb needs (something to drink, to eat, a container to look or put in).
func HelpProblems(set *content.Set) []string {
	var out []string
	had := obtainable(set)
	check := func(where, text string, admin bool) {
		for _, phrase := range shownCommands(text) {
			p := commandProblem(set, phrase, admin)
			if p == "" {
				p = itemProblem(set, had, phrase)
			}
			if p != "" {
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
			cmd, _, _ := strings.Cut(body, "  ")
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

// itemVerbs are the commands whose examples name an item, and the kind of
// item the first one named must be ("" for any).
var itemVerbs = map[string]content.ItemType{
	"get": "", "take": "", "drop": "", "give": "", "put": "", "wear": "", "wield": "", "hold": "",
	"remove": "", "buy": "", "sell": "", "value": "", "eat": content.ItemFood, "drink": content.ItemDrink,
}

// moneyWords name gold, which is counted, not an item to come by.
var moneyWords = map[string]bool{"gold": true, "coins": true, "coin": true}

// itemProblem says what is wrong with the items an example names, or "".
func itemProblem(set *content.Set, had map[string]bool, phrase string) string {
	words := strings.Fields(strings.ToLower(phrase))
	if len(words) < 2 || strings.ContainsAny(phrase, "<[|") {
		return ""
	}
	verb, args := words[0], words[1:]
	want, ok := itemVerbs[verb]
	if verb == "look" || verb == "l" {
		if args[0] != "in" || len(args) < 2 {
			return ""
		}
		return exampleItem(set, had, phrase, args[1], content.ItemContainer)
	}
	if !ok {
		return ""
	}
	// "get coins from chest", "put bread in pack": the container.
	for i, w := range args {
		if (w == "from" || w == "in") && i+1 < len(args) {
			if p := exampleItem(set, had, phrase, args[i+1], content.ItemContainer); p != "" {
				return p
			}
			args = args[:i]
			break
		}
	}
	if len(args) > 0 && isNumber(args[0]) { // buy 3 bread, give 10 gold aria
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	obj := args[0]
	if obj == "all" {
		if len(args) < 2 || verb != "get" { // get all; get all corpse
			return ""
		}
		return exampleItem(set, had, phrase, args[1], content.ItemContainer)
	}
	obj = strings.TrimPrefix(obj, "all.")
	if i := strings.IndexByte(obj, '.'); i > 0 && isNumber(obj[:i]) { // get 2.bread
		obj = obj[i+1:]
	}
	if moneyWords[obj] {
		return ""
	}
	return exampleItem(set, had, phrase, obj, want)
}

// exampleItem says why no item a player can come by answers to word as kind
// (any kind if ""), or "" if one does. A corpse is what every kill leaves.
func exampleItem(set *content.Set, had map[string]bool, phrase, word string, kind content.ItemType) string {
	if word == "corpse" && (kind == "" || kind == content.ItemContainer) {
		return ""
	}
	named := false
	for ref, it := range set.Items {
		if !matches(word, it.Keywords) {
			continue
		}
		named = true
		if had[ref] && (kind == "" || it.Type == kind) {
			return ""
		}
	}
	what := "item"
	switch kind {
	case content.ItemDrink:
		what = "drink"
	case content.ItemFood:
		what = "food"
	case content.ItemContainer:
		what = "container"
	}
	if named {
		return fmt.Sprintf("shows %q, but no %s called %s can be had: no reset, shop, quest or script brings one into the world", phrase, what, word)
	}
	return fmt.Sprintf("shows %q, but no %s in the world is called %s", phrase, what, word)
}

// obtainable lists the refs of the items a player can come by: placed by
// a reset (on the floor, in a container, on or carried by a mob), sold
// in a shop, given by a quest, or named in a script.
func obtainable(set *content.Set) map[string]bool {
	had := map[string]bool{}
	var scripts strings.Builder
	for _, id := range set.ZoneOrder {
		zp := set.Zones[id]
		for _, rs := range zp.Resets {
			if rs.Kind == content.ResetItem {
				had[rs.Proto] = true
			}
			for _, l := range [][]string{rs.Equip, rs.Give, rs.Contents} {
				for _, ref := range l {
					had[ref] = true
				}
			}
		}
		for _, m := range zp.Mobs {
			if m.Shop != nil {
				for _, st := range m.Shop.Stock {
					had[st.Item] = true
				}
			}
			if m.Script != nil {
				scripts.WriteString(m.Script.Source)
			}
		}
		for _, r := range zp.Rooms {
			if r.Script != nil {
				scripts.WriteString(r.Script.Source)
			}
		}
		for _, it := range zp.Items {
			if it.Script != nil {
				scripts.WriteString(it.Script.Source)
			}
		}
	}
	for _, q := range set.Quests {
		for _, ref := range q.Rewards.Items {
			had[ref] = true
		}
	}
	src := scripts.String()
	for ref := range set.Items {
		if !had[ref] && (strings.Contains(src, `"`+ref+`"`) || strings.Contains(src, `'`+ref+`'`)) {
			had[ref] = true
		}
	}
	return had
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
