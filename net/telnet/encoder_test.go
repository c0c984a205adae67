package telnet

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"strings"
	"testing"
)

// newEncoder returns an encoder over a buffer with UTF8 set as given.
func newEncoder(utf bool) (*Encoder, *Options, *bytes.Buffer) {
	o := NewOptions(DefaultConfig())
	o.utf8.Store(utf)
	var buf bytes.Buffer
	return NewEncoder(&buf, o), o, &buf
}

func TestEncoder_WriteText(t *testing.T) {
	cases := []struct {
		name string
		utf8 bool
		in   []string // successive WriteText calls
		want string
	}{
		{"LF to CR LF", true, []string{"a\nb\n\n"}, "a\r\nb\r\n\r\n"},
		{"CR LF kept", true, []string{"a\r\nb"}, "a\r\nb"},
		{"CR LF across calls", true, []string{"a\r", "\nb"}, "a\r\nb"},
		{"CR CR LF kept", true, []string{"\r\r\n"}, "\r\r\n"},
		{"lone CR kept", true, []string{"a\rb"}, "a\rb"},
		{"ANSI passes", false, []string{"\x1b[1;31mred\x1b[0m"}, "\x1b[1;31mred\x1b[0m"},
		{"UTF-8 passes, 0xFF doubled", true, []string{"café \xff!"}, "café \xff\xff!"},
		{"0xFF in ASCII mode", false, []string{"a\xffb"}, "a?b"},
		{"accents folded", false, []string{"café naïve Ærø Straße Œuvre Łódź"}, "cafe naive AEro Strasse OEuvre Lodz"},
		{"punctuation folded", false, []string{"“quoted” ‘single’ a—b – c… «x» ©"}, `"quoted" 'single' a-b - c... <<x>> (c)`},
		{"combining marks dropped", false, []string{"e\u0301te\u0301"}, "ete"},
		{"no fold becomes ?", false, []string{"日本 ☃ ok"}, "?? ? ok"},
		{"invalid UTF-8 in ASCII mode", false, []string{"a\xc3(b\xe2\x82"}, "a?(b??"},
		{"non-breaking space", false, []string{"a\u00a0b"}, "a b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, _, buf := newEncoder(tc.utf8)
			for _, s := range tc.in {
				if err := e.WriteText([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEncoder_LongText(t *testing.T) {
	e, _, buf := newEncoder(false)
	in := strings.Repeat("line ü\n", 3000)
	if err := e.WriteText([]byte(in)); err != nil {
		t.Fatal(err)
	}
	e.Flush()
	if want := strings.Repeat("line u\r\n", 3000); buf.String() != want {
		t.Errorf("got %d bytes, want %d", buf.Len(), len(want))
	}
	if e.buf != nil {
		t.Errorf("a %d-byte buffer kept after Flush", cap(e.buf))
	}
}

// countWriter counts the writes that reach it.
type countWriter struct {
	bytes.Buffer
	writes int
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// A burst of text, prompts and control bytes reaches the connection in one
// write, and the encoder keeps no buffer between bursts.
func TestEncoder_OneWritePerFlush(t *testing.T) {
	o := NewOptions(DefaultConfig())
	var w countWriter
	e := NewEncoder(&w, o)
	for range 50 {
		e.WriteText([]byte("Somebody says, 'hello'\n"))
	}
	e.WriteRaw([]byte{IAC, NOP})
	e.WritePrompt([]byte("> "))
	if w.writes != 0 {
		t.Fatalf("%d writes before Flush", w.writes)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 {
		t.Fatalf("%d writes for one burst, want 1", w.writes)
	}
	if !strings.HasPrefix(w.String(), "Somebody says, 'hello'\r\nSomebody") || !strings.Contains(w.String(), "\xff\xf1> ") {
		t.Fatalf("burst: %q", w.String())
	}
	if e.buf != nil {
		t.Fatal("the encoder kept its buffer after Flush")
	}
	e.Flush()
	if w.writes != 1 {
		t.Fatal("an empty Flush wrote")
	}
	// A burst past maxPending goes on as it grows, in pieces of at least
	// maxPending bytes.
	w.writes = 0
	big := bytes.Repeat([]byte("x"), 1000)
	for range 3 * maxPending / 1000 {
		e.WriteText(big)
	}
	e.Flush()
	if w.writes < 2 || w.writes > 4 {
		t.Fatalf("%d writes for a %d-byte burst", w.writes, 3*maxPending)
	}
}

func TestEncoder_FoldTables(t *testing.T) {
	if len(latin1Fold) != 0x40 || len(extAFold) != 0x80 {
		t.Fatalf("fold tables of %d and %d entries, want 64 and 128", len(latin1Fold), len(extAFold))
	}
	for r := rune(0x80); r < 0x180; r++ {
		b := appendASCII(nil, r)
		for _, c := range b {
			if c >= 0x80 {
				t.Errorf("%U folds to %q, not ASCII", r, b)
			}
		}
	}
}

func TestEncoder_WritePrompt(t *testing.T) {
	cases := []struct {
		name, client, want string
	}{
		{"EOR agreed", "IAC DO EOR", `"> " IAC EOR_CMD`},
		{"no EOR, no SGA", "", `"> " IAC GA`},
		{"SGA agreed", "IAC DO SGA", `"> "`},
		{"EOR and SGA", "IAC DO SGA IAC DO EOR", `"> " IAC EOR_CMD`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(DefaultConfig())
			c.o.Start()
			c.send(bs(t, tc.client))
			var buf bytes.Buffer
			e := NewEncoder(&buf, c.o)
			if err := e.WritePrompt([]byte("> ")); err != nil {
				t.Fatal(err)
			}
			e.Flush()
			if want := bs(t, tc.want); !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("got %s, want %s", describeBytes(buf.Bytes()), describeBytes(want))
			}
		})
	}
}

func TestGMCPFrame(t *testing.T) {
	got := GMCPFrame("Char.Name", []byte("{\"name\":\"\xff\"}"))
	want := bs(t, `IAC SB GMCP "Char.Name {\"name\":\"" IAC IAC "\"}" IAC SE`)
	if !bytes.Equal(got, want) {
		t.Errorf("got %s, want %s", describeBytes(got), describeBytes(want))
	}
	if got, want := GMCPFrame("Core.Ping", nil), bs(t, `IAC SB GMCP "Core.Ping" IAC SE`); !bytes.Equal(got, want) {
		t.Errorf("got %s, want %s", describeBytes(got), describeBytes(want))
	}
	// The frame decodes back to the message.
	c := newConn(DefaultConfig())
	c.o.Start()
	c.send(bs(t, "IAC DO GMCP"))
	evs, _ := c.send(GMCPFrame("Room.Info", []byte("{\"name\":\"\xff\xff\"}")))
	if len(evs) != 1 || evs[0].(GMCPMessage).Package != "Room.Info" || string(evs[0].(GMCPMessage).Data) != "{\"name\":\"\xff\xff\"}" {
		t.Errorf("round trip: got %#v", evs)
	}
}

func TestMSSPFrame(t *testing.T) {
	got := MSSPFrame([]MSSPVar{
		{Name: "NAME", Values: []string{"Zone\x00MUD\xff"}},
		{Name: "PORT", Values: []string{"4000", "23"}},
		{Name: "\x01\x02"},
		{Name: "CONTACT"},
		{Name: "UPTIME", Values: []string{"1700000000\x01"}},
	})
	want := bs(t, `IAC SB MSSP MSSP_VAR "NAME" MSSP_VAL "ZoneMUD" MSSP_VAR "PORT" MSSP_VAL "4000" MSSP_VAL "23" `+
		`MSSP_VAR "CONTACT" MSSP_VAL MSSP_VAR "UPTIME" MSSP_VAL "1700000000" IAC SE`)
	if !bytes.Equal(got, want) {
		t.Errorf("got %s, want %s", describeBytes(got), describeBytes(want))
	}
}

// agreedMCCP2 returns an encoder whose client agreed to MCCP2.
func agreedMCCP2(t *testing.T) (*Encoder, *bytes.Buffer) {
	c := newConn(DefaultConfig())
	c.o.Start()
	if evs, _ := c.send(bs(t, "IAC DO MCCP2")); kinds(evs) != "CompressRequested" {
		t.Fatalf("DO MCCP2 gave %s", kinds(evs))
	}
	var buf bytes.Buffer
	return NewEncoder(&buf, c.o), &buf
}

func TestEncoder_MCCP2RoundTrip(t *testing.T) {
	e, buf := agreedMCCP2(t)
	e.WriteText([]byte("before\n"))
	if err := e.StartCompression(); err != nil {
		t.Fatal(err)
	}
	if !e.Compressing() {
		t.Fatal("Compressing() = false after StartCompression")
	}
	if err := e.StartCompression(); err != nil {
		t.Fatal("second StartCompression:", err)
	}
	body := strings.Repeat("The room is dark and full of \xff bytes.\n", 50)
	e.WriteText([]byte(body))
	e.WritePrompt([]byte("> "))
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}

	prefix := bs(t, `"before\r\n" IAC SB MCCP2 IAC SE`)
	if !bytes.HasPrefix(buf.Bytes(), prefix) {
		t.Fatalf("stream starts %s, want %s", describeBytes(buf.Bytes()[:min(buf.Len(), 20)]), describeBytes(prefix))
	}
	// After a sync flush the client can read everything written so far.
	wantBody := strings.ReplaceAll(strings.ReplaceAll(body, "\n", "\r\n"), "\xff", "?") + "> \xff\xf9"
	zr, err := zlib.NewReader(bytes.NewReader(buf.Bytes()[len(prefix):]))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(wantBody))
	if _, err := io.ReadFull(zr, got); err != nil {
		t.Fatalf("reading the flushed stream: %v", err)
	}
	if string(got) != wantBody {
		t.Errorf("decompressed %q, want %q", got, wantBody)
	}

	if err := e.StopCompression(); err != nil {
		t.Fatal(err)
	}
	if e.Compressing() {
		t.Fatal("Compressing() = true after StopCompression")
	}
	e.WriteText([]byte("plain again\n"))
	e.Flush()

	r := bytes.NewReader(buf.Bytes()[len(prefix):])
	zr, err = zlib.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("the stream does not end cleanly: %v", err)
	}
	if string(all) != wantBody {
		t.Errorf("whole stream %q, want %q", all, wantBody)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "plain again\r\n" {
		t.Errorf("after the stream: %q, want plain text", rest)
	}

	// A second compressed stream after the first.
	buf.Reset()
	e.StartCompression()
	e.WriteText([]byte("again\n"))
	e.StopCompression()
	e.Flush()
	zr, err = zlib.NewReader(bytes.NewReader(buf.Bytes()[5:]))
	if err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(zr); err != nil || string(all) != "again\r\n" {
		t.Errorf("second stream: %q, %v", all, err)
	}
}

func TestEncoder_CompressionNeedsAgreement(t *testing.T) {
	e, _, buf := newEncoder(true)
	if err := e.StartCompression(); err != nil {
		t.Fatal(err)
	}
	if e.Compressing() {
		t.Error("compressing without DO MCCP2")
	}
	if err := e.StopCompression(); err != nil {
		t.Fatal(err)
	}
	e.Flush()
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.Bytes())
	}
}

type failWriter struct{}

var errWrite = errors.New("write failed")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestEncoder_WriteErrors(t *testing.T) {
	e := NewEncoder(failWriter{}, NewOptions(DefaultConfig()))
	e.WriteText([]byte("x"))
	if err := e.Flush(); err != errWrite {
		t.Errorf("Flush() = %v, want the write error", err)
	}
	if err := e.WriteText(bytes.Repeat([]byte("y"), 3*maxPending)); err != errWrite {
		t.Errorf("WriteText() after a failure = %v, want the write error", err)
	}
}

// Counts are what the gate's output figures and the MCCP ratio come
// from: every byte passed to the connection, and while compressing what
// went into the stream and what came out.
func TestEncoder_Counts(t *testing.T) {
	e, buf := agreedMCCP2(t)
	e.WriteText([]byte("plain\n"))
	e.Flush()
	if wire, in, out := e.Counts(); wire != uint64(buf.Len()) || in != 0 || out != 0 {
		t.Fatalf("after plain text: wire %d (sent %d), mccp %d in %d out", wire, buf.Len(), in, out)
	}
	if err := e.StartCompression(); err != nil {
		t.Fatal(err)
	}
	text := bytes.Repeat([]byte("The rat squeaks at you from the gutter.\n"), 100)
	e.WriteText(text)
	e.WritePrompt([]byte("> "))
	e.Flush()
	wire, in, out := e.Counts()
	if wire != uint64(buf.Len()) {
		t.Errorf("wire %d, but %d bytes were sent", wire, buf.Len())
	}
	if in < uint64(len(text)) || out == 0 || out >= in/4 {
		t.Errorf("compressed %d bytes into %d; want at least %d in, and repetitive text to shrink four times", in, out, len(text))
	}
}

// TestEncoder_BurstAllocatesNothing: a burst (text, a prompt, the flush
// that writes it) takes its buffer from the pool and puts it back without
// an allocation of its own; the gate writes one a burst, thousands a
// second in a busy world.
func TestEncoder_BurstAllocatesNothing(t *testing.T) {
	o := NewOptions(DefaultConfig())
	o.utf8.Store(true)
	e := NewEncoder(io.Discard, o)
	text, prompt := []byte("Bob arrives from the north.\n"), []byte("> ")
	burst := func() {
		_ = e.WriteText(text)
		_ = e.WritePrompt(prompt)
		_ = e.Flush()
	}
	burst()
	// sync.Pool may drop what it holds at a collection; one in a hundred
	// bursts is not a burst's cost.
	if allocs := testing.AllocsPerRun(100, burst); allocs >= 0.5 {
		t.Fatalf("a burst allocated %.2f times, want 0", allocs)
	}
}
