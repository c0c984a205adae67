package telnet

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func lines(evs []Event) []string {
	var s []string
	for _, e := range evs {
		if l, ok := e.(Line); ok {
			s = append(s, l.Text)
		}
	}
	return s
}

func TestDecoder_Lines(t *testing.T) {
	cases := []struct {
		name string
		in   string
		utf8 bool
		want []string
	}{
		{"CR LF", `"look\r\n"`, false, []string{"look"}},
		{"LF", `"a\nb\n"`, false, []string{"a", "b"}},
		{"CR NUL and lone CR", `"a\r\x00b\rc\n"`, false, []string{"a", "b", "c"}},
		{"empty lines", `"\r\n\r\n\n"`, false, []string{"", "", ""}},
		{"CR LF split by a command", `"a\r" IAC NOP "\nb\n"`, false, []string{"a", "b"}},
		{"no end", `"partial"`, false, nil},
		{"controls removed, tab to space", `"a\x00b\x07c\td\x1ce\n"`, false, []string{"abc de"}},
		{"backspace and DEL erase", `"hw\bello\n\b\bx\x7fy\n"`, false, []string{"hello", "y"}},
		{"backspace erases a UTF-8 rune", `"caf\xc3\xa9\b!\n"`, true, []string{"caf!"}},
		{"IAC EC and IAC EL", `"abc" IAC EC "d\nxyz" IAC EL "ok\n"`, false, []string{"abd", "ok"}},
		{"CSI removed", `"\x1b[1;31mred\x1b[0m\n"`, false, []string{"red"}},
		{"OSC removed to BEL and to ST", `"\x1b]0;title\x07x\x1b]2;t\x1b\\y\n"`, false, []string{"xy"}},
		{"SS3 and charset designation removed", `"a\x1bOPb\x1b(Bc\x1b=d\n"`, false, []string{"abcd"}},
		{"unterminated CSI ends with the line", `"a\x1b[12\nb\n"`, false, []string{"a", "b"}},
		{"ESC then a control", `"a\x1b\x01b\n"`, false, []string{"ab"}},
		{"DCS with ESC inside", `"\x1bPq\x1b[5mz\n"`, false, []string{"z"}},
		{"IAC IAC is 0xFF, Latin-1", `"caf" IAC IAC "\n"`, false, []string{"cafÿ"}},
		{"IAC IAC is 0xFF, UTF-8", `"caf" IAC IAC "\n"`, true, []string{"caf\uFFFD"}},
		{"Latin-1 converted", `"caf\xe9 na\xefve\n"`, false, []string{"café naïve"}},
		{"invalid UTF-8 replaced", `"caf\xe9\n"`, true, []string{"caf\uFFFD"}},
		{"valid UTF-8 read as UTF-8 without negotiation", `"caf\xc3\xa9 \xe2\x80\x94\n"`, false, []string{"café —"}},
		{"C1 removed, Latin-1", `"a\x85b\x9bc\n"`, false, []string{"abc"}},
		{"C1 removed, UTF-8", `"a\xc2\x9bb\n"`, true, []string{"ab"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(DefaultConfig())
			c.o.utf8.Store(tc.utf8)
			evs, _ := c.send(bs(t, tc.in))
			if got := lines(evs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecoder_LineTooLong(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxLine = 10
	c := newConn(cfg)
	evs, _ := c.send([]byte("0123456789\n0123456789AB\x1b[1mCD\nok\n"))
	want := []string{`Line "0123456789"`, "LineTooLong 10", `Line "ok"`}
	if got := shorts(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDecoder_HugeLineBounded(t *testing.T) {
	c := newConn(DefaultConfig())
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	var evs []Event
	for range 16 { // 1 MB without a newline
		evs = append(evs, c.d.feed(chunk)...)
		if cap(c.d.line) > DefaultMaxLine {
			t.Fatalf("line buffer capacity %d over MaxLine %d", cap(c.d.line), DefaultMaxLine)
		}
	}
	evs = append(evs, c.d.feed([]byte("\nnext\n"))...)
	want := []string{"LineTooLong 4096", `Line "next"`}
	if got := shorts(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDecoder_SubnegotiationBounded(t *testing.T) {
	c := newConn(DefaultConfig())
	c.o.Start()
	c.send(bs(t, "IAC DO GMCP"))
	evs := c.d.feed(bs(t, `IAC SB GMCP "Big.Data "`))
	chunk := bytes.Repeat([]byte{'a', IAC, IAC}, 1<<15)
	for range 107 { // over 10 MB, no IAC SE
		evs = append(evs, c.d.feed(chunk)...)
		if cap(c.d.sb) > DefaultMaxSubneg {
			t.Fatalf("subnegotiation buffer capacity %d over MaxSubneg %d", cap(c.d.sb), DefaultMaxSubneg)
		}
	}
	evs = append(evs, c.d.feed(bs(t, `IAC SE "after\n" IAC SB GMCP "Core.Ping" IAC SE`))...)
	if got, want := kinds(evs), "ProtocolError,Line,GMCP"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDecoder_SubnegotiationLimitCountsEscapes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSubneg = 8
	c := newConn(cfg)
	c.o.Start()
	// Four 0xFF are eight bytes on the wire: at the limit.
	evs, _ := c.send(bs(t, "IAC WILL NAWS IAC SB NAWS IAC IAC IAC IAC IAC IAC IAC IAC IAC SE"))
	if got := kinds(evs); got != "Resize" {
		t.Errorf("at the limit: got %s, want Resize", got)
	}
	evs, _ = c.send(bs(t, "IAC SB NAWS IAC IAC IAC IAC IAC IAC IAC IAC 0x00 IAC SE"))
	if got := kinds(evs); got != "ProtocolError" {
		t.Errorf("over the limit: got %s, want ProtocolError", got)
	}
}

func TestDecoder_BadSubnegotiations(t *testing.T) {
	cases := []struct {
		name, in, events, reply string
	}{
		{"nested SB", `IAC WILL NAWS IAC SB NAWS 0x00 IAC SB NAWS 0x00 0x50 0x00 0x18 IAC SE`, "ProtocolError,Resize", ""},
		{"command inside SB", `IAC SB NAWS 0x00 0x50 IAC WILL 0x99 "x\n"`, `ProtocolError,Line`, "IAC DONT 0x99"},
		{"stray SE", `IAC SE "x\n"`, "Line", ""},
		{"SB without an option", `IAC SB IAC WILL 0x99 "x\n"`, "ProtocolError,Line", "IAC DONT 0x99"},
		{"SB with no payload", `IAC SB TTYPE IAC SE IAC SB 0x99 IAC SE`, "", ""},
		{"every command", `IAC NOP IAC DM IAC BRK IAC IP IAC AO IAC GA IAC EOR_CMD IAC 0x10 "x\n"`, "Line", ""},
		{"TTYPE answer of 10 KB", `IAC WILL TTYPE IAC SB TTYPE IS "` + strings.Repeat("A", 10<<10) + `" IAC SE`, "ProtocolError", "IAC SB TTYPE SEND IAC SE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(DefaultConfig())
			c.o.Start()
			evs, reply := c.send(bs(t, tc.in))
			if got := kinds(evs); got != tc.events {
				t.Errorf("events %s, want %s", got, tc.events)
			}
			if want := bs(t, tc.reply); !bytes.Equal(reply, want) {
				t.Errorf("reply %s, want %s", describeBytes(reply), describeBytes(want))
			}
		})
	}
}

func TestDecoder_AYTAnsweredOncePerLine(t *testing.T) {
	c := newConn(DefaultConfig())
	_, reply := c.send(bs(t, `IAC AYT IAC AYT IAC AYT`))
	if string(reply) != "[Yes]\r\n" {
		t.Errorf("got %q, want one answer", reply)
	}
	_, reply = c.send(bs(t, `"x\n" IAC AYT`))
	if string(reply) != "[Yes]\r\n" {
		t.Errorf("after a line: got %q, want one answer", reply)
	}
}

// decodeAll runs r through Next and returns the events, the replies and the
// final error.
func decodeAll(r io.Reader, cfg Config) ([]Event, []byte, error) {
	o := NewOptions(cfg)
	o.Start()
	var replies []byte
	d := NewDecoder(r, o, func(ctl []byte) { replies = append(replies, ctl...) })
	var evs []Event
	for {
		e, err := d.Next()
		if err != nil {
			return evs, replies, err
		}
		evs = append(evs, e)
	}
}

func TestDecoder_EndOfStream(t *testing.T) {
	cases := []struct{ name, in, events string }{
		{"inside IAC SB", `"a\n" IAC SB GMCP "Core.Hel"`, "Line"},
		{"after IAC SB", `IAC SB`, ""},
		{"inside SB after IAC", `IAC SB NAWS 0x00 IAC`, ""},
		{"lone IAC", `"a\n" IAC`, "Line"},
		{"after a verb", `IAC WILL`, ""},
		{"inside an escape", `"\x1b[3"`, ""},
		{"nothing", ``, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, err := decodeAll(bytes.NewReader(bs(t, tc.in)), DefaultConfig())
			if err != io.EOF {
				t.Errorf("err = %v, want io.EOF", err)
			}
			if got := kinds(evs); got != tc.events {
				t.Errorf("events %s, want %s", got, tc.events)
			}
		})
	}
}

func TestDecoder_ReadErrorAfterEvents(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\nb\n"), iotest.ErrReader(boom))
	evs, _, err := decodeAll(r, DefaultConfig())
	if err != boom {
		t.Errorf("err = %v, want boom", err)
	}
	if got := lines(evs); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("lines %q, want a, b", got)
	}
	// Data and an error from the same Read: the data counts.
	evs, _, err = decodeAll(iotest.DataErrReader(strings.NewReader("c\n")), DefaultConfig())
	if err != io.EOF || !reflect.DeepEqual(lines(evs), []string{"c"}) {
		t.Errorf("got %q, %v, want c and io.EOF", lines(evs), err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func TestDecoder_NoProgress(t *testing.T) {
	if _, _, err := decodeAll(emptyReader{}, DefaultConfig()); err != io.ErrNoProgress {
		t.Errorf("err = %v, want io.ErrNoProgress", err)
	}
}

// splitStream is one input that exercises most of the state machine.
const splitStream = `IAC WILL TTYPE IAC WILL NAWS IAC SB NAWS 0x00 0x50 0x00 IAC IAC IAC SE ` +
	`IAC DO CHARSET IAC DO EOR IAC DO GMCP IAC DO MSSP IAC DO MCCP2 IAC DO SGA IAC WILL ECHO IAC DO 0x99 ` +
	`IAC SB TTYPE IS "MUDLET" IAC SE IAC SB CHARSET ACCEPTED "UTF-8" IAC SE ` +
	`"hello\r\nwor" IAC NOP "ld\r\x00caf\xc3\xa9 " IAC IAC "\n" ` +
	`IAC SB GMCP "Core.Hello {\"client\":\"Mudlet\"}" IAC SE ` +
	`IAC SB TTYPE IS "ANSI-TRUECOLOR" IAC SE IAC SB TTYPE IS "MTTS 2349" IAC SE ` +
	`"\x1b[31mred\x1b[0m\thw\bere\r" IAC SB NAWS 0x00 IAC SB NAWS 0x00 0x64 0x00 0x28 IAC SE ` +
	`"x\n" IAC SB CHARSET REQUEST IAC SE IAC AYT IAC DONT MCCP2 IAC EC IAC EL "end\r\n" IAC`

func TestDecoder_SplitInvariance(t *testing.T) {
	in := bs(t, splitStream)
	whole := newConn(DefaultConfig())
	whole.o.Start()
	wantEvs, wantReply := whole.send(in)
	if len(wantEvs) < 15 {
		t.Fatalf("the stream gives only %d events: %q", len(wantEvs), shorts(wantEvs))
	}
	for i := 0; i <= len(in); i++ {
		c := newConn(DefaultConfig())
		c.o.Start()
		evs1, r1 := c.send(in[:i])
		evs2, r2 := c.send(in[i:])
		evs := append(evs1, evs2...)
		reply := append(r1, r2...)
		if !reflect.DeepEqual(evs, wantEvs) {
			t.Fatalf("split at %d: events\n%q\nwant\n%q", i, shorts(evs), shorts(wantEvs))
		}
		if !bytes.Equal(reply, wantReply) {
			t.Fatalf("split at %d: replies\n%s\nwant\n%s", i, describeBytes(reply), describeBytes(wantReply))
		}
	}
	// The same through Next, one byte per Read and in random chunks.
	readers := map[string]io.Reader{
		"one byte": iotest.OneByteReader(bytes.NewReader(in)),
		"half":     iotest.HalfReader(bytes.NewReader(in)),
		"random":   &chunkReader{p: in, rng: rand.New(rand.NewSource(1))},
	}
	for name, r := range readers {
		evs, reply, err := decodeAll(r, DefaultConfig())
		if err != io.EOF {
			t.Errorf("%s: err = %v", name, err)
		}
		if !reflect.DeepEqual(evs, wantEvs) || !bytes.Equal(reply, wantReply) {
			t.Errorf("%s: got %q %s, want %q %s", name, shorts(evs), describeBytes(reply), shorts(wantEvs), describeBytes(wantReply))
		}
	}
}

// chunkReader returns p in chunks of random length.
type chunkReader struct {
	p   []byte
	rng *rand.Rand
}

func (r *chunkReader) Read(b []byte) (int, error) {
	if len(r.p) == 0 {
		return 0, io.EOF
	}
	n := min(1+r.rng.Intn(7), len(r.p), len(b))
	copy(b, r.p[:n])
	r.p = r.p[n:]
	return n, nil
}

func TestNewDecoder_NilReplyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewDecoder with a nil reply did not panic")
		}
	}()
	NewDecoder(strings.NewReader(""), NewOptions(DefaultConfig()), nil)
}
