package telnet

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the generated seed corpus in testdata/fuzz")

// fuzzConfig has small limits so that the fuzzer reaches the overflow paths.
func fuzzConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxLine = 256
	cfg.MaxSubneg = 512
	return cfg
}

// FuzzDecoder feeds any input, split at the offsets cuts gives, and checks
// that the decoder neither panics nor grows its buffers past the limits,
// that any split gives the same events and replies as the whole input, that
// reading through Next agrees with both, and that the events are well
// formed.
func FuzzDecoder(f *testing.F) {
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		cfg := fuzzConfig()
		whole := newConn(cfg)
		whole.o.Start()
		wantEvs, wantReply := whole.send(data)
		if c := cap(whole.d.line); c > cfg.MaxLine {
			t.Fatalf("line buffer capacity %d over %d", c, cfg.MaxLine)
		}
		if c := cap(whole.d.sb); c > cfg.MaxSubneg {
			t.Fatalf("subnegotiation buffer capacity %d over %d", c, cfg.MaxSubneg)
		}
		if len(wantReply) > 2*len(data)+64 {
			t.Fatalf("%d input bytes drew %d reply bytes", len(data), len(wantReply))
		}
		checkEvents(t, cfg, wantEvs)

		split := newConn(cfg)
		split.o.Start()
		var evs []Event
		var reply []byte
		rest := data
		for _, k := range cuts {
			n := int(k) % (len(rest) + 1)
			e, r := split.send(rest[:n])
			evs, reply = append(evs, e...), append(reply, r...)
			rest = rest[n:]
		}
		e, r := split.send(rest)
		evs, reply = append(evs, e...), append(reply, r...)
		if !reflect.DeepEqual(evs, wantEvs) || !bytes.Equal(reply, wantReply) {
			t.Fatalf("split %v:\n%q %s\nwhole:\n%q %s", cuts, shorts(evs), describeBytes(reply), shorts(wantEvs), describeBytes(wantReply))
		}

		evs, reply, err := decodeAll(&cutReader{p: data, cuts: cuts}, cfg)
		if err != io.EOF {
			t.Fatalf("Next: err %v, want io.EOF", err)
		}
		if !reflect.DeepEqual(evs, wantEvs) || !bytes.Equal(reply, wantReply) {
			t.Fatalf("Next:\n%q %s\nfeed:\n%q %s", shorts(evs), describeBytes(reply), shorts(wantEvs), describeBytes(wantReply))
		}
	})
}

// cutReader returns p in the chunk sizes cuts gives, then the rest.
type cutReader struct {
	p    []byte
	cuts []byte
}

func (r *cutReader) Read(b []byte) (int, error) {
	if len(r.p) == 0 {
		return 0, io.EOF
	}
	n := len(r.p)
	if len(r.cuts) > 0 {
		n = 1 + int(r.cuts[0])%len(r.p)
		r.cuts = r.cuts[1:]
	}
	n = copy(b, r.p[:n])
	r.p = r.p[n:]
	return n, nil
}

// checkEvents checks what every event promises.
func checkEvents(t *testing.T, cfg Config, evs []Event) {
	t.Helper()
	for _, e := range evs {
		switch e := e.(type) {
		case Line:
			if !utf8.ValidString(e.Text) {
				t.Fatalf("line %q is not valid UTF-8", e.Text)
			}
			// Each input byte gives at most three: U+FFFD for an invalid one.
			if len(e.Text) > 3*cfg.MaxLine {
				t.Fatalf("line of %d bytes from a %d byte limit", len(e.Text), cfg.MaxLine)
			}
			for _, r := range e.Text {
				if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
					t.Fatalf("line %q holds control %U", e.Text, r)
				}
			}
		case LineTooLong:
			if e.Limit != cfg.MaxLine {
				t.Fatalf("LineTooLong limit %d, want %d", e.Limit, cfg.MaxLine)
			}
		case Resize:
			if e.Width < 0 || e.Width > maxNAWS || e.Height < 0 || e.Height > maxNAWS {
				t.Fatalf("Resize %dx%d out of range", e.Width, e.Height)
			}
		case GMCPMessage:
			if e.Package == "" || strings.ContainsAny(e.Package, " \n") || len(e.Data)+len(e.Package) > cfg.MaxSubneg {
				t.Fatalf("GMCP %q with %d bytes", e.Package, len(e.Data))
			}
		case ClientChanged:
			if len(e.Info.Name) > maxTTYPE || len(e.Info.Terminal) > maxTTYPE {
				t.Fatalf("ClientInfo %+v over the TTYPE cap", e.Info)
			}
		}
	}
}

// fuzzZ is the compressing encoder FuzzEncoderText reuses, writing to
// fuzzZBuf.
var (
	fuzzZ    *Encoder
	fuzzZBuf bytes.Buffer
)

// FuzzEncoderText checks WriteText on any text, split in two calls: no
// byte 0xFF reaches the client alone, every LF follows a CR, the text comes
// back when the client undoes the escaping, ASCII mode sends only ASCII, and
// the compressed stream carries the same bytes.
func FuzzEncoderText(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, utf bool, cut uint16) {
		k := int(cut) % (len(data) + 1)
		e, o, buf := newEncoder(utf)
		if err := e.WriteText(data[:k]); err != nil {
			t.Fatal(err)
		}
		if err := e.WriteText(data[k:]); err != nil {
			t.Fatal(err)
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		out := buf.Bytes()
		var plain []byte
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == IAC {
				if i+1 == len(out) || out[i+1] != IAC {
					t.Fatalf("unescaped IAC at %d in %q", i, out)
				}
				i++
			}
			if c == '\n' && (i == 0 || out[i-1] != '\r') {
				t.Fatalf("LF without CR at %d in %q", i, out)
			}
			if !utf && c >= 0x80 {
				t.Fatalf("byte %#x in ASCII mode: %q", c, out)
			}
			plain = append(plain, c)
		}
		norm := func(p []byte) []byte { return bytes.ReplaceAll(p, []byte("\r\n"), []byte("\n")) }
		if utf && !bytes.Equal(norm(plain), norm(data)) {
			t.Fatalf("round trip: %q, want %q", plain, data)
		}

		// The same through MCCP2. One compressing encoder serves every run
		// in this process: a zlib writer is costly to make, and restarting
		// compression resets it.
		if fuzzZ == nil {
			c := newConn(DefaultConfig())
			c.o.Start()
			c.send([]byte{IAC, DO, OptMCCP2})
			fuzzZ = NewEncoder(&fuzzZBuf, c.o)
		}
		fuzzZ.o.utf8.Store(o.UTF8())
		fuzzZBuf.Reset()
		z, zbuf := fuzzZ, &fuzzZBuf
		z.lastCR = false
		z.StartCompression()
		z.WriteText(data[:k])
		z.WriteText(data[k:])
		if err := z.StopCompression(); err != nil {
			t.Fatal(err)
		}
		z.Flush()
		zr, err := zlib.NewReader(bytes.NewReader(zbuf.Bytes()[5:]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, out) {
			t.Fatalf("compressed: %q, %v, want %q", got, err, out)
		}
	})
}

// decoderSeeds are the generated seeds of FuzzDecoder: the bad inputs the
// decoder must survive and real client openings.
func decoderSeeds(t *testing.T) map[string][2][]byte {
	t.Helper()
	every := []byte{}
	for opt := range 256 {
		for _, v := range []byte{WILL, DO, WONT, DONT} {
			every = append(every, IAC, v, byte(opt))
		}
	}
	seeds := map[string][2][]byte{
		"end-inside-sb":     {bs(t, `"hi\n" IAC SB GMCP "Core.Hel"`), nil},
		"nested-sb":         {bs(t, `IAC WILL NAWS IAC SB NAWS 0x00 IAC SB NAWS 0x00 0x50 0x00 0x18 IAC SE`), {3, 9}},
		"sb-without-se":     {append(bs(t, `IAC DO GMCP IAC SB GMCP "x "`), bytes.Repeat([]byte{'a', IAC, IAC}, 1000)...), {100, 200}},
		"every-option":      {every, {7}},
		"naws-zero":         {bs(t, `IAC WILL NAWS IAC SB NAWS 0x00 0x00 0x00 0x00 IAC SE`), nil},
		"naws-max":          {bs(t, `IAC WILL NAWS IAC SB NAWS IAC IAC IAC IAC IAC IAC IAC IAC IAC SE`), {4}},
		"ttype-10k":         {bs(t, `IAC WILL TTYPE IAC SB TTYPE IS "`+strings.Repeat("T", 10<<10)+`" IAC SE "x\n"`), {50}},
		"ttype-long":        {bs(t, `IAC WILL TTYPE IAC SB TTYPE IS "`+strings.Repeat("T", 300)+`" IAC SE`), nil},
		"lone-iac":          {bs(t, `"look\r\n" IAC`), nil},
		"long-line":         {append(bytes.Repeat([]byte("x"), 8<<10), "\nok\n"...), {1, 255}},
		"charset-empty":     {bs(t, `IAC SB CHARSET REQUEST IAC SE IAC SB CHARSET IAC SE IAC SB CHARSET REQUEST "[TTABLE]" IAC SE`), nil},
		"charset-both":      {bs(t, `IAC DO CHARSET IAC SB CHARSET REQUEST ";UTF-8" IAC SE IAC SB CHARSET ACCEPTED " UTF-8" IAC SE`), {2}},
		"escapes":           {bs(t, `"\x1b[31mred\x1b]0;t\x07\x1bPq\x1b\\\x1bOPx\x1b(B\r\x00caf\xe9\b\x7f\t!\n"`), {5, 5, 5}},
		"gmcp":              {bs(t, `IAC DO GMCP IAC SB GMCP "Core.Hello {\"client\":\"Mudlet\"}" IAC SE IAC SB GMCP "Core.Ping" IAC SE`), nil},
		"echo-and-commands": {bs(t, `IAC DO ECHO IAC WILL ECHO IAC DONT ECHO IAC AYT IAC EC IAC EL IAC NOP IAC GA IAC SE "a\n"`), {1, 1, 1}},
		"split-stream":      {bs(t, splitStream), {3, 17, 40}},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txt"))
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseTranscript(string(text))
		if err != nil {
			t.Fatal(err)
		}
		var client []byte
		for _, b := range blocks {
			for _, op := range b.ops {
				if op.action == "" {
					client = append(client, op.bytes...)
				}
			}
		}
		seeds["transcript-"+strings.TrimSuffix(filepath.Base(f), ".txt")] = [2][]byte{client, {11}}
	}
	return seeds
}

func encoderSeeds() map[string]string {
	return map[string]string{
		"crlf":    "a\nb\r\nc\r",
		"iac":     "caf\xff\xff\n",
		"fold":    "“café” — naïve… Straße 日本\n",
		"invalid": "\xc3(\xe2\x82\xf0\x9f",
		"ansi":    "\x1b[1;31mred\x1b[0m\n",
	}
}

// TestFuzzSeeds keeps testdata/fuzz in step with the seeds above; run with
// -update to rewrite them. Crashers the fuzzer finds are kept next to them
// under their own names.
func TestFuzzSeeds(t *testing.T) {
	want := map[string][]byte{}
	for name, s := range decoderSeeds(t) {
		want[filepath.Join("FuzzDecoder", "seed-"+name)] = corpusFile(s[0], s[1])
	}
	for name, s := range encoderSeeds() {
		for _, utf := range []bool{false, true} {
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\nbool(%v)\nuint16(%d)\n", strconv.Quote(s), utf, len(s)/2)
			want[filepath.Join("FuzzEncoderText", fmt.Sprintf("seed-%s-%v", name, utf))] = []byte(content)
		}
	}
	for rel, content := range want {
		path := filepath.Join("testdata", "fuzz", rel)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go test -run TestFuzzSeeds -update)", err)
			continue
		}
		if !bytes.Equal(got, content) {
			t.Errorf("%s is stale (sha256 %x); run go test -run TestFuzzSeeds -update", path, sha256.Sum256(got))
		}
	}
}

func corpusFile(data, cuts []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%s)\n[]byte(%s)\n", strconv.Quote(string(data)), strconv.Quote(string(cuts)))
}
