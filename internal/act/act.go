// Package act fills the game's act messages: the one place where "$n hits
// $N" becomes "A kobold digger hits you", so word order, capitals and the
// victim's slot are right in every message that names who did what.
//
// Codes in a template: $n the actor, $N the victim (or "you", for the
// victim's own line), $s the actor's possessive ("their"), $$ a dollar.
// Any other $x stays as written. Values are put in as they stand and are
// never read for codes again, so a name cannot smuggle one in. The first
// letter of the line is upper-cased, past any leading colour codes ({R}).
//
// It imports nothing of the project and starts no goroutines.
package act

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Format fills tmpl with actor and victim and capitalises the line.
func Format(tmpl, actor, victim string) string {
	if !strings.Contains(tmpl, "$") {
		return Cap(tmpl)
	}
	var b strings.Builder
	b.Grow(len(tmpl) + len(actor) + len(victim))
	for i := 0; i < len(tmpl); i++ {
		ch := tmpl[i]
		if ch != '$' || i+1 == len(tmpl) {
			b.WriteByte(ch)
			continue
		}
		switch tmpl[i+1] {
		case 'n':
			b.WriteString(actor)
		case 'N':
			b.WriteString(victim)
		case 's':
			b.WriteString("their")
		case '$':
			b.WriteByte('$')
		default:
			b.WriteByte(ch)
			continue
		}
		i++
	}
	return Cap(b.String())
}

// Cap upper-cases the first letter of s, skipping colour codes before it:
// "{R}a kobold is DEAD!{x}" -> "{R}A kobold is DEAD!{x}", and past a
// {#ff8800}. "{{" is a literal brace, so what follows it is text.
func Cap(s string) string {
	i := 0
	for i+1 < len(s) && s[i] == '{' && s[i+1] != '{' {
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			break
		}
		i += end + 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError || !unicode.IsLower(r) {
		return s
	}
	return s[:i] + string(unicode.ToUpper(r)) + s[i+n:]
}

// Escape makes s literal inside a template: its dollars stay dollars.
func Escape(s string) string { return strings.ReplaceAll(s, "$", "$$") }
