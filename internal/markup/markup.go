package markup

import (
	"strconv"
	"strings"
)

// Level is how much colour a client renders. The zero value renders none.
type Level uint8

// The colour levels, from none to 24-bit.
const (
	None Level = iota
	Color16
	Color256
	TrueColor
)

// Levels are the levels from none to 24-bit, for walking them all.
var Levels = [...]Level{None, Color16, Color256, TrueColor}

// Valid reports whether l is one of the levels (a level read off a wire
// or a record may not be).
func (l Level) Valid() bool { return l <= TrueColor }

// String names the level as the `color` command takes it: off, 16, 256,
// truecolor.
func (l Level) String() string {
	switch l {
	case Color16:
		return "16"
	case Color256:
		return "256"
	case TrueColor:
		return "truecolor"
	}
	return "off"
}

// Parse reads what a player types after `color` (and what String wrote
// into a character's settings).
func Parse(s string) (Level, bool) {
	switch strings.ToLower(s) {
	case "off", "none", "0", "no":
		return None, true
	case "16", "ansi", "on", "yes":
		return Color16, true
	case "256", "xterm":
		return Color256, true
	case "truecolor", "true", "24bit", "24":
		return TrueColor, true
	}
	return None, false
}

// rgb values of the 16 named colours (xterm defaults), dark then bright.
var named = map[byte]struct {
	sgr int
	rgb [3]uint8
}{
	'k': {30, [3]uint8{0, 0, 0}}, 'r': {31, [3]uint8{205, 0, 0}}, 'g': {32, [3]uint8{0, 205, 0}},
	'y': {33, [3]uint8{205, 205, 0}}, 'b': {34, [3]uint8{0, 0, 238}}, 'm': {35, [3]uint8{205, 0, 205}},
	'c': {36, [3]uint8{0, 205, 205}}, 'w': {37, [3]uint8{229, 229, 229}},
	'K': {90, [3]uint8{127, 127, 127}}, 'R': {91, [3]uint8{255, 0, 0}}, 'G': {92, [3]uint8{0, 255, 0}},
	'Y': {93, [3]uint8{255, 255, 0}}, 'B': {94, [3]uint8{92, 92, 255}}, 'M': {95, [3]uint8{255, 0, 255}},
	'C': {96, [3]uint8{0, 255, 255}}, 'W': {97, [3]uint8{255, 255, 255}},
}

// namedSGRByCode is the escape sequence of each named colour by its code
// letter ("" for a byte that names none): rendering a named colour, the
// commonest code by far, is one index.
var namedSGRByCode = func() [256]string {
	var t [256]string
	for c, n := range named {
		t[c] = "\x1b[" + strconv.Itoa(n.sgr) + "m"
	}
	return t
}()

// Escape makes player-supplied text safe to put inside markup: every
// brace is doubled so it renders as itself, and control characters other
// than tab become spaces, so no one can send another player colour codes or
// terminal escape sequences.
func Escape(s string) string {
	if !strings.ContainsAny(s, "{") && !hasControl(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '{':
			b.WriteString("{{")
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			// C0, DEL, C1 and bidi overrides: never shown to others.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return true
		}
	}
	return false
}

// Strip removes every colour code and undoes {{ escapes.
func Strip(s string) string { return string(Render(nil, s, None)) }

// Render appends s to dst with its codes turned into ANSI SGR
// sequences for the given level (or removed for None). Output that
// changed colour ends with a reset so colour never bleeds into the next line.
// It takes a string or a byte slice, so a session's writer renders its queue
// without copying it into a string first.
func Render[S ~string | ~[]byte](dst []byte, s S, level Level) []byte {
	coloured := false
	for i := 0; i < len(s); {
		c := s[i]
		if c != '{' {
			j := indexByte(s[i:], '{')
			if j < 0 {
				dst = append(dst, s[i:]...)
				break
			}
			dst = append(dst, s[i:i+j]...)
			i += j
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			dst = append(dst, '{')
			i += 2
			continue
		}
		end := indexByte(s[i:min(len(s), i+10)], '}')
		if end < 2 || end > 8 {
			dst = append(dst, '{')
			i++
			continue
		}
		var codeBuf [8]byte
		code := codeBuf[:copy(codeBuf[:], s[i+1:i+end])]
		sgr, ok := codeSGR(string(code), level)
		if !ok {
			dst = append(dst, '{')
			i++
			continue
		}
		i += end + 1
		if level == None {
			continue
		}
		dst = append(dst, sgr...)
		coloured = string(code) != "x"
	}
	if coloured {
		dst = append(dst, "\x1b[0m"...)
	}
	return dst
}

func indexByte[S ~string | ~[]byte](s S, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// codeSGR turns one code into its escape sequence at a level. ok is false
// when code is not a colour code at all.
func codeSGR(code string, level Level) (string, bool) {
	if code == "x" {
		return "\x1b[0m", true
	}
	var rgb [3]uint8
	if len(code) == 1 {
		sgr := namedSGRByCode[code[0]]
		if sgr == "" {
			return "", false
		}
		if level == Color16 || level == Color256 || level == TrueColor {
			// Named colours look the same on every level: the client's own
			// palette is what players chose.
			return sgr, true
		}
		return "", true
	}
	if len(code) != 7 || code[0] != '#' {
		return "", false
	}
	v, err := strconv.ParseUint(code[1:], 16, 32)
	if err != nil {
		return "", false
	}
	rgb = [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
	switch level {
	case TrueColor:
		return "\x1b[38;2;" + strconv.Itoa(int(rgb[0])) + ";" + strconv.Itoa(int(rgb[1])) + ";" + strconv.Itoa(int(rgb[2])) + "m", true
	case Color256:
		return "\x1b[38;5;" + strconv.Itoa(to256(rgb)) + "m", true
	case Color16:
		return "\x1b[" + strconv.Itoa(to16(rgb)) + "m", true
	}
	return "", true
}

// to256 maps a colour to the xterm 6x6x6 cube or the grey ramp.
func to256(c [3]uint8) int {
	if c[0] == c[1] && c[1] == c[2] {
		g := int(c[0])
		switch {
		case g < 8:
			return 16
		case g > 248:
			return 231
		}
		return 232 + (g-8)*24/241
	}
	q := func(v uint8) int {
		if v < 48 {
			return 0
		}
		if v < 115 {
			return 1
		}
		return (int(v) - 35) / 40
	}
	return 16 + 36*q(c[0]) + 6*q(c[1]) + q(c[2])
}

// to16 picks the nearest of the 16 named colours.
func to16(c [3]uint8) int {
	best, bestD := 37, 1<<31-1
	for _, n := range named {
		dr, dg, db := int(c[0])-int(n.rgb[0]), int(c[1])-int(n.rgb[1]), int(c[2])-int(n.rgb[2])
		if d := dr*dr + dg*dg + db*db; d < bestD || d == bestD && n.sgr < best {
			best, bestD = n.sgr, d
		}
	}
	return best
}
