package social

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Person is someone a line names: a name as it stands in a sentence
// ("Aria", "a giant rat") and the three pronouns used for them.
type Person struct {
	Name       string
	Subject    string // he, she, it, they
	Object     string // him, her, it, them
	Possessive string // his, her, its, their
}

// Them is a person of no stated sex, as players are.
func Them(name string) Person {
	return Person{Name: name, Subject: "they", Object: "them", Possessive: "their"}
}

// It is a thing or a beast.
func It(name string) Person {
	return Person{Name: name, Subject: "it", Object: "it", Possessive: "its"}
}

// Act fills format for actor and target: $n is the actor's name and $N
// the target's, $e/$E their subject pronouns, $m/$M their object pronouns,
// $s/$S their possessives, and $$ a dollar sign. The first letter of the
// line is upper-cased. Names are inserted as they stand: a caller whose
// names may hold player text escapes them first. A token Check refuses
// never reaches Act from a loaded Table; if one does it stays as written.
func Act(format string, actor, target Person) string {
	if !strings.Contains(format, "$") {
		return capFirst(format)
	}
	var b strings.Builder
	b.Grow(len(format) + len(actor.Name) + len(target.Name))
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '$' || i+1 == len(format) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch format[i] {
		case 'n':
			b.WriteString(actor.Name)
		case 'N':
			b.WriteString(target.Name)
		case 'e':
			b.WriteString(actor.Subject)
		case 'E':
			b.WriteString(target.Subject)
		case 'm':
			b.WriteString(actor.Object)
		case 'M':
			b.WriteString(target.Object)
		case 's':
			b.WriteString(actor.Possessive)
		case 'S':
			b.WriteString(target.Possessive)
		case '$':
			b.WriteByte('$')
		default:
			b.WriteByte('$')
			b.WriteByte(format[i])
		}
	}
	return capFirst(b.String())
}

// Check reports the first problem with format: an unknown $ token, a $ at
// its end, or (if target is false) a token that names a target the line
// does not have.
func Check(format string, target bool) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			continue
		}
		if i+1 == len(format) {
			return fmt.Errorf("a $ at the end; write $$ for a dollar sign")
		}
		i++
		switch t := format[i]; t {
		case 'n', 'e', 'm', 's', '$':
		case 'N', 'E', 'M', 'S':
			if !target {
				return fmt.Errorf("$%c names a target, but this line has none", t)
			}
		default:
			return fmt.Errorf("unknown token $%c; want $n $N $e $E $m $M $s $S or $$", t)
		}
	}
	return nil
}

// capFirst upper-cases the first letter: "a giant rat nods." -> "A giant rat nods."
func capFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
