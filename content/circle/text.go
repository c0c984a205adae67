package circle

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// colourTo maps the letters of tbaMUD's colour codes (@r, and the same
// letters after \t) to zonemud markup: the eight colours, bright in upper
// case, d for black, n for normal.
var colourTo = map[byte]string{
	'n': "{x}", 'd': "{k}", 'r': "{r}", 'g': "{g}", 'y': "{y}", 'b': "{b}", 'm': "{m}", 'c': "{c}", 'w': "{w}",
	'D': "{K}", 'R': "{R}", 'G': "{G}", 'Y': "{Y}", 'B': "{B}", 'M': "{M}", 'C': "{C}", 'W': "{W}",
}

// colourDropped are code letters with no markup: backgrounds (0 to 7),
// blink, underline, reverse and the like. They are taken out.
const colourDropped = "01234567lLoOuUeEiIfF*"

// text turns source text into zonemud text: colour codes into markup,
// braces escaped, control characters out, trailing space trimmed. dropped
// lists the codes it took out without an equivalent.
func text(s string) (out string, dropped []string) {
	var b strings.Builder
	b.Grow(len(s))
	seen := map[string]bool{}
	drop := func(code string) {
		if !seen[code] {
			seen[code] = true
			dropped = append(dropped, code)
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '@' && i+1 < len(s):
			n := s[i+1]
			if n == '@' {
				b.WriteByte('@')
				i += 2
				continue
			}
			if m, ok := colourTo[n]; ok {
				b.WriteString(m)
				i += 2
				continue
			}
			if strings.IndexByte(colourDropped, n) >= 0 {
				drop("@" + string(n))
				i += 2
				continue
			}
		case c == '\\' && i+2 < len(s) && s[i+1] == 't':
			n := s[i+2]
			if m, ok := colourTo[n]; ok {
				b.WriteString(m)
				i += 3
				continue
			}
			if n == '[' {
				if j := strings.IndexByte(s[i:], ']'); j > 0 && j < 16 {
					drop(s[i : i+j+1])
					i += j + 1
					continue
				}
			}
			if strings.IndexByte(colourDropped, n) >= 0 {
				drop(`\t` + string(n))
				i += 3
				continue
			}
		case c == '{':
			b.WriteString("{{")
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		default:
			b.WriteRune(r)
		}
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), dropped
}

// cut shortens s to at most n bytes on a rune boundary, without leaving a
// broken "{" escape at its end.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	if k := len(s) - len(strings.TrimRight(s, "{")); k%2 == 1 {
		s = s[:len(s)-1]
	}
	return s
}

// oneLine joins a text's lines with spaces, for fields shown in a
// sentence.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// keywords turns a source keyword list into zonemud keywords: lower case,
// letters, digits, - ' and _ only, at most 16, each at most 40 bytes.
func keywords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(strings.ToLower(s)) {
		var b strings.Builder
		for _, r := range f {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '\'' || r == '_' {
				b.WriteRune(r)
			}
		}
		k := cut(b.String(), 40)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
		if len(out) == 16 {
			break
		}
	}
	return out
}

// slug is s as a ref name: lower case a-z, 0-9 and _, at most n bytes.
func slug(s string, n int) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		default:
			under = true
		}
		if b.Len() >= n {
			break
		}
	}
	return strings.TrimRight(cut(b.String(), n), "_")
}

// quote is s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// multi is s as a TOML string a builder can read and edit: a multi-line
// string when it has more than one line.
func multi(s string) string {
	if !strings.Contains(s, "\n") {
		return quote(s)
	}
	var b strings.Builder
	b.WriteString("\"\"\"\n")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"' && (i+1 == len(s) || s[i+1] == '"'):
			b.WriteString(`\"`)
		case c < 0x20 && c != '\n' && c != '\t' || c == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(`"""`)
	return b.String()
}

// list is a TOML array of strings.
func list(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
