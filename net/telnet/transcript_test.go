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

	"zonemud/internal/markup"
	"zonemud/net/telnet/telnettest"
)

// block is a transcript block as the replay and the fuzz seeds read it; see
// testdata/transcripts/README.md.
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

// parseTranscript reads a transcript with telnettest, the parser the
// end-to-end replay against the server shares.
func parseTranscript(text string) ([]block, error) {
	tr, err := telnettest.ParseTranscript(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	blocks := make([]block, 0, len(tr.Blocks))
	for _, b := range tr.Blocks {
		ops := make([]tOp, 0, len(b.Ops))
		for _, op := range b.Ops {
			ops = append(ops, tOp{action: op.Action, bytes: op.Bytes})
		}
		blocks = append(blocks, block{line: b.Line, ops: ops, server: b.Server,
			events: b.Events, hasEvents: b.HasEvents, checks: b.Checks})
	}
	return blocks, nil
}

// The notation's names are telnettest's own (it cannot import this
// package); they must stay the values of this package's constants.
func TestTranscripts_NotationNames(t *testing.T) {
	want := map[string]byte{
		"IAC": IAC, "DONT": DONT, "DO": DO, "WONT": WONT, "WILL": WILL, "SB": SB, "SE": SE,
		"GA": GA, "EL": EL, "EC": EC, "AYT": AYT, "AO": AO, "IP": IP, "BRK": BRK, "DM": DM, "NOP": NOP,
		"EOR_CMD": EOR,
		"ECHO":    OptEcho, "SGA": OptSGA, "TTYPE": OptTTYPE, "EOR": OptEOR, "NAWS": OptNAWS,
		"NEW_ENVIRON": OptNewEnviron, "CHARSET": OptCharset, "MSDP": OptMSDP, "MSSP": OptMSSP,
		"MCCP2": OptMCCP2, "MCCP3": OptMCCP3, "MXP": OptMXP, "GMCP": OptGMCP,
		"IS": ttypeIS, "SEND": ttypeSEND,
		"REQUEST": csRequest, "ACCEPTED": csAccepted, "REJECTED": csRejected,
		"TTABLE_IS": csTTableIs, "TTABLE_REJECTED": csTTableRejected,
		"MSSP_VAR": msspVar, "MSSP_VAL": msspVal,
	}
	if got := telnettest.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("telnettest.Names() = %v, want %v", got, want)
	}
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
		got = transcriptColor[o.ColorLevel()]
	default:
		return fmt.Errorf("unknown check %q", key)
	}
	if got != want {
		return fmt.Errorf("%s = %s, want %s", key, got, want)
	}
	return nil
}

// transcriptColor is how the transcripts spell each colour level (their
// README): the names of the MTTS levels, not the `color` command's.
var transcriptColor = map[markup.Level]string{
	markup.None: "none", markup.Color16: "ansi16", markup.Color256: "ansi256", markup.TrueColor: "truecolor",
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
