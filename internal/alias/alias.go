// Package alias turns a line a player typed into the commands it runs:
// `;` chains commands on one line, and a player's aliases stand for
// commands of their own choosing, with $1..$9 and $* for the words typed
// after them.
//
// The rules, as a tbaMUD or Mudlet player would expect them:
//
//   - `;` ends a command, on a typed line and in an alias's expansion
//     alike; `\;` is a `;` that stays in the command (say one\; two). A
//     command whose word takes the rest of its line as it stands (alias,
//     which must keep the `;` of the expansion it defines) ends the
//     splitting there.
//   - An alias is a whole first word (never an abbreviation), and it
//     expands before any command: $1..$9 are the words typed after it, $*
//     all of them, $$ a dollar. An expansion with none of them has the
//     words typed after the alias added to its last command (gs = get
//     sword, so gs bag is get sword bag).
//   - A command of an expansion may be another alias, up to MaxDepth
//     aliases deep. A command that names the alias being expanded is the
//     command of that name (alias look look auto wraps look), as in a
//     shell; one that names an alias further out is a loop and refused,
//     at definition and, should one come about anyway, at expansion.
//   - One line runs at most MaxCommands commands; a line that would run
//     more runs none of them.
//
// It imports nothing of the project and starts no goroutines.
package alias

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// MaxDepth is how many aliases deep an expansion may go.
	MaxDepth = 5
	// MaxCommands is how many commands one typed line may run.
	MaxCommands = 20
	// MaxAliases is how many aliases one character may keep.
	MaxAliases = 50
	// MaxNameRunes and MaxBodyRunes cap an alias's name and expansion.
	MaxNameRunes = 20
	MaxBodyRunes = 400
	// maxBytes caps the text of all the commands one line expands to, so
	// $* repeated in nested aliases cannot build a huge line.
	maxBytes = 32 << 10
)

// Reserved are the words no alias may take: the commands that manage
// aliases, and quit, which always quits.
var Reserved = []string{"alias", "unalias", "quit"}

// Expander expands typed lines with one player's aliases.
type Expander struct {
	// Aliases maps lower-case names to expansions; nil is none.
	Aliases map[string]string
	// Whole reports whether the command a (lower-case) first word names
	// takes the rest of its line as it stands, `;` and all. Nil is none.
	Whole func(word string) bool
}

// Needed reports whether line may expand to anything but itself: it
// chains commands, or starts with an alias. A line it rejects is run as
// it stands, with nothing built.
func (e Expander) Needed(line string) bool {
	if strings.IndexByte(line, ';') >= 0 {
		return true
	}
	if len(e.Aliases) == 0 {
		return false
	}
	w, _ := cut(line)
	_, ok := e.Aliases[strings.ToLower(w)]
	return ok
}

// Expand returns the commands line runs, in order, or a refusal: a line
// for the player saying why none of them runs.
func (e Expander) Expand(line string) (cmds []string, refusal string) {
	x := expansion{e: e}
	for _, seg := range e.split(line) {
		if x.walk(seg, nil); x.refusal != "" {
			return nil, x.refusal
		}
	}
	return x.out, ""
}

// expansion is one Expand in progress.
type expansion struct {
	e       Expander
	out     []string
	bytes   int
	refusal string
}

// walk expands cmd, reached through the aliases on stack (outermost
// first), into x.out.
func (x *expansion) walk(cmd string, stack []string) {
	if x.refusal != "" {
		return
	}
	word, args := cut(cmd)
	name := strings.ToLower(word)
	body, ok := x.e.Aliases[name]
	if !ok || (len(stack) > 0 && stack[len(stack)-1] == name) {
		x.emit(cmd)
		return
	}
	if slices.Contains(stack, name) {
		x.refusal = "Your alias " + stack[0] + " runs itself in a loop (" + path(append(stack, name)) + "); nothing was done."
		return
	}
	if len(stack) >= MaxDepth {
		x.refusal = fmt.Sprintf("Your alias %s nests aliases more than %d deep (%s); nothing was done.", stack[0], MaxDepth, path(append(stack, name)))
		return
	}
	words := strings.Fields(args)
	templates := x.e.split(body)
	plain := !hasMarker(body)
	stack = append(stack, name)
	for i, t := range templates {
		c, ok := x.substitute(t, words, args)
		if !ok {
			return
		}
		if plain && i == len(templates)-1 && args != "" {
			c += " " + args
		}
		x.walk(c, stack)
	}
}

// emit adds a finished command.
func (x *expansion) emit(cmd string) {
	cmd = strings.TrimSpace(Clean(cmd))
	if cmd == "" {
		return
	}
	if len(x.out) == MaxCommands {
		x.refusal = fmt.Sprintf("That line would run more than %d commands; nothing was done.", MaxCommands)
		return
	}
	if x.bytes += len(cmd); x.bytes > maxBytes {
		x.refusal = "That line would expand to far too much text; nothing was done."
		return
	}
	x.out = append(x.out, cmd)
}

// substitute fills $1..$9, $* and $$ in t, or refuses once the result
// grows past what a line may expand to.
func (x *expansion) substitute(t string, words []string, all string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		ch := t[i]
		if ch == '$' && i+1 < len(t) {
			switch n := t[i+1]; {
			case n >= '1' && n <= '9':
				if k := int(n - '1'); k < len(words) {
					b.WriteString(words[k])
				}
				i++
			case n == '*':
				b.WriteString(all)
				i++
			case n == '$':
				b.WriteByte('$')
				i++
			default:
				b.WriteByte(ch)
			}
		} else {
			b.WriteByte(ch)
		}
		if x.bytes+b.Len() > maxBytes {
			x.refusal = "That line would expand to far too much text; nothing was done."
			return "", false
		}
	}
	return b.String(), true
}

// hasMarker reports whether body uses $1..$9 or $*.
func hasMarker(body string) bool {
	for i := 0; i+1 < len(body); i++ {
		if body[i] == '$' {
			if n := body[i+1]; n == '*' || (n >= '1' && n <= '9') {
				return true
			}
			if body[i+1] == '$' {
				i++
			}
		}
	}
	return false
}

// split cuts a line into its commands at each `;` that is not written
// `\;`, leaving out empty ones. A command whose first word e.Whole names
// takes the rest of the line as it stands.
func (e Expander) split(s string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.TrimSpace(b.String()) == "" && e.Whole != nil {
			rest := strings.TrimLeft(s[i:], " \t")
			w, _ := cut(rest)
			if w, _, _ = strings.Cut(w, ";"); w != "" && e.Whole(strings.ToLower(w)) {
				out = append(out, strings.TrimSpace(rest))
				return out
			}
		}
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s) && s[i+1] == ';':
			b.WriteByte(';')
			i++
		case ch == ';':
			if c := strings.TrimSpace(b.String()); c != "" {
				out = append(out, c)
			}
			b.Reset()
		default:
			b.WriteByte(ch)
		}
	}
	if c := strings.TrimSpace(b.String()); c != "" {
		out = append(out, c)
	}
	return out
}

// Split cuts a line into its commands, as Expand does before it looks
// for aliases.
func (e Expander) Split(line string) []string { return e.split(line) }

// Check says why name may not be defined as body among the aliases e
// holds, or "" if it may: its name, its length, the number kept, a loop
// back to itself, a nesting past MaxDepth, or more commands than one
// line may run. body must already be Clean.
func (e Expander) Check(name, body string) string {
	if r := CheckName(name); r != "" {
		return r
	}
	if utf8.RuneCountInString(body) > MaxBodyRunes {
		return fmt.Sprintf("That expansion is too long: %d characters at most.", MaxBodyRunes)
	}
	if strings.TrimSpace(body) == "" {
		return "An alias needs something to stand for."
	}
	if _, had := e.Aliases[name]; !had && len(e.Aliases) >= MaxAliases {
		return fmt.Sprintf("You have %d aliases, as many as you may keep; unalias one first.", MaxAliases)
	}
	next := maps.Clone(e.Aliases)
	if next == nil {
		next = map[string]string{}
	}
	next[name] = body
	g := Expander{Aliases: next, Whole: e.Whole}
	if loop := g.loopFrom(name, []string{name}); loop != nil {
		return "That alias would run itself in a loop (" + path(loop) + "); it was not kept."
	}
	for _, n := range slices.Sorted(maps.Keys(next)) {
		if chain := g.deepest(n); len(chain) > MaxDepth {
			return fmt.Sprintf("That would nest aliases more than %d deep (%s); it was not kept.", MaxDepth, path(chain))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(next)) {
		if _, r := g.Expand(n); r != "" {
			if n != name {
				r = "With it, alias " + n + " would refuse: " + r
			}
			return strings.Replace(r, "nothing was done", "it was not kept", 1)
		}
	}
	return ""
}

// CheckName says why name cannot be an alias's name, or "" if it can.
func CheckName(name string) string {
	if name == "" || utf8.RuneCountInString(name) > MaxNameRunes {
		return fmt.Sprintf("An alias's name is one word of at most %d letters, digits, - or _.", MaxNameRunes)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
			return fmt.Sprintf("An alias's name is one word of at most %d letters, digits, - or _.", MaxNameRunes)
		}
	}
	if slices.Contains(Reserved, name) {
		return "You cannot alias " + name + ": alias, unalias and quit always mean themselves."
	}
	return ""
}

// calls lists the aliases the commands of name's expansion name by their
// first word, other than name itself: the edges of the alias graph. A
// word filled in from $1 is not known until the alias is typed; Expand
// refuses a loop made that way.
func (e Expander) calls(name string) []string {
	var out []string
	for _, t := range e.split(e.Aliases[name]) {
		w, _ := cut(t)
		w = strings.ToLower(w)
		if _, ok := e.Aliases[w]; ok && w != name && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// loopFrom returns a path from the end of stack back to name, or nil.
func (e Expander) loopFrom(name string, stack []string) []string {
	if len(stack) > MaxAliases+1 {
		return nil
	}
	for _, n := range e.calls(stack[len(stack)-1]) {
		if n == name {
			return append(slices.Clone(stack), n)
		}
		if slices.Contains(stack, n) {
			continue // a loop that does not pass through name: not this one's
		}
		if p := e.loopFrom(name, append(stack, n)); p != nil {
			return p
		}
	}
	return nil
}

// deepest returns the longest chain of aliases an expansion of name goes
// through, name first. The graph has no loops (loopFrom holds that) and
// at most MaxAliases names; chains past MaxDepth+1 are cut short.
func (e Expander) deepest(name string) []string {
	var best []string
	var walk func(stack []string)
	walk = func(stack []string) {
		if len(stack) > len(best) {
			best = slices.Clone(stack)
		}
		if len(stack) > MaxDepth || len(best) > MaxDepth {
			return
		}
		for _, n := range e.calls(stack[len(stack)-1]) {
			if !slices.Contains(stack, n) {
				walk(append(stack, n))
			}
		}
	}
	walk([]string{name})
	return best
}

// Clean drops what must never reach a screen or a command from an alias:
// control characters (escape codes, bells, telnet bytes) and bytes that
// are not UTF-8.
func Clean(s string) string {
	if strings.IndexFunc(s, bad) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if bad(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

func bad(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

// cut splits s into its first word and the rest, both trimmed.
func cut(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// path shows a chain of aliases: a -> b -> a.
func path(names []string) string { return strings.Join(names, " -> ") }
