package prompt

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen caps a format, in runes.
const MaxLen = 120

// Token is one % letter and what it shows.
type Token struct {
	Letter byte
	Shows  string
}

// Tokens are the letters a format may use, in the order help lists them.
var Tokens = []Token{
	{'h', "hit points"},
	{'H', "most hit points"},
	{'m', "mana"},
	{'M', "most mana"},
	{'v', "moves"},
	{'V', "most moves"},
	{'x', "experience still to gain for the next level"},
	{'X', "experience"},
	{'g', "gold carried"},
	{'r', "the room's name"},
	{'e', "the ways out, short (n e [s] for a closed door south)"},
	{'c', "the condition of whoever you fight (nothing out of a fight)"},
	{'%', "a percent sign"},
}

// known reports whether letter is a token.
func known(letter byte) bool {
	for _, t := range Tokens {
		if t.Letter == letter {
			return true
		}
	}
	return false
}

// A Source answers the value of a token letter (never '%').
type Source interface {
	Value(letter byte) string
}

// ErrControl is Check's refusal of control characters.
var ErrControl = errors.New("a prompt is one line of plain text: no control characters or escape codes")

// Check says whether format may be a prompt: nil, or a refusal a player
// can read.
func Check(format string) error {
	if !utf8.ValidString(format) {
		return ErrControl
	}
	if n := utf8.RuneCountInString(format); n > MaxLen {
		return fmt.Errorf("a prompt is at most %d characters; that one is %d", MaxLen, n)
	}
	for _, r := range format {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return ErrControl
		}
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i+1 == len(format) {
			return errors.New("a % at the end names no token (%% is a percent sign)")
		}
		if !known(format[i+1]) {
			r, _ := utf8.DecodeRuneInString(format[i+1:])
			return fmt.Errorf("%%%c is not a token: type prompt alone for the list", r)
		}
		i++
	}
	return nil
}

// Render appends the prompt format makes with src's values to dst. The
// format should have passed Check; an unknown token is shown as typed.
func Render(dst []byte, format string, src Source) []byte {
	start := len(dst)
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' || i+1 == len(format) {
			dst = append(dst, ch)
			continue
		}
		i++
		switch l := format[i]; {
		case l == '%':
			dst = append(dst, '%')
		case known(l):
			dst = append(dst, src.Value(l)...)
		default:
			dst = append(dst, '%', l)
		}
	}
	// The line ends with "> ", after any colour reset, so that its last
	// bytes are "> " on the wire too.
	body := dst[start:]
	trimmed := strings.TrimRight(string(body), " ")
	tail := " > "
	switch {
	case strings.HasSuffix(trimmed, ">"):
		body, tail = body[:len(trimmed)-1], "> "
	case len(trimmed) < len(body) || len(trimmed) == 0:
		tail = "> "
	}
	dst = dst[:start+len(body)]
	if strings.IndexByte(string(dst[start:]), '{') >= 0 {
		dst = append(dst, "{x}"...)
	}
	return append(dst, tail...)
}

// Condition is the Diku word for how hurt someone is at hp of most.
func Condition(hp, most int) string {
	if most <= 0 {
		most = 1
	}
	pct := hp * 100 / most
	switch {
	case pct >= 100:
		return "excellent"
	case pct >= 90:
		return "a few scratches"
	case pct >= 75:
		return "small wounds"
	case pct >= 50:
		return "quite a few wounds"
	case pct >= 30:
		return "big nasty wounds"
	case pct >= 15:
		return "pretty hurt"
	case pct > 0:
		return "awful"
	}
	return "bleeding, close to death"
}
