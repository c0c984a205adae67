package content

import (
	"strconv"
	"strings"
)

// lineIndex maps the key paths of one TOML file to the line each is
// written on, so that a problem found after decoding (a room that does not
// exist, a value out of range) can name its line as well as its key.
// BurntSushi/toml gives positions only for syntax and type errors; this is
// a light scan of the text that knows table headers, array tables, dotted
// and quoted keys, inline tables, and multi-line strings and arrays (whose
// contents are never taken for keys). A key it cannot place is looked up
// by its nearest parent: rooms.a.exits.north falls back to rooms.a.exits,
// then rooms.a.
type lineIndex map[string]int

// scanLines builds the index of one file's text.
func scanLines(text string) lineIndex {
	idx := lineIndex{}
	table := ""
	arrays := map[string]int{} // array-table path -> elements seen
	var sc valueScanner
	for n, line := range strings.Split(text, "\n") {
		ln := n + 1
		if sc.open() {
			sc.feed(line, "", ln, idx)
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#':
			continue
		case strings.HasPrefix(t, "[["):
			name, ok := headerName(t[2:], "]]")
			if !ok {
				continue
			}
			i := arrays[name]
			arrays[name] = i + 1
			table = name + "[" + strconv.Itoa(i) + "]"
			setLine(idx, table, ln)
			// Tables under an array element start afresh.
			for k := range arrays {
				if strings.HasPrefix(k, name+".") {
					delete(arrays, k)
				}
			}
		case t[0] == '[':
			name, ok := headerName(t[1:], "]")
			if !ok {
				continue
			}
			table = arrayPath(name, arrays)
			setLine(idx, table, ln)
		default:
			key, rest, ok := keyBefore(t, '=')
			if !ok {
				continue
			}
			full := join(table, key)
			setLine(idx, full, ln)
			sc.feed(rest, full, ln, idx)
		}
	}
	return idx
}

// line finds the line of key, or of its nearest parent that has one; 0 if
// none does.
func (idx lineIndex) line(key string) int {
	for key != "" {
		if n, ok := idx[key]; ok {
			return n
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

// arrayPath maps a header under an array table to its current element:
// [resets.x] after the third [[resets]] is resets[2].x.
func arrayPath(name string, arrays map[string]int) string {
	for i := len(name); i > 0; i = strings.LastIndexByte(name[:i], '.') {
		if n, ok := arrays[name[:i]]; ok {
			return name[:i] + "[" + strconv.Itoa(n-1) + "]" + name[i:]
		}
	}
	return name
}

func setLine(idx lineIndex, key string, ln int) {
	if _, ok := idx[key]; !ok {
		idx[key] = ln
	}
}

func join(table, key string) string {
	if table == "" {
		return key
	}
	return table + "." + key
}

// headerName reads a table header's dotted name up to its closing bracket.
func headerName(s, closing string) (string, bool) {
	name, rest, ok := readKey(s)
	if !ok || !strings.HasPrefix(strings.TrimSpace(rest), closing) {
		return "", false
	}
	return name, true
}

// keyBefore reads a dotted key followed by sep, and returns what follows.
func keyBefore(s string, sep byte) (key, rest string, ok bool) {
	key, rest, ok = readKey(s)
	rest = strings.TrimLeft(rest, " \t")
	if !ok || rest == "" || rest[0] != sep {
		return "", "", false
	}
	return key, rest[1:], true
}

// readKey reads a dotted key (bare or quoted parts) at the start of s, in
// the form the loader writes key paths: bare parts as they are, parts that
// are not valid names quoted.
func readKey(s string) (key, rest string, ok bool) {
	var parts []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return "", "", false
		}
		var part string
		switch s[0] {
		case '"':
			end := closingQuote(s, '"')
			if end < 0 {
				return "", "", false
			}
			v, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return "", "", false
			}
			part, s = v, s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", "", false
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			i := 0
			for i < len(s) && (isBareKeyByte(s[i])) {
				i++
			}
			if i == 0 {
				return "", "", false
			}
			part, s = s[:i], s[i:]
		}
		parts = append(parts, quoteKey(part))
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] != '.' {
			return strings.Join(parts, "."), s, true
		}
		s = s[1:]
	}
}

func isBareKeyByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// closingQuote finds the quote that closes a basic string starting at
// s[0], skipping escapes; -1 if the line ends first.
func closingQuote(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return -1
}

// valueScanner follows a value across lines: open brackets of arrays and
// inline tables, and multi-line strings, so that nothing inside them is
// taken for a key. Keys of inline tables are indexed as it goes.
type valueScanner struct {
	ml     string   // the delimiter of the multi-line string we are in, or ""
	stack  []byte   // open '[' and '{'
	tables []string // key path of each open inline table ("" for an array)
	last   string   // path of the key whose value comes next
}

func (sc *valueScanner) open() bool { return sc.ml != "" || len(sc.stack) > 0 }

// feed reads one line (or the rest of one) of a value. key is the path of
// the value when it starts here, "" when continuing.
func (sc *valueScanner) feed(s, key string, ln int, idx lineIndex) {
	if key != "" {
		sc.last = key
	}
	for i := 0; i < len(s); i++ {
		if sc.ml != "" {
			j := strings.Index(s[i:], sc.ml)
			if j < 0 {
				return
			}
			i += j + len(sc.ml) - 1
			sc.ml = ""
			continue
		}
		switch c := s[i]; c {
		case '#':
			return
		case '"', '\'':
			if strings.HasPrefix(s[i:], string([]byte{c, c, c})) {
				sc.ml = string([]byte{c, c, c})
				i += 2
				continue
			}
			end := -1
			if c == '"' {
				end = closingQuote(s[i:], '"')
			} else if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				end = j + 1
			}
			if end < 0 {
				return
			}
			i += end
		case '[':
			sc.stack = append(sc.stack, c)
			sc.tables = append(sc.tables, "")
		case '{':
			sc.stack = append(sc.stack, c)
			sc.tables = append(sc.tables, sc.last)
			sc.inlineKey(s[i+1:], ln, idx)
		case ']', '}':
			if n := len(sc.stack); n > 0 {
				sc.stack = sc.stack[:n-1]
				sc.tables = sc.tables[:n-1]
			}
		case ',':
			if n := len(sc.stack); n > 0 && sc.stack[n-1] == '{' {
				sc.inlineKey(s[i+1:], ln, idx)
			}
		}
	}
}

// inlineKey indexes the key that starts s inside the innermost inline
// table; a nested inline table after it takes its path.
func (sc *valueScanner) inlineKey(s string, ln int, idx lineIndex) {
	k, _, ok := keyBefore(s, '=')
	if !ok {
		return
	}
	sc.last = join(sc.tables[len(sc.tables)-1], k)
	setLine(idx, sc.last, ln)
}
