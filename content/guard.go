package content

import "fmt"

// What one area file may ask of the TOML decoder. BurntSushi/toml copies a
// value's whole key path for every key it meets, so a file of inline
// tables, dotted keys or headers nested a few thousand deep costs memory
// and time quadratic in the depth: 20 KB of `x = {a={a={...}}}` took a
// running server to 1.1 GB. A file is measured by measureTOML before the
// decoder sees it, in one pass that allocates nothing per byte, and one
// past a limit is refused with the line that crosses it. The limits are
// far above what a zone needs (the starter world nests 6 deep and its
// largest file has about 900 keys and values).
const (
	// maxNesting bounds a value's depth: the parts of its table header
	// and dotted key, and every inline table and array around it.
	maxNesting = 32
	// maxValues bounds the keys, headers and array elements of one file.
	maxValues = 100_000
	// maxKeyCost bounds the sum of every value's depth: what the decoder
	// copies of key paths. A zone of 5,000 rooms as genworld writes them
	// (the most a zone may have) needs about 280,000.
	maxKeyCost = 400_000
)

// tomlLimits are the bounds measureTOML checks; tests shrink them.
type tomlLimits struct {
	nesting, values, cost int
}

var areaLimits = tomlLimits{nesting: maxNesting, values: maxValues, cost: maxKeyCost}

// tomlFrame is one open array ('[') or inline table ('{').
type tomlFrame struct {
	kind  byte
	depth int // an array: its elements' depth; a table: its own, which its keys add to
}

// measureTOML scans TOML text as the decoder would read it (strings,
// comments, table headers, dotted and quoted keys, arrays and inline
// tables) and returns the 1-based line of the first place that goes past
// a limit, with a message naming the limit; line 0 when the text is
// within every limit. It never fails on text that is not TOML: what it
// cannot read it skips, and the decoder then reports the syntax error.
// Its cost is linear in the text, with memory for one frame per open
// bracket (at most lim.nesting+1 of them before it stops).
func measureTOML(text string, lim tomlLimits) (line int, msg string) {
	line, msg, _ = measureTOMLStats(text, lim)
	return line, msg
}

// tomlStats is what measureTOML counted, for tests and measurements.
type tomlStats struct {
	deepest, values, cost int
}

func measureTOMLStats(text string, lim tomlLimits) (line int, msg string, st tomlStats) {
	var (
		stack   []tomlFrame
		header  int // parts of the current table header
		keyNext = true
		elem    bool // an array element may start here
		depth   int  // depth of the value being read
		values  int
		cost    int
	)
	line = 1
	count := func(d int) string {
		values++
		cost += d
		st.values, st.cost, st.deepest = values, cost, max(st.deepest, d)
		switch {
		case d > lim.nesting:
			return fmt.Sprintf("nested %d deep (table headers, dotted keys, inline tables and arrays together); the limit is %d", d, lim.nesting)
		case values > lim.values:
			return fmt.Sprintf("more than %d keys and values in one file; the limit is %d (split the zone into more files)", lim.values, lim.values)
		case cost > lim.cost:
			return fmt.Sprintf("keys nested too deeply for their number (%d levels in all, more than the limit of %d)", cost, lim.cost)
		}
		return ""
	}
	i := 0
	for i < len(text) {
		c := text[i]
		switch c {
		case '\n':
			line++
			i++
			if len(stack) == 0 {
				keyNext = true
			}
			continue
		case ' ', '\t', '\r':
			i++
			continue
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		if keyNext {
			top := len(stack) == 0
			switch {
			case top && c == '[':
				// A table header: [a.b] or [[a.b]].
				i++
				array := i < len(text) && text[i] == '['
				if array {
					i++
				}
				var parts int
				i, parts, line = readKeyParts(text, i, line)
				header = parts
				if array {
					header++ // each element of an array of tables is a level
				}
				for i < len(text) && text[i] == ']' {
					i++
				}
				if m := count(header); m != "" {
					return line, m, st
				}
				continue
			case !top && c == '}':
				// An empty inline table, or a trailing comma.
				keyNext = false
				continue
			}
			base := header
			if !top {
				base = stack[len(stack)-1].depth
			}
			j, parts, ln := readKeyParts(text, i, line)
			if j == i {
				i++ // not a key: the decoder will say what it is
				continue
			}
			i, line = j, ln
			depth = base + parts
			if m := count(depth); m != "" {
				return line, m, st
			}
			for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
				i++
			}
			if i < len(text) && text[i] == '=' {
				i++
			}
			keyNext = false
			continue
		}
		if elem && c != ']' && c != ',' {
			elem = false
			if m := count(depth); m != "" {
				return line, m, st
			}
		}
		switch c {
		case '"', '\'':
			i, line = skipString(text, i, line)
		case '[':
			depth++
			if depth > lim.nesting {
				return line, count(depth), st
			}
			stack = append(stack, tomlFrame{kind: '[', depth: depth})
			elem = true
			i++
		case '{':
			if depth+1 > lim.nesting {
				return line, count(depth + 1), st
			}
			stack = append(stack, tomlFrame{kind: '{', depth: depth})
			keyNext = true
			i++
		case ']', '}':
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
			elem = false
			if n := len(stack); n > 0 && stack[n-1].kind == '[' {
				depth = stack[n-1].depth
			}
			i++
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].kind == '{' {
					keyNext = true
				} else {
					elem = true
					depth = stack[n-1].depth
				}
			}
			i++
		default:
			// A number, a date, a boolean: up to the next delimiter.
			for i < len(text) && !isTOMLDelim(text[i]) {
				i++
			}
		}
	}
	return 0, "", st
}

func isTOMLDelim(b byte) bool {
	switch b {
	case ',', '[', ']', '{', '}', '#', '\n', ' ', '\t', '\r', '"', '\'':
		return true
	}
	return false
}

// readKeyParts reads a dotted key (bare or quoted parts) at text[i:] and
// returns where it ends, how many parts it has and the line it ends on.
func readKeyParts(text string, i, line int) (int, int, int) {
	parts := 0
	for {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) {
			return i, parts, line
		}
		switch c := text[i]; {
		case c == '"' || c == '\'':
			i, line = skipString(text, i, line)
		case isBareKeyByte(c):
			for i < len(text) && isBareKeyByte(text[i]) {
				i++
			}
		default:
			return i, parts, line
		}
		parts++
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) || text[i] != '.' {
			return i, parts, line
		}
		i++
	}
}

// skipString skips the string that starts at text[i] (basic, literal, or
// either multi-line form) and returns the index after it and the line it
// ends on. An unterminated single-line string ends at its line's end, an
// unterminated multi-line one at the end of the text.
func skipString(text string, i, line int) (int, int) {
	q := text[i]
	if i+2 < len(text) && text[i+1] == q && text[i+2] == q {
		i += 3
		for i < len(text) {
			switch {
			case text[i] == '\n':
				line++
			case q == '"' && text[i] == '\\':
				i++
				if i < len(text) && text[i] == '\n' {
					line++
				}
			case text[i] == q && i+2 < len(text) && text[i+1] == q && text[i+2] == q:
				// Up to two more quotes may close it: """a""""" is a"".
				i += 3
				for k := 0; k < 2 && i < len(text) && text[i] == q; k++ {
					i++
				}
				return i, line
			}
			i++
		}
		return i, line
	}
	i++
	for i < len(text) && text[i] != '\n' {
		switch {
		case q == '"' && text[i] == '\\':
			if i+1 < len(text) && text[i+1] == '\n' {
				return i + 1, line
			}
			i++
		case text[i] == q:
			return i + 1, line
		}
		i++
	}
	return i, line
}
