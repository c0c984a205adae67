package telnet

import (
	"compress/zlib"
	"io"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Encoder writes the server's side of a connection. It is owned by the
// writer goroutine; only Compressing may be called from elsewhere.
//
// Output is buffered: everything written between two Flushes goes to the
// underlying writer in one Write at Flush (a burst past maxPending bytes is
// passed on as it grows), so a burst of many lines costs one system call.
// Between bursts the Encoder holds no buffer: Flush hands it back to a pool
// shared by every connection, so an idle connection costs nothing here.
type Encoder struct {
	o       *Options     // immutable after NewEncoder
	w       io.Writer    // immutable after NewEncoder: the connection
	buf     []byte       // writer goroutine only: bytes for the next Flush; nil between bursts
	bufp    *[]byte      // writer goroutine only: the pool's holder of buf, put back with it
	zw      *zlib.Writer // writer goroutine only: the MCCP2 stream, kept for reuse
	lastCR  bool         // writer goroutine only: the last text byte written was '\r'
	scratch []byte       // writer goroutine only: text converted for zlib, while compressing
	err     error        // writer goroutine only: the connection's first write error, returned ever after
	// Bytes counted for the gate's figures, writer goroutine only: passed
	// to the connection, and while compressing, put into the zlib stream
	// and come out of it.
	wire, zin, zout uint64

	compressing atomic.Bool // atomic: written by the writer goroutine, read anywhere
}

// maxPending is the most bytes held before they are written on, whatever
// the burst; it bounds the memory of one connection's burst.
const maxPending = 64 << 10

// bufPool holds the burst buffers of idle connections.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// NewEncoder returns an Encoder writing to w under the negotiated state o.
func NewEncoder(w io.Writer, o *Options) *Encoder {
	return &Encoder{o: o, w: w}
}

// plain appends bytes to the burst buffer, taking one from the pool at the
// start of a burst, and writes a burst that grew past maxPending on now.
// It is the io.Writer under the zlib stream too.
type plain Encoder

func (p *plain) Write(b []byte) (int, error) {
	e := (*Encoder)(p)
	if e.compressing.Load() {
		e.zout += uint64(len(b))
	}
	if e.buf == nil {
		e.takeBuf()
	}
	e.buf = append(e.buf, b...)
	if len(e.buf) >= maxPending {
		if err := e.writeOut(); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// writeOut passes the buffered bytes to the connection and hands the
// buffer back to the pool.
func (e *Encoder) writeOut() error {
	if e.buf == nil {
		return e.err
	}
	if len(e.buf) > 0 && e.err == nil {
		var n int
		n, e.err = e.w.Write(e.buf)
		e.wire += uint64(n)
	}
	if cap(e.buf) <= maxPending*2 {
		*e.bufp = e.buf[:0]
		bufPool.Put(e.bufp)
	}
	e.buf, e.bufp = nil, nil
	return e.err
}

// takeBuf takes a burst buffer from the pool. The pool's *[]byte is kept
// beside it and put back by writeOut, so a burst allocates nothing.
func (e *Encoder) takeBuf() {
	e.bufp = bufPool.Get().(*[]byte)
	e.buf = (*e.bufp)[:0]
}

// out is where text and control bytes go: the zlib stream while
// compressing, else the burst buffer.
func (e *Encoder) out() io.Writer {
	if e.compressing.Load() {
		return e.zw
	}
	return (*plain)(e)
}

// WriteText writes text from the game: every 0xFF doubled as IAC IAC, every
// "\n" sent as "\r\n" (a "\r\n" already present stays as it is, also across
// calls). When the client has no UTF-8, runes outside ASCII are folded to
// ASCII where a simple fold exists (é to e, curly quotes to straight ones,
// dashes to '-') and sent as '?' otherwise; no byte >= 0x80 is sent then.
// ANSI escape sequences in p pass unchanged.
func (e *Encoder) WriteText(p []byte) error {
	if e.err != nil {
		return e.err
	}
	if e.compressing.Load() {
		e.scratch = e.appendText(e.scratch[:0], p)
		e.zin += uint64(len(e.scratch))
		_, err := e.zw.Write(e.scratch)
		if cap(e.scratch) > 4096 {
			e.scratch = nil // a burst's big one goes
		}
		return err
	}
	if e.buf == nil {
		e.takeBuf()
	}
	e.buf = e.appendText(e.buf, p)
	if len(e.buf) >= maxPending {
		return e.writeOut()
	}
	return nil
}

// appendText appends p converted for the wire (see WriteText) to buf.
func (e *Encoder) appendText(buf, p []byte) []byte {
	utf := e.o.UTF8()
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
	}
	return buf
}

// WritePrompt writes a prompt: WriteText, then IAC EOR if the client agreed
// to EOR, else IAC GA unless suppress-go-ahead was agreed.
func (e *Encoder) WritePrompt(p []byte) error {
	if err := e.WriteText(p); err != nil {
		return err
	}
	if end := e.o.promptEnd(); len(end) > 0 {
		return e.control(end)
	}
	return nil
}

// WriteRaw writes control bytes as given: negotiation replies from the
// Decoder, EchoOff/EchoOn, frames from GMCPFrame and MSSPFrame.
func (e *Encoder) WriteRaw(ctl []byte) error {
	if e.err != nil {
		return e.err
	}
	return e.control(ctl)
}

// control writes control bytes where text goes now.
func (e *Encoder) control(ctl []byte) error {
	if e.compressing.Load() {
		e.zin += uint64(len(ctl))
	}
	_, err := e.out().Write(ctl)
	return err
}

// Counts returns the bytes passed to the connection so far, and of the
// output while compressing, the bytes put into the zlib stream and the
// bytes that came out of it. Writer goroutine only.
func (e *Encoder) Counts() (wire, mccpIn, mccpOut uint64) { return e.wire, e.zin, e.zout }

// GMCP writes one GMCP message; see GMCPFrame.
func (e *Encoder) GMCP(pkg string, json []byte) error { return e.WriteRaw(GMCPFrame(pkg, json)) }

// MSSP writes the MSSP variables; see MSSPFrame.
func (e *Encoder) MSSP(vars []MSSPVar) error { return e.WriteRaw(MSSPFrame(vars)) }

// Flush sends everything written since the last Flush in one Write: a
// zlib sync flush first while compressing, so the client can decompress
// all of it now.
func (e *Encoder) Flush() error {
	if e.compressing.Load() {
		if err := e.zw.Flush(); err != nil {
			return err
		}
	}
	return e.writeOut()
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
