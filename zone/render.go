package zone

import (
	"strings"
	"unicode/utf8"

	"zonemud/internal/act"
)

// capFirst upper-cases the first letter, past leading colour codes:
// "a giant rat" -> "A giant rat", "{R}a rat is DEAD!" -> "{R}A rat is DEAD!".
func capFirst(s string) string { return act.Cap(s) }

// wrap reflows text to width columns. Lines inside a paragraph are joined;
// a blank line ends a paragraph, and a line that starts with spaces starts a
// new line with its indent kept (builders indent lists that way), and if it
// fits, with its inner spacing kept too (the columns of a table). Colour
// codes take no width.
func wrap(text string, width int) string {
	if width < 20 {
		width = 20
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/width + 2)
	col := 0       // column of the next byte
	words := false // the current line has a word on it
	for _, ln := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(ln) == "" {
			if col > 0 {
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
			col, words = 0, false
			continue
		}
		body := strings.TrimLeft(ln, " \t")
		indent := ln[:len(ln)-len(body)]
		if indent != "" && col > 0 {
			b.WriteByte('\n')
			col, words = 0, false
		}
		if indent != "" {
			// A row of a table or list that fits is written as it is,
			// the spaces that line up its columns kept.
			if row := strings.TrimRight(ln, " \t"); visibleLen(row) <= width {
				b.WriteString(row)
				col, words = visibleLen(row), true
				continue
			}
			b.WriteString(indent)
			col = len(indent)
		}
		for _, w := range strings.Fields(body) {
			wl := visibleLen(w)
			if words && col+1+wl > width {
				b.WriteByte('\n')
				col, words = 0, false
			}
			if words {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += wl
			words = true
		}
	}
	return b.String()
}

// visibleLen is the width of s on screen: runes, less colour codes.
func visibleLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '{' {
			if i+1 < len(s) && s[i+1] == '{' {
				n++
				i += 2
				continue
			}
			if j := strings.IndexByte(s[i:], '}'); j >= 2 && j <= 8 {
				i += j + 1
				continue
			}
		}
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		n++
	}
	return n
}

// listWords joins words as English does: "a, b and c".
func listWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// firstWord splits off the first word of s.
func firstWord(s string) (string, string) {
	s = strings.TrimLeft(s, " ")
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i+1:], " ")
}
