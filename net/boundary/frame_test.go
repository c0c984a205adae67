package boundary

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"

	"zonemud/internal/markup"
)

// every has one frame of each kind with every field set.
func every() []Frame {
	cl := Client{Width: 120, Height: 40, Name: "mudlet", Terminal: "MUDLET", Color: markup.Color256, ScreenReader: true, UTF8: true, MCCP: true, GMCP: true}
	return []Frame{
		&Hello{Min: 1, Max: 7, Build: "v1.2.3"},
		&Welcome{Version: 1, Build: "v1.2.4"},
		&Refuse{Reason: "no"},
		&Attach{Session: 1 << 40, Front: "tls", Remote: "[::1]:5000", Addr: "::/64", Account: "Ada", Authenticated: true,
			Client: cl, GMCP: []string{"char", "room.info"}, Seq: 99},
		&Input{Session: 3, Seq: 4, Line: "say héllo"},
		&TooLong{Session: 3, Limit: 4096},
		&ClientChanged{Session: 3, Client: cl},
		&GMCPIn{Session: 3, Package: "Core.Supports.Set", Data: []byte(`["Char 1"]`)},
		&MSSPAsk{Session: 3},
		&Compress{Session: 3, On: true},
		&LinkLost{Session: 3},
		&Swap{Reason: "reboot"},
		&Output{Session: 3, Ops: []Op{
			{Kind: OpText, Data: []byte("You see\n")}, {Kind: OpPrompt, Data: []byte("> ")},
			{Kind: OpRaw, Data: []byte{255, 250, 201}}, {Kind: OpGMCP, Pkg: "Room.Info", Data: []byte(`{"num":1}`)},
			{Kind: OpEchoOff}, {Kind: OpEchoOn}, {Kind: OpCompress}, {Kind: OpDecompress},
		}},
		&State{Session: 3, Account: "Ada", Color: markup.TrueColor, ColorSet: true, GMCP: []string{"char"}},
		&Close{Session: 3, Why: "takeover"},
		&Detached{Session: 3, Seq: 12},
		&Bye{Reason: "copyover"},
		&Snapshot{Path: "/var/lib/zonemud/copyover/preflight.db"},
		&Snapped{Err: "disk full"},
		&AuthAsk{Ask: 7, Method: AuthKey, User: "Ada", Remote: "10.0.0.1:5000", Secret: []byte{0, 0, 0, 11, 's', 's', 'h'}},
		&AuthAnswer{Ask: 7, Verdict: Opens, Account: "Ada", Grant: 1<<63 + 5, Why: "too many tries"},
		&Login{Session: 9, Front: "ssh", Remote: "10.0.0.1:5000", User: "ada", Grant: 1 << 62, Client: cl},
		&Resume{Session: 9, Token: "tok-en_", Name: "Ada"},
		&Took{Session: 9, N: 1 << 33},
		&Bans{More: true, List: []AddressBan{
			{Block: "203.0.113.0/24", Expires: 1 << 40, Line: "Your address is banned from this world until 2099-01-01 00:00 UTC (spam)."},
			{Block: "2001:db8::/32", Line: "Your address is banned from this world."},
		}},
	}
}

// Every kind comes back as it went, alone, and all in one stream read by
// Decode and by a Reader.
func TestRoundTrip(t *testing.T) {
	var stream []byte
	for _, f := range every() {
		b, err := Append(nil, f)
		if err != nil {
			t.Fatalf("%T: %v", f, err)
		}
		got, n, err := Decode(b)
		if err != nil || n != len(b) {
			t.Fatalf("%T: decode took %d of %d bytes: %v", f, n, len(b), err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("%T: got %+v, want %+v", f, got, f)
		}
		stream = append(stream, b...)
	}
	r := NewReader(bytes.NewReader(stream))
	for _, want := range every() {
		got, err := r.Read()
		if err != nil {
			t.Fatalf("reading %T: %v", want, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream: got %+v, want %+v", got, want)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

// Zero values round trip too (nil lists stay nil), but for the kinds
// whose zero names no method or verdict: those are refused.
func TestRoundTripZero(t *testing.T) {
	for _, f := range every() {
		z := reflect.New(reflect.TypeOf(f).Elem()).Interface().(Frame)
		b, err := Append(nil, z)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := Decode(b)
		if k := z.Kind(); k == KindAuthAsk || k == KindAuthAns {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%T with no method or verdict: %v, want ErrMalformed", z, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%T: %v", z, err)
		}
		if !reflect.DeepEqual(got, z) {
			t.Errorf("%T: got %+v, want %+v", z, got, z)
		}
	}
}

// A stream cut anywhere inside a frame is io.ErrUnexpectedEOF, never a
// frame and never a hang; Decode of every prefix says it is short.
func TestTruncated(t *testing.T) {
	for _, f := range every() {
		b, _ := Append(nil, f)
		for cut := 1; cut < len(b); cut++ {
			if _, _, err := Decode(b[:cut]); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%T cut at %d of %d: Decode says %v", f, cut, len(b), err)
			}
			if _, err := NewReader(bytes.NewReader(b[:cut])).Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%T cut at %d of %d: Read says %v", f, cut, len(b), err)
			}
		}
	}
}

func frameOf(kind byte, body ...byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(body)))
	return append(append(b, kind), body...)
}

// Garbage is refused as malformed, each kind of wrong for its own reason.
func TestGarbage(t *testing.T) {
	huge := binary.BigEndian.AppendUint32(nil, MaxFrame+1)
	cases := map[string][]byte{
		"empty body":            {0, 0, 0, 0},
		"length past bound":     append(huge, make([]byte, 16)...),
		"all ones length":       {0xff, 0xff, 0xff, 0xff, 1},
		"unknown kind":          frameOf(200),
		"kind zero":             frameOf(0),
		"bytes after fields":    frameOf(byte(KindLinkLost), 3, 0),
		"fields cut short":      frameOf(byte(KindInput), 3),
		"bool not 0 or 1":       frameOf(byte(KindCompress), 3, 2),
		"string past frame":     frameOf(byte(KindRefuse), 50, 'a'),
		"bad uvarint":           frameOf(byte(KindLinkLost), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
		"u32 overflow":          frameOf(byte(KindTooLong), 1, 0x80, 0x80, 0x80, 0x80, 0x10),
		"op kind unknown":       frameOf(byte(KindOutput), 1, 1, 99, 0),
		"too many ops":          frameOf(byte(KindOutput), 1, 0xff, 0x7f),
		"colour level 9":        frameOf(byte(KindClient), 1, 80, 24, 0, 0, 9, 0, 0, 0, 0),
		"colour override 7":     frameOf(byte(KindState), 1, 0, 14, 0),
		"package not UTF-8":     frameOf(byte(KindState), 1, 0, 1, 1, 1, 0xff),
		"Welcome as a Hello?":   frameOf(byte(KindHello), 1),
		"auth method 0":         frameOf(byte(KindAuthAsk), 1, 0, 0, 0, 0),
		"auth method 4":         frameOf(byte(KindAuthAsk), 1, 4, 0, 0, 0),
		"secret past bound":     frameOf(byte(KindAuthAsk), append([]byte{1, 2, 0, 0, 0x81, 0x80, 0x01}, make([]byte, 16<<10+1)...)...),
		"verdict 0":             frameOf(byte(KindAuthAns), 1, 0, 0, 0, 0),
		"verdict 4":             frameOf(byte(KindAuthAns), 1, 4, 0, 0, 0),
		"answer cut short":      frameOf(byte(KindAuthAns), 1, 2, 0),
		"login client cut":      frameOf(byte(KindLogin), 1, 0, 0, 0, 5, 80),
		"resume name missing":   frameOf(byte(KindResume), 1, 2, 'a', 'b'),
		"bans more not bool":    frameOf(byte(KindBans), 2, 0),
		"too many bans":         frameOf(byte(KindBans), 0, 0x81, 0x08),
		"ban block not one":     frameOf(byte(KindBans), 0, 1, 3, 'a', 'b', 'c', 0, 0),
		"ban block unmasked":    frameOf(byte(KindBans), 0, 1, 10, '1', '0', '.', '0', '.', '0', '.', '1', '/', '8', 0, 0),
		"ban block uncanonical": frameOf(byte(KindBans), 0, 1, 13, '2', '0', '0', '1', ':', 'D', 'B', '8', ':', ':', '/', '3', '2', 0, 0),
		"ban expiry past int64": frameOf(byte(KindBans), 0, 1, 10, '1', '0', '.', '0', '.', '0', '.', '0', '/', '8', 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0),
		"ban line missing":      frameOf(byte(KindBans), 0, 1, 10, '1', '0', '.', '0', '.', '0', '.', '0', '/', '8', 0),
	}
	for name, b := range cases {
		if _, _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Decode says %v, want ErrMalformed", name, err)
		}
		if _, err := NewReader(bytes.NewReader(b)).Read(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Read says %v, want ErrMalformed", name, err)
		}
	}
}

// A frame over the bound is refused when written, and the writer's queue
// is left as it was.
func TestTooBig(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.Write(&Input{Session: 1, Seq: 1, Line: "look"}); err != nil {
		t.Fatal(err)
	}
	before := w.Buffered()
	err := w.Write(&Input{Session: 1, Seq: 2, Line: strings.Repeat("x", MaxFrame)})
	if !errors.Is(err, ErrTooBig) {
		t.Fatalf("a frame over the bound: %v", err)
	}
	if w.Buffered() != before {
		t.Errorf("the refused frame left %d bytes queued, want %d", w.Buffered(), before)
	}
	// Just under the bound goes.
	line := strings.Repeat("x", MaxFrame-16)
	var buf bytes.Buffer
	w = NewWriter(&buf)
	if err := w.WriteFlush(&Input{Session: 1, Seq: 2, Line: line}); err != nil {
		t.Fatal(err)
	}
	f, err := NewReader(&buf).Read()
	if err != nil || f.(*Input).Line != line {
		t.Fatalf("a frame under the bound: %v", err)
	}
}

// The handshake over a real socket pair: the versions agree, each side
// learns the other's build.
func TestHandshake(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	type res struct {
		v     uint32
		build string
		err   error
	}
	done := make(chan res, 1)
	go func() {
		v, build, err := Answer(NewReader(b), NewWriter(b), "game-2")
		done <- res{v, build, err}
	}()
	v, gb, err := Greet(NewReader(a), NewWriter(a), "holder-1")
	if err != nil || v != Version || gb != "game-2" {
		t.Fatalf("holder: version %d build %q err %v", v, gb, err)
	}
	g := <-done
	if g.err != nil || g.v != Version || g.build != "holder-1" {
		t.Fatalf("game: %+v", g)
	}
}

// A holder that speaks only versions the game does not is refused, and
// told why; a link that opens with anything but Hello is refused too.
func TestHandshakeRefused(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	errc := make(chan error, 1)
	go func() {
		_, _, err := Answer(NewReader(b), NewWriter(b), "game")
		errc <- err
	}()
	w, r := NewWriter(a), NewReader(a)
	if err := w.WriteFlush(&Hello{Min: Version + 1, Max: Version + 5}); err != nil {
		t.Fatal(err)
	}
	f, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if rf, ok := f.(*Refuse); !ok || !strings.Contains(rf.Reason, "versions") {
		t.Fatalf("answer to a future holder: %+v", f)
	}
	if err := <-errc; !errors.Is(err, ErrRefused) {
		t.Fatalf("game side: %v", err)
	}

	a2, b2 := net.Pipe()
	defer a2.Close()
	defer b2.Close()
	go func() {
		_, _, err := Answer(NewReader(b2), NewWriter(b2), "game")
		errc <- err
	}()
	go func() { _ = NewWriter(a2).WriteFlush(&Input{Session: 1, Seq: 1, Line: "look"}) }()
	f, err = NewReader(a2).Read()
	if _, ok := f.(*Refuse); !ok || err != nil {
		t.Fatalf("answer to a link opening with Input: %+v %v", f, err)
	}
	if err := <-errc; !errors.Is(err, ErrMalformed) {
		t.Fatalf("game side: %v", err)
	}
}

// FuzzDecode: any bytes decode to frames or an error, never a panic; a
// frame decoded re-encodes to the very bytes it came from (the encoding
// has one spelling per frame), and a Reader reads the same frames.
func FuzzDecode(f *testing.F) {
	for _, fr := range every() {
		b, _ := Append(nil, fr)
		f.Add(b)
	}
	f.Add([]byte{0, 0, 0, 1, byte(KindSwap)})
	f.Add([]byte{0, 0, 0, 3, byte(KindOutput), 1, 0xff})
	f.Add(frameOf(byte(KindBans), 0, 1, 10, '1', '0', '.', '0', '.', '0', '.', '0', '/', '8', 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		var frames []Frame
		rest := data
		for len(rest) > 0 {
			fr, n, err := Decode(rest)
			if err != nil {
				break
			}
			again, err := Append(nil, fr)
			if err != nil {
				t.Fatalf("%T decoded but does not encode: %v", fr, err)
			}
			if !bytes.Equal(again, rest[:n]) {
				t.Fatalf("%T re-encodes to %x, came from %x", fr, again, rest[:n])
			}
			frames = append(frames, fr)
			rest = rest[n:]
		}
		r := NewReader(bytes.NewReader(data))
		for i, want := range frames {
			got, err := r.Read()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("frame %d: Reader read %+v (%v), Decode %+v", i, got, err, want)
			}
		}
	})
}
