package telnettest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// Transcript is the opening of one client's session with the server.
type Transcript struct {
	// Blocks are the exchanges in order. Blocks[0] has no Ops: its Server
	// bytes are the server's opening negotiation.
	Blocks []Block
}

// Block is one exchange: what the client sends (and the server does), and
// what must follow.
type Block struct {
	Line      int      // the line the block starts on, for messages
	Ops       []Op     // C: and A: lines, in order
	Server    []byte   // S: lines: every reply the block must draw, in order
	Events    []string // E: lines, as written: `Line "look"`, `Resize 80x24`
	HasEvents bool     // the block has E: lines; without them events are not checked
	Checks    []string // X: lines split into key=value fields; a quoted value stays quoted
}

// Op is a C: line, client bytes, or an A: line, a server action and the
// bytes it must return.
type Op struct {
	Action string // "" for client bytes, else "EchoOff" or "EchoOn"
	Bytes  []byte
}

// ParseTranscript reads a transcript in the format of
// net/telnet/testdata/transcripts/README.md.
func ParseTranscript(r io.Reader) (*Transcript, error) {
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("telnettest: read transcript: %w", err)
	}
	blocks := []Block{{Line: 1}}
	for n, raw := range strings.Split(string(text), "\n") {
		ln := strings.TrimSpace(raw)
		if ln == "" || ln[0] == '#' {
			continue
		}
		kind, rest, ok := strings.Cut(ln, ":")
		if !ok {
			return nil, fmt.Errorf("telnettest: line %d: no directive in %q", n+1, ln)
		}
		rest = strings.TrimSpace(rest)
		cur := &blocks[len(blocks)-1]
		switch kind {
		case "C", "A":
			if len(blocks) == 1 || len(cur.Server) > 0 || cur.HasEvents || len(cur.Checks) > 0 {
				blocks = append(blocks, Block{Line: n + 1})
				cur = &blocks[len(blocks)-1]
			}
			var op Op
			if kind == "A" {
				op.Action, rest, _ = strings.Cut(rest, " ")
				if op.Action != "EchoOff" && op.Action != "EchoOn" {
					return nil, fmt.Errorf("telnettest: line %d: unknown action %q", n+1, op.Action)
				}
			}
			b, err := parseBytes(rest)
			if err != nil {
				return nil, fmt.Errorf("telnettest: line %d: %w", n+1, err)
			}
			op.Bytes = b
			cur.Ops = append(cur.Ops, op)
		case "S":
			b, err := parseBytes(rest)
			if err != nil {
				return nil, fmt.Errorf("telnettest: line %d: %w", n+1, err)
			}
			cur.Server = append(cur.Server, b...)
		case "E":
			cur.HasEvents = true
			if rest != "" {
				cur.Events = append(cur.Events, rest)
			}
		case "X":
			fields, err := splitChecks(rest)
			if err != nil {
				return nil, fmt.Errorf("telnettest: line %d: %w", n+1, err)
			}
			cur.Checks = append(cur.Checks, fields...)
		default:
			return nil, fmt.Errorf("telnettest: line %d: unknown directive %q", n+1, kind)
		}
	}
	return &Transcript{Blocks: blocks}, nil
}

// splitChecks splits an X: line at white space, except inside a Go-quoted
// value: `terminal="ANSI 256"` is one field.
func splitChecks(s string) ([]string, error) {
	var fields []string
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return fields, nil
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		if i := strings.IndexByte(s, '"'); i >= 0 && i < end {
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return nil, fmt.Errorf("bad quoted value in %q: %w", s, err)
			}
			end = i + len(q)
			if end < len(s) && !unicode.IsSpace(rune(s[end])) {
				return nil, fmt.Errorf("text after the quoted value in %q", s)
			}
		}
		fields = append(fields, s[:end])
		s = s[end:]
	}
}
