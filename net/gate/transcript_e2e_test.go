package gate_test

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/net/telnet"
	"zonemud/net/telnet/telnettest"
	"zonemud/server/servertest"
)

// TestTranscripts_Server replays the conformance transcripts of net/telnet
// (testdata/transcripts, one client's opening each) against a real server
// over TCP. TestTranscripts in net/telnet replays the same files against the
// codec alone; this one adds the gate: the order in which the session queues
// the opening, the banner and the replies, its writer, and MCCP2.
//
// Checked byte for byte: the opening, which comes before anything else and
// is followed by the banner, and each block's S: bytes, which must be the
// server's whole negotiation in answer to the block's C: bytes. Frames the
// server sends on its own beyond the codec's replies are left out of that
// comparison: GMCP and MSSP frames, the MCCP2 start marker and prompt marks.
// Text (banner, login prompts) is not compared. After each block the test
// sends IAC DO on an option the server does not know and waits for the
// refusal (see sync): it marks where the block's answer ends.
//
// E: and X: lines check the codec's events and state, which the wire does
// not show. The X: keys the wire does show later are checked after the last
// block, by logging in a character: eor and sga by the mark that ends the
// first prompt in the world, utf8 by how the server echoes a non-ASCII say.
func TestTranscripts_Server(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "telnet", "testdata", "transcripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("transcripts: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := telnettest.ParseTranscript(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			srv := servertest.Start(t, nil)
			replayOnWire(t, dialWire(t, srv.TelnetAddr()), tr)
		})
	}
}

// replayOnWire runs one transcript on a fresh connection.
func replayOnWire(t *testing.T, w *wire, tr *telnettest.Transcript) {
	// The opening comes first, then the banner; no other command comes
	// before the banner's text.
	opening := tr.Blocks[0].Server
	w.expect("\n")
	if got := w.stream(len(opening)); !bytes.Equal(got, opening) {
		t.Fatalf("the server opened with\n\t%s\nwant\n\t%s", notation(got), notation(opening))
	}
	if got := w.commandsBefore(1); !bytes.Equal(got, opening) {
		t.Fatalf("before the banner the server sent\n\t%s\nwant the opening alone\n\t%s", notation(got), notation(opening))
	}

	// The state the X: lines leave, for the keys the wire shows later; a
	// key no X: line names keeps the value of a new connection.
	state := map[string]string{"eor": "false", "sga": "false", "utf8": "false"}
	var last int // commands read up to the end of the last block
	for _, b := range tr.Blocks[1:] {
		from := w.commandCount()
		actions := false
		for _, op := range b.Ops {
			if op.Action != "" {
				actions = true
				continue
			}
			w.send(op.Bytes)
		}
		last = w.sync()
		got := negotiation(w.commands(from, last))
		switch {
		case actions:
			// A: lines are server actions (EchoOff, EchoOn around a
			// password prompt) that the wire cannot trigger at the point
			// the transcript puts them, so the S: lines of a block that
			// has them are not checked here; the client's bytes were
			// still sent. The codec replay checks such blocks.
			t.Logf("block at line %d has server actions; not checked: the server sent %s", b.Line, notation(got))
		case !bytes.Equal(got, b.Server):
			t.Errorf("block at line %d: the server sent\n\t%s\nwant\n\t%s", b.Line, notation(got), notation(b.Server))
		}
		for _, kv := range b.Checks {
			key, v, _ := strings.Cut(kv, "=")
			if _, ok := state[key]; ok {
				state[key] = v
			}
		}
	}

	w.login("Replayer", "replay-pass")
	w.expect("Exits:")
	prompt := w.expect("> ")
	done := w.sync()
	var want []byte
	switch {
	case state["eor"] == "true":
		want = []byte{telnet.IAC, telnet.EOR}
	case state["sga"] != "true":
		want = []byte{telnet.IAC, telnet.GA}
	}
	if got := promptMarks(w.commandsAt(prompt, done)); !bytes.Equal(got, want) {
		t.Errorf("with eor=%s sga=%s the prompt ended with %s, want %s", state["eor"], state["sga"], notation(got), notation(want))
	}
	for _, c := range w.commands(last, done) {
		if m := promptMarks([]command{c}); len(m) > 0 && !bytes.Equal(m, want) {
			t.Errorf("with eor=%s sga=%s a login prompt ended with %s, want %s", state["eor"], state["sga"], notation(m), notation(want))
			break
		}
	}

	w.sendLine("say caf\u00e9")
	w.expect("You say, 'caf")
	wantSay := "e'"
	if state["utf8"] == "true" {
		wantSay = "\u00e9'"
	}
	if got := w.expectText("'"); got != wantSay {
		t.Errorf("with utf8=%s the server echoed caf\u00e9 as caf%q, want caf%q", state["utf8"], got, wantSay)
	}
}

// negotiation is the server's negotiation among cmds: all of them except
// what the server sends on its own beyond the codec's replies, GMCP and
// MSSP frames, the MCCP2 start marker and prompt marks.
func negotiation(cmds []command) []byte {
	var b []byte
	for _, c := range cmds {
		switch {
		case isPromptMark(c.b):
		case len(c.b) > 2 && c.b[1] == telnet.SB && (c.b[2] == telnet.OptGMCP || c.b[2] == telnet.OptMSSP):
		case bytes.Equal(c.b, mccpStart):
		default:
			b = append(b, c.b...)
		}
	}
	return b
}

// promptMarks is the prompt marks among cmds.
func promptMarks(cmds []command) []byte {
	var b []byte
	for _, c := range cmds {
		if isPromptMark(c.b) {
			b = append(b, c.b...)
		}
	}
	return b
}

func isPromptMark(c []byte) bool {
	return len(c) == 2 && (c[1] == telnet.GA || c[1] == telnet.EOR)
}

// mccpStart is what the server sends before its output turns into a zlib
// stream.
var mccpStart = []byte{telnet.IAC, telnet.SB, telnet.OptMCCP2, telnet.IAC, telnet.SE}

// wireTimeout bounds each wait for the server; generous, for -race on a
// loaded machine.
const wireTimeout = 10 * time.Second

// Probe options for sync: 100 to 137 are unassigned telnet options the
// server does not know, so it refuses each once.
const (
	firstProbe = 100
	lastProbe  = 137
)

// wire is a raw telnet connection whose reader goroutine undoes MCCP2 and
// splits what the server sends into text and telnet commands. It answers
// no negotiation itself: the transcript does.
type wire struct {
	t     *testing.T
	c     net.Conn
	done  chan struct{} // closed when the reader goroutine has ended
	mark  int           // test goroutine only: expect searches text from here
	probe byte          // test goroutine only: the next option sync uses

	mu   sync.Mutex
	cond *sync.Cond
	all  []byte    // guarded by mu: everything read, decompressed
	text []byte    // guarded by mu: the text in all, without commands or ESC sequences
	cmds []command // guarded by mu: the commands in all, in order
	err  error     // guarded by mu: why reading ended
}

// command is one telnet command from the server.
type command struct {
	b      []byte // as sent: IAC WILL EOR, IAC SB ... IAC SE, IAC GA
	textAt int    // how much text came before it
}

func dialWire(t *testing.T, addr string) *wire {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wireTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	w := &wire{t: t, c: c, done: make(chan struct{}), probe: firstProbe}
	w.cond = sync.NewCond(&w.mu)
	go w.read()
	t.Cleanup(func() {
		c.Close()
		<-w.done
	})
	return w
}

// read is the reader goroutine. It publishes what it parsed whenever the
// next read could block.
func (w *wire) read() {
	defer close(w.done)
	plain := bufio.NewReader(w.c)
	src := plain
	var s splitter
	for {
		c, err := src.ReadByte()
		if err == io.EOF && src != plain {
			src = plain // the compressed stream ended; plain bytes follow
			continue
		}
		if err != nil {
			w.publish(&s, err)
			return
		}
		if s.add(c) {
			// Everything after the marker is one zlib stream. plain is
			// an io.ByteReader, so zlib reads no byte past its end.
			w.publish(&s, nil)
			zr, err := zlib.NewReader(plain)
			if err != nil {
				w.publish(&s, fmt.Errorf("MCCP2 stream: %w", err))
				return
			}
			src = bufio.NewReader(zr)
			continue
		}
		if src.Buffered() == 0 {
			w.publish(&s, nil)
		}
	}
}

func (w *wire) publish(s *splitter, err error) {
	w.mu.Lock()
	w.all = append(w.all, s.all...)
	w.text = append(w.text, s.text...)
	w.cmds = append(w.cmds, s.cmds...)
	if err != nil {
		w.err = err
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	s.all, s.text, s.cmds = s.all[:0], s.text[:0], nil
}

// splitter parses the server's stream; the reader goroutine owns it.
type splitter struct {
	state   uint8
	cmd     []byte // the command being read
	textLen int    // text parsed so far, published or not
	all     []byte // parsed and not yet published
	text    []byte
	cmds    []command
}

const (
	spText  uint8 = iota
	spIAC         // after IAC
	spVerb        // after IAC WILL, WONT, DO or DONT
	spSB          // in a subnegotiation
	spSBIAC       // after IAC in a subnegotiation
	spEsc         // after ESC
	spCSI         // in ESC [ ... up to its final byte
)

// add parses one byte and reports whether it completed the MCCP2 start
// marker.
func (s *splitter) add(c byte) bool {
	s.all = append(s.all, c)
	switch s.state {
	case spText, spEsc, spCSI:
		switch {
		case c == telnet.IAC:
			s.cmd, s.state = []byte{c}, spIAC
		case s.state == spEsc && c == '[':
			s.state = spCSI
		case s.state == spEsc, s.state == spCSI && c >= 0x40 && c <= 0x7e:
			s.state = spText
		case s.state == spCSI:
		case c == 0x1b:
			s.state = spEsc
		default:
			s.text = append(s.text, c)
			s.textLen++
		}
	case spIAC:
		switch c {
		case telnet.IAC:
			s.text = append(s.text, c)
			s.textLen++
			s.state = spText
		case telnet.WILL, telnet.WONT, telnet.DO, telnet.DONT:
			s.cmd, s.state = append(s.cmd, c), spVerb
		case telnet.SB:
			s.cmd, s.state = append(s.cmd, c), spSB
		default:
			s.cmd = append(s.cmd, c)
			s.end()
		}
	case spVerb:
		s.cmd = append(s.cmd, c)
		s.end()
	case spSB:
		s.cmd = append(s.cmd, c)
		if c == telnet.IAC {
			s.state = spSBIAC
		}
	case spSBIAC:
		s.cmd = append(s.cmd, c)
		if c != telnet.SE {
			s.state = spSB
			break
		}
		start := bytes.Equal(s.cmd, mccpStart)
		s.end()
		return start
	}
	return false
}

func (s *splitter) end() {
	s.cmds = append(s.cmds, command{b: s.cmd, textAt: s.textLen})
	s.cmd, s.state = nil, spText
}

// wait waits until ok, called with mu held, reports true; it fails the test
// if the connection ends or wireTimeout passes first.
func (w *wire) wait(what string, ok func() bool) {
	w.t.Helper()
	deadline := time.Now().Add(wireTimeout)
	timer := time.AfterFunc(wireTimeout, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for !ok() {
		if w.err != nil {
			w.t.Fatalf("connection ended waiting for %s: %v; text since the last match: %q", what, w.err, w.text[w.mark:])
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out after %v waiting for %s; text since the last match: %q", wireTimeout, what, w.text[w.mark:])
		}
		w.cond.Wait()
	}
}

func (w *wire) send(p []byte) {
	w.t.Helper()
	_ = w.c.SetWriteDeadline(time.Now().Add(wireTimeout))
	if _, err := w.c.Write(p); err != nil {
		w.t.Fatalf("send %s: %v", notation(p), err)
	}
}

func (w *wire) sendLine(s string) { w.t.Helper(); w.send([]byte(s + "\r\n")) }

// expect waits for want in the text after the mark, moves the mark past it
// and returns where the mark is now.
func (w *wire) expect(want string) int {
	w.t.Helper()
	w.expectText(want)
	return w.mark
}

// expectText is expect returning the text from the old mark to the new.
func (w *wire) expectText(want string) string {
	w.t.Helper()
	var got string
	w.wait(strconv.Quote(want), func() bool {
		i := bytes.Index(w.text[w.mark:], []byte(want))
		if i < 0 {
			return false
		}
		got = string(w.text[w.mark : w.mark+i+len(want)])
		w.mark += i + len(want)
		return true
	})
	return got
}

// stream waits for the first n bytes of the (decompressed) stream.
func (w *wire) stream(n int) []byte {
	w.t.Helper()
	var b []byte
	w.wait(fmt.Sprintf("%d bytes", n), func() bool {
		if len(w.all) < n {
			return false
		}
		b = append(b, w.all[:n]...)
		return true
	})
	return b
}

// sync sends IAC DO on a fresh probe option and waits for the server's
// refusal, so that a block that must draw nothing is seen to draw nothing.
// The session's reader queues the codec's replies, and what each event
// draws (an MSSP frame, the MCCP2 start), before it decodes further bytes,
// so everything the bytes sent earlier drew is in front of the refusal. It
// returns the refusal's index among the commands.
func (w *wire) sync() int {
	w.t.Helper()
	if w.probe > lastProbe {
		w.t.Fatal("out of probe options")
	}
	opt := w.probe
	w.probe++
	w.send([]byte{telnet.IAC, telnet.DO, opt})
	want := []byte{telnet.IAC, telnet.WONT, opt}
	i := -1
	w.wait("the refusal of "+notation(want[1:]), func() bool {
		for j, c := range w.cmds {
			if bytes.Equal(c.b, want) {
				i = j
				return true
			}
		}
		return false
	})
	return i
}

// commandCount is how many commands have been read.
func (w *wire) commandCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.cmds)
}

// commands returns the commands from index from up to, not including, to.
func (w *wire) commands(from, to int) []command {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]command(nil), w.cmds[from:to]...)
}

// commandsAt returns the commands before index to that came right after
// the first at bytes of text.
func (w *wire) commandsAt(at, to int) []command {
	var got []command
	for _, c := range w.commands(0, to) {
		if c.textAt == at {
			got = append(got, c)
		}
	}
	return got
}

// commandsBefore returns the bytes of every command read before the first
// n bytes of text ended.
func (w *wire) commandsBefore(n int) []byte {
	var b []byte
	for _, c := range w.commands(0, w.commandCount()) {
		if c.textAt < n {
			b = append(b, c.b...)
		}
	}
	return b
}

// login creates a character, starting wherever the transcript left the
// login dialogue: at the name prompt, or at the question whether a name a
// transcript line typed is right, which it declines. The server's login
// asks with a line containing "name", then "(y/n)", then "password", then
// "again" (the gate's package doc).
func (w *wire) login(name, password string) {
	w.t.Helper()
	w.mu.Lock()
	text := string(w.text)
	w.mu.Unlock()
	yn, nm := strings.LastIndex(text, "(y/n)"), strings.LastIndex(text, "name")
	switch {
	case yn > nm:
		w.mark = yn + len("(y/n)")
		w.sendLine("n")
	case nm >= 0:
		w.mark = nm
	}
	w.expect("name")
	w.sendLine(name)
	w.expect("(y/n)")
	w.sendLine("y")
	w.expect("password")
	w.sendLine(password)
	w.expect("again")
	w.sendLine(password)
}

// notation writes bytes in the transcripts' notation, for readable
// failures.
func notation(p []byte) string {
	cmds := map[byte]string{telnet.WILL: "WILL", telnet.WONT: "WONT", telnet.DO: "DO", telnet.DONT: "DONT",
		telnet.SB: "SB", telnet.SE: "SE", telnet.GA: "GA", telnet.EOR: "EOR_CMD", telnet.IAC: "IAC", telnet.NOP: "NOP"}
	opts := map[byte]string{telnet.OptEcho: "ECHO", telnet.OptSGA: "SGA", telnet.OptTTYPE: "TTYPE", telnet.OptEOR: "EOR",
		telnet.OptNAWS: "NAWS", telnet.OptCharset: "CHARSET", telnet.OptMSSP: "MSSP", telnet.OptMCCP2: "MCCP2", telnet.OptGMCP: "GMCP"}
	subCodes := map[byte]map[byte]string{
		telnet.OptTTYPE:   {0: "IS", 1: "SEND"},
		telnet.OptCharset: {1: "REQUEST", 2: "ACCEPTED", 3: "REJECTED", 4: "TTABLE_IS", 5: "TTABLE_REJECTED"},
	}
	if len(p) == 0 {
		return "nothing"
	}
	var parts []string
	var text []byte
	flush := func() {
		if len(text) > 0 {
			parts = append(parts, strconv.Quote(string(text)))
			text = nil
		}
	}
	name := func(m map[byte]string, c byte) string {
		if n, ok := m[c]; ok {
			return n
		}
		return fmt.Sprintf("0x%02x", c)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == telnet.IAC:
			flush()
			parts = append(parts, "IAC")
			if i+1 < len(p) {
				i++
				parts = append(parts, name(cmds, p[i]))
				if v := p[i]; (v == telnet.WILL || v == telnet.WONT || v == telnet.DO || v == telnet.DONT || v == telnet.SB) && i+1 < len(p) {
					i++
					parts = append(parts, name(opts, p[i]))
					if codes := subCodes[p[i]]; v == telnet.SB && codes != nil && i+1 < len(p) {
						i++
						parts = append(parts, name(codes, p[i]))
					}
				}
			}
		case c >= 0x20 && c < 0x7f:
			text = append(text, c)
		default:
			flush()
			parts = append(parts, fmt.Sprintf("0x%02x", c))
		}
	}
	flush()
	return strings.Join(parts, " ")
}
