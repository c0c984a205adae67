package telnet

import (
	"bufio"
	"compress/zlib"
	"io"
	"sync/atomic"
	"unicode/utf8"
)

// Encoder writes the server's side of a connection. It is owned by the
// writer goroutine; only Compressing may be called from elsewhere.
//
// Output is buffered: nothing is guaranteed to reach the underlying writer
// until Flush, which the writer calls after each burst of writes.
type Encoder struct {
	o       *Options      // immutable after NewEncoder
	bw      *bufio.Writer // writer goroutine only: the plain stream
	zw      *zlib.Writer  // writer goroutine only: the MCCP2 stream, kept for reuse
	out     io.Writer     // writer goroutine only: bw, or zw while compressing
	lastCR  bool          // writer goroutine only: the last text byte written was '\r'
	scratch []byte        // writer goroutine only

	compressing atomic.Bool // atomic: written by the writer goroutine, read anywhere
}

// encoderChunk is the most converted text held before it is written on.
const encoderChunk = 4096

// NewEncoder returns an Encoder writing to w under the negotiated state o.
func NewEncoder(w io.Writer, o *Options) *Encoder {
	bw := bufio.NewWriterSize(w, encoderChunk)
	return &Encoder{o: o, bw: bw, out: bw}
}

// WriteText writes text from the game: every 0xFF doubled as IAC IAC, every
// "\n" sent as "\r\n" (a "\r\n" already present stays as it is, also across
// calls). When the client has no UTF-8, runes outside ASCII are folded to
// ASCII where a simple fold exists (é to e, curly quotes to straight ones,
// dashes to '-') and sent as '?' otherwise; no byte >= 0x80 is sent then.
// ANSI escape sequences in p pass unchanged.
func (e *Encoder) WriteText(p []byte) error {
	utf := e.o.UTF8()
	buf := e.scratch[:0]
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\n':
			if !e.lastCR {
				buf = append(buf, '\r')
			}
			buf = append(buf, '\n')
			e.lastCR = false
			i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			e.lastCR = c == '\r'
			i++
		case utf:
			// Bytes pass as they are; 0xFF is never valid UTF-8 but
			// must still not reach the client as a command.
			if c == IAC {
				buf = append(buf, IAC)
			}
			buf = append(buf, c)
			e.lastCR = false
			i++
		default:
			r, n := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && n <= 1 {
				buf = append(buf, '?')
			} else {
				buf = appendASCII(buf, r)
			}
			e.lastCR = false
			i += n
		}
		if len(buf) >= encoderChunk {
			if _, err := e.out.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	var err error
	if len(buf) > 0 {
		_, err = e.out.Write(buf)
	}
	// Keep a small scratch buffer; a burst's big one goes, so an idle
	// connection does not hold the memory of its largest output.
	if cap(buf) <= 1024 {
		e.scratch = buf[:0]
	}
	return err
}

// WritePrompt writes a prompt: WriteText, then IAC EOR if the client agreed
// to EOR, else IAC GA unless suppress-go-ahead was agreed.
func (e *Encoder) WritePrompt(p []byte) error {
	if err := e.WriteText(p); err != nil {
		return err
	}
	if end := e.o.promptEnd(); len(end) > 0 {
		_, err := e.out.Write(end)
		return err
	}
	return nil
}

// WriteRaw writes control bytes as given: negotiation replies from the
// Decoder, EchoOff/EchoOn, frames from GMCPFrame and MSSPFrame.
func (e *Encoder) WriteRaw(ctl []byte) error {
	_, err := e.out.Write(ctl)
	return err
}

// GMCP writes one GMCP message; see GMCPFrame.
func (e *Encoder) GMCP(pkg string, json []byte) error { return e.WriteRaw(GMCPFrame(pkg, json)) }

// MSSP writes the MSSP variables; see MSSPFrame.
func (e *Encoder) MSSP(vars []MSSPVar) error { return e.WriteRaw(MSSPFrame(vars)) }

// Flush sends everything written so far: a zlib sync flush first while
// compressing, so the client can decompress all of it now.
func (e *Encoder) Flush() error {
	if e.compressing.Load() {
		if err := e.zw.Flush(); err != nil {
			return err
		}
	}
	return e.bw.Flush()
}

// appendASCII appends an ASCII stand-in for a non-ASCII rune.
func appendASCII(b []byte, r rune) []byte {
	switch {
	case r >= 0xc0 && r <= 0xff:
		if s, ok := latin1Multi[r]; ok {
			return append(b, s...)
		}
		return append(b, latin1Fold[r-0xc0])
	case r >= 0x100 && r <= 0x17f:
		if s, ok := extAMulti[r]; ok {
			return append(b, s...)
		}
		return append(b, extAFold[r-0x100])
	case r >= 0x300 && r <= 0x36f:
		return b // combining marks: the base letter was already folded
	}
	switch r {
	case 0xa0, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
		0x2008, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000:
		return append(b, ' ')
	case 0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff:
		return b // soft hyphen and zero-width characters
	case 0x2018, 0x2019, 0x201a, 0x201b, 0x2032, 0xb4:
		return append(b, '\'')
	case 0x201c, 0x201d, 0x201e, 0x201f, 0x2033:
		return append(b, '"')
	case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212:
		return append(b, '-')
	case 0x2026:
		return append(b, "..."...)
	case 0x2022, 0x2023, 0x2043:
		return append(b, '*')
	case 0xb7:
		return append(b, '.')
	case 0xab:
		return append(b, "<<"...)
	case 0xbb:
		return append(b, ">>"...)
	case 0x2039:
		return append(b, '<')
	case 0x203a:
		return append(b, '>')
	case 0xa9:
		return append(b, "(c)"...)
	case 0xae:
		return append(b, "(R)"...)
	case 0x2122:
		return append(b, "TM"...)
	case 0xa1:
		return append(b, '!')
	case 0xbf:
		return append(b, '?')
	case 0x2190:
		return append(b, "<-"...)
	case 0x2192:
		return append(b, "->"...)
	}
	return append(b, '?')
}

// latin1Fold folds U+00C0..U+00FF; latin1Multi holds the folds longer than
// one letter.
const latin1Fold = "AAAAAA?CEEEEIIII" + "DNOOOOOxOUUUUY??" + "aaaaaa?ceeeeiiii" + "dnooooo/ouuuuy?y"

var latin1Multi = map[rune]string{0xc6: "AE", 0xde: "Th", 0xdf: "ss", 0xe6: "ae", 0xfe: "th"}

// extAFold folds Latin Extended-A, U+0100..U+017F; extAMulti holds the folds
// longer than one letter.
const extAFold = "AaAaAaCcCcCcCcDd" + "DdEeEeEeEeEeGgGg" + "GgGgHhHhIiIiIiIi" + "Ii??JjKkkLlLlLlL" +
	"lLlNnNnNnnNnOoOo" + "Oo??RrRrRrSsSsSs" + "SsTtTtTtUuUuUuUu" + "UuUuWwYyYZzZzZzs"

var extAMulti = map[rune]string{0x132: "IJ", 0x133: "ij", 0x152: "OE", 0x153: "oe"}
