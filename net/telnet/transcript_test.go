package telnet

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// A transcript is a list of blocks; see testdata/transcripts/README.md.
type block struct {
	line      int    // where the block starts, for messages
	ops       []tOp  // client bytes and server actions, in order
	server    []byte // every reply the block must draw
	events    []string
	hasEvents bool
	checks    []string // key=value
}

type tOp struct {
	action string // "", "EchoOff" or "EchoOn"
	bytes  []byte // client bytes, or what the action must return
}

func parseTranscript(text string) ([]block, error) {
	blocks := []block{{line: 1}}
	for n, raw := range strings.Split(text, "\n") {
		ln := strings.TrimSpace(raw)
		if ln == "" || ln[0] == '#' {
			continue
		}
		kind, rest, ok := strings.Cut(ln, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: no directive in %q", n+1, ln)
		}
		rest = strings.TrimSpace(rest)
		cur := &blocks[len(blocks)-1]
		switch kind {
		case "C", "A":
			if len(blocks) == 1 || len(cur.server) > 0 || cur.hasEvents || len(cur.checks) > 0 {
				blocks = append(blocks, block{line: n + 1})
				cur = &blocks[len(blocks)-1]
			}
			var op tOp
			if kind == "A" {
				op.action, rest, _ = strings.Cut(rest, " ")
				if op.action != "EchoOff" && op.action != "EchoOn" {
					return nil, fmt.Errorf("line %d: unknown action %q", n+1, op.action)
				}
			}
			b, err := parseBytes(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			op.bytes = b
			cur.ops = append(cur.ops, op)
		case "S":
			b, err := parseBytes(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			cur.server = append(cur.server, b...)
		case "E":
			cur.hasEvents = true
			if rest != "" {
				cur.events = append(cur.events, rest)
			}
		case "X":
			cur.checks = append(cur.checks, strings.Fields(rest)...)
		default:
			return nil, fmt.Errorf("line %d: unknown directive %q", n+1, kind)
		}
	}
	return blocks, nil
}

// checkState compares one key=value with the negotiated state.
func checkState(o *Options, kv string) error {
	key, want, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("check %q is not key=value", kv)
	}
	if strings.HasPrefix(want, `"`) {
		s, err := strconv.Unquote(want)
		if err != nil {
			return fmt.Errorf("check %q: %w", kv, err)
		}
		want = s
	}
	info := o.Client()
	w, h := o.Size()
	var got string
	switch key {
	case "eor":
		got = strconv.FormatBool(o.EOR())
	case "sga":
		got = strconv.FormatBool(o.SGA())
	case "gmcp":
		got = strconv.FormatBool(o.GMCP())
	case "mccp2":
		got = strconv.FormatBool(o.MCCP2())
	case "utf8":
		got = strconv.FormatBool(o.UTF8())
	case "done":
		got = strconv.FormatBool(info.Done)
	case "screenreader":
		got = strconv.FormatBool(o.ScreenReader())
	case "size":
		got = fmt.Sprintf("%dx%d", w, h)
	case "name":
		got = info.Name
	case "terminal":
		got = info.Terminal
	case "mtts":
		got = strconv.Itoa(info.MTTS)
	case "color":
		got = o.ColorLevel().String()
	default:
		return fmt.Errorf("unknown check %q", key)
	}
	if got != want {
		return fmt.Errorf("%s = %s, want %s", key, got, want)
	}
	return nil
}

// replay runs a transcript; byByte feeds the client bytes one at a time.
func replay(t *testing.T, blocks []block, byByte bool) {
	t.Helper()
	c := newConn(DefaultConfig())
	for i, b := range blocks {
		var replies []byte
		var evs []Event
		if i == 0 {
			replies = c.o.Start()
		}
		for _, op := range b.ops {
			switch op.action {
			case "EchoOff", "EchoOn":
				out := c.o.EchoOff
				if op.action == "EchoOn" {
					out = c.o.EchoOn
				}
				if got := out(); !bytes.Equal(got, op.bytes) {
					t.Errorf("line %d: %s returned %s, want %s", b.line, op.action, describeBytes(got), describeBytes(op.bytes))
				}
				continue
			}
			chunks := [][]byte{op.bytes}
			if byByte {
				chunks = nil
				for j := range op.bytes {
					chunks = append(chunks, op.bytes[j:j+1])
				}
			}
			for _, ch := range chunks {
				e, r := c.send(ch)
				evs = append(evs, e...)
				replies = append(replies, r...)
			}
		}
		if !bytes.Equal(replies, b.server) {
			t.Errorf("block at line %d: server sent\n\t%s\nwant\n\t%s", b.line, describeBytes(replies), describeBytes(b.server))
		}
		if b.hasEvents && !reflect.DeepEqual(shorts(evs), b.events) {
			t.Errorf("block at line %d: events %q, want %q", b.line, shorts(evs), b.events)
		}
		for _, kv := range b.checks {
			if err := checkState(c.o, kv); err != nil {
				t.Errorf("block at line %d: %v", b.line, err)
			}
		}
	}
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txt"))
	if err != nil || len(files) < 6 {
		t.Fatalf("transcripts: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := parseTranscript(string(text))
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) < 2 {
				t.Fatalf("%d blocks", len(blocks))
			}
			replay(t, blocks, false)
			replay(t, blocks, true)
		})
	}
}
