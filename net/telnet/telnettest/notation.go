package telnettest

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"unicode"
)

// names are the names the notation knows: telnet commands, options and
// subnegotiation codes. EOR is the option; EOR_CMD the command.
var names = map[string]byte{
	"IAC": 255, "DONT": 254, "DO": 253, "WONT": 252, "WILL": 251, "SB": 250, "GA": 249,
	"EL": 248, "EC": 247, "AYT": 246, "AO": 245, "IP": 244, "BRK": 243, "DM": 242,
	"NOP": 241, "SE": 240, "EOR_CMD": 239,

	"ECHO": 1, "SGA": 3, "TTYPE": 24, "EOR": 25, "NAWS": 31, "NEW_ENVIRON": 39,
	"CHARSET": 42, "MSDP": 69, "MSSP": 70, "MCCP2": 86, "MCCP3": 87, "MXP": 91,
	"GMCP": 201,

	"IS": 0, "SEND": 1, // TTYPE
	"REQUEST": 1, "ACCEPTED": 2, "REJECTED": 3, "TTABLE_IS": 4, "TTABLE_REJECTED": 5, // CHARSET
	"MSSP_VAR": 1, "MSSP_VAL": 2, // MSSP
}

// Names returns a copy of the names the notation knows and their bytes.
func Names() map[string]byte { return maps.Clone(names) }

// ParseBytes reads the byte notation: names (see Names), hex bytes as 0xNN
// and Go-quoted strings, separated by white space.
func ParseBytes(s string) ([]byte, error) {
	b, err := parseBytes(s)
	if err != nil {
		return nil, fmt.Errorf("telnettest: %w", err)
	}
	return b, nil
}

func parseBytes(s string) ([]byte, error) {
	var b []byte
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return b, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad string at %q: %w", s, err)
			}
			v, _ := strconv.Unquote(q)
			b = append(b, v...)
			s = s[len(q):]
			continue
		}
		tok := s
		if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
			tok = s[:i]
		}
		s = s[len(tok):]
		if v, ok := names[tok]; ok {
			b = append(b, v)
			continue
		}
		if strings.HasPrefix(tok, "0x") && len(tok) == 4 {
			if v, err := strconv.ParseUint(tok[2:], 16, 8); err == nil {
				b = append(b, byte(v))
				continue
			}
		}
		return nil, fmt.Errorf("unknown token %q", tok)
	}
}
