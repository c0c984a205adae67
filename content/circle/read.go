package circle

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxString bounds one tilde string as read. A longer one is cut here (and
// later to what the schema allows, with a note), so a file with a lost
// tilde costs memory in proportion to the file, never more.
const maxString = 1 << 20

// Note is one thing the import dropped, approximated or refused, at a
// place in the source.
type Note struct {
	File string // the source file, relative to the world folder
	Line int    // 1-based; 0 when the note is about the whole file
	Zone int    // the zone vnum it belongs to; -1 when none
	Kind string // "error", "broken", "dropped", "approximated"
	Msg  string
}

func (n Note) String() string {
	if n.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
	}
	return fmt.Sprintf("%s: %s", n.File, n.Msg)
}

// Note kinds.
const (
	KindError        = "error"        // the source did not read; the record was skipped
	KindBroken       = "broken"       // a reference to something that does not exist, left out
	KindDropped      = "dropped"      // a field, flag or value with no zonemud equivalent
	KindApproximated = "approximated" // converted to the nearest zonemud feature
)

// parseError is a record that does not read: where, and what was expected.
type parseError struct {
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// reader walks one source file line by line.
type reader struct {
	file  string
	lines []string
	next  int  // index of the next line to read
	latin bool // the file was not UTF-8 and was read as Latin-1
}

func newReader(file string, data []byte) *reader {
	r := &reader{file: file}
	s := string(data)
	if !utf8.ValidString(s) {
		r.latin = true
		s = latin1(data)
	}
	s = strings.ReplaceAll(s, "\r", "")
	r.lines = strings.Split(s, "\n")
	if n := len(r.lines); n > 0 && r.lines[n-1] == "" {
		r.lines = r.lines[:n-1]
	}
	return r
}

// latin1 reads bytes as ISO 8859-1, which maps each byte to the code
// point of the same value.
func latin1(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// lineNo is the 1-based number of the line read last.
func (r *reader) lineNo() int { return r.next }

func (r *reader) eof() bool { return r.next >= len(r.lines) }

func (r *reader) fail(format string, args ...any) *parseError {
	return &parseError{line: max(r.next, 1), msg: fmt.Sprintf(format, args...)}
}

// failAt is a failure at a given line.
func failAt(line int, format string, args ...any) *parseError {
	return &parseError{line: max(line, 1), msg: fmt.Sprintf(format, args...)}
}

// line reads the next line; what names what was expected, for the error
// at the end of the file.
func (r *reader) line(what string) (string, *parseError) {
	if r.eof() {
		return "", &parseError{line: len(r.lines), msg: "unexpected end of file; expected " + what}
	}
	l := r.lines[r.next]
	r.next++
	return l, nil
}

// peek is the next line without reading it ("" at the end of the file).
func (r *reader) peek() (string, bool) {
	if r.eof() {
		return "", false
	}
	return r.lines[r.next], true
}

// nonBlank reads the next line that is not blank.
func (r *reader) nonBlank(what string) (string, *parseError) {
	for {
		l, err := r.line(what)
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(l) != "" {
			return l, nil
		}
	}
}

// tilde reads a string ended by '~', which may span lines: the text before
// the tilde, lines joined by newlines. Whatever follows the tilde on its
// line is ignored, as the engine ignores it.
func (r *reader) tilde(what string) (string, *parseError) {
	if r.eof() {
		return "", &parseError{line: len(r.lines), msg: "unexpected end of file; expected " + what}
	}
	start := r.next + 1
	var sb strings.Builder
	for first := true; ; first = false {
		if r.eof() {
			return "", failAt(start, "%s starting here never ends with ~ (the file ends first)", what)
		}
		l := r.lines[r.next]
		r.next++
		if !first && sb.Len() < maxString {
			sb.WriteByte('\n')
		}
		before, _, found := strings.Cut(l, "~")
		if sb.Len() < maxString {
			sb.WriteString(before[:min(len(before), maxString-sb.Len())])
		}
		if found {
			return sb.String(), nil
		}
	}
}

// record reads a "#<vnum>" line. It returns ok false at the end of the
// records: a "$" line, or the end of the file.
func (r *reader) record(kind string) (vnum int, line int, ok bool, err *parseError) {
	for {
		l, ok := r.peek()
		if !ok {
			return 0, 0, false, nil
		}
		t := strings.TrimSpace(l)
		if t == "" {
			r.next++
			continue
		}
		if strings.HasPrefix(t, "$") {
			r.next++
			return 0, 0, false, nil
		}
		r.next++
		if !strings.HasPrefix(t, "#") {
			return 0, r.next, false, r.fail("expected #<vnum> to start a %s, got %q", kind, clip(t))
		}
		n, perr := atoi(strings.TrimSpace(strings.Fields(t[1:] + " x")[0]))
		if perr != nil || n < 0 {
			return 0, r.next, false, r.fail("expected #<vnum> to start a %s, got %q", kind, clip(t))
		}
		return n, r.next, true, nil
	}
}

// skipRecord moves on to the next line that starts a record ('#' or '$'),
// after a record that did not read.
func (r *reader) skipRecord() {
	for !r.eof() {
		t := strings.TrimSpace(r.lines[r.next])
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "$") {
			return
		}
		r.next++
	}
}

// maxVnum bounds a vnum: tbaMUD's room_vnum is 32 bits, and every vnum
// in a real world is far below this.
const maxVnum = 1 << 30

// atoi parses a whole number that fits in 32 bits.
func atoi(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > 1<<31-1 || n < -(1<<31) {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	return int(n), nil
}

// ints reads a line of at least n whole numbers (more are allowed: later
// versions add fields) and returns all the leading numbers on it.
func (r *reader) ints(n int, what string) ([]int, *parseError) {
	l, err := r.nonBlank(what)
	if err != nil {
		return nil, err
	}
	return lineInts(r.next, l, n, what)
}

func lineInts(line int, l string, n int, what string) ([]int, *parseError) {
	var out []int
	for _, f := range strings.Fields(l) {
		v, err := atoi(f)
		if err != nil {
			if len(out) >= n {
				break // a comment after the numbers
			}
			return nil, failAt(line, "expected %s, got %q (%q is not a whole number in range)", what, clip(l), clip(f))
		}
		out = append(out, v)
	}
	if len(out) < n {
		return nil, failAt(line, "expected %s (%d numbers), got %q", what, n, clip(l))
	}
	return out, nil
}

// flags is a bitvector as written: one field in CircleMUD, four 32-bit
// fields in tbaMUD's 128-bit form. Bit i is bit i%32 of field i/32.
type flags [4]uint64

func (f flags) has(bit int) bool { return f[bit/32]&(1<<(bit%32)) != 0 }

// bits lists the bits set, lowest first.
func (f flags) bits() []int {
	var out []int
	for i := range 128 {
		if f.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// parseFlag reads one bitvector field: a number, or letters (a is bit 0,
// z bit 25, A bit 26, Z bit 51), or 0.
func parseFlag(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	if c := s[0]; c == '-' || (c >= '0' && c <= '9') {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(s, 10, 64)
			if uerr != nil {
				return 0, false
			}
			return u, true
		}
		return uint64(n), true
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			v |= 1 << (c - 'a')
		case c >= 'A' && c <= 'Z':
			v |= 1 << (26 + c - 'A')
		default:
			return 0, false
		}
	}
	return v, true
}

// parseFlags reads fields as one bitvector: one field (the old form,
// whose letters past bit 31 spill into the next field) or four.
func parseFlags(fields []string) (flags, bool) {
	var f flags
	for i, s := range fields {
		v, ok := parseFlag(s)
		if !ok {
			return f, false
		}
		if len(fields) == 1 {
			f[0] = v & 0xffffffff
			f[1] = v >> 32
			return f, true
		}
		f[i] = v & 0xffffffff
	}
	return f, true
}

// clip shortens text quoted in a message.
func clip(s string) string {
	if len(s) > 60 {
		s = s[:60]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "..."
	}
	return s
}
