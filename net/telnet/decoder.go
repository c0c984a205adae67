package telnet

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Event is what Decoder.Next returns: one of the types below.
type Event interface{ isEvent() }

// Line is one input line. CR LF, LF, CR NUL or a lone CR end it and are not
// included. NUL and other C0 controls are removed, TAB becomes a space,
// backspace and DEL erase the character before them, ESC sequences are
// removed, and so are C1 controls. The text is valid UTF-8: invalid bytes
// become U+FFFD; when the client is not in UTF-8 mode a line that is not
// valid UTF-8 is read as Latin-1.
type Line struct{ Text string }

// LineTooLong reports that a line grew past Config.MaxLine. It is returned
// as the line overflows; the rest of that line, up to its end, is discarded
// and no Line is returned for it.
type LineTooLong struct{ Limit int }

// Resize is a window size from NAWS, each clamped into [0, 1000]; 0 means
// unknown.
type Resize struct{ Width, Height int }

// ClientChanged reports progress of the TTYPE cycle (Info.Done at its end)
// or a change of UTF8.
type ClientChanged struct{ Info ClientInfo }

// GMCPMessage is a GMCP message from the client: "Core.Hello {...}" split at
// the first space. Data may be empty and is not checked to be JSON.
type GMCPMessage struct {
	Package string
	Data    []byte
}

// MSSPRequested asks the gate to send Encoder.MSSP now: the client said DO
// MSSP.
type MSSPRequested struct{}

// CompressRequested asks the gate to make its writer call
// Encoder.StartCompression: the client said DO MCCP2.
type CompressRequested struct{}

// CompressStopped asks the gate to make its writer call
// Encoder.StopCompression: the client said DONT MCCP2 after agreeing.
type CompressStopped struct{}

// ProtocolError reports client input the decoder ignored or discarded, such
// as an oversized or nested subnegotiation. The decoder has recovered; the
// gate may log it.
type ProtocolError struct{ Reason string }

func (Line) isEvent()              {}
func (LineTooLong) isEvent()       {}
func (Resize) isEvent()            {}
func (ClientChanged) isEvent()     {}
func (GMCPMessage) isEvent()       {}
func (MSSPRequested) isEvent()     {}
func (CompressRequested) isEvent() {}
func (CompressStopped) isEvent()   {}
func (ProtocolError) isEvent()     {}

// Error returns the reason, so that a ProtocolError can be logged as an error.
func (e ProtocolError) Error() string { return "telnet: " + e.Reason }

// Decoder states, one per position in a command.
const (
	stData  uint8 = iota // plain data
	stIAC                // after IAC
	stVerb               // after IAC WILL/WONT/DO/DONT, waiting for the option
	stSBOpt              // after IAC SB, waiting for the option
	stSB                 // inside a subnegotiation
	stSBIAC              // after IAC inside a subnegotiation
)

// Escape sequence states for removing ESC sequences from input lines.
const (
	escNone   uint8 = iota
	escStart        // after ESC
	escInter        // ESC and intermediate bytes, waiting for the final byte
	escCSI          // ESC [ and parameters, waiting for the final byte
	escString       // OSC, DCS, SOS, PM or APC: until BEL or ESC \
	escStrEsc       // ESC inside such a string
	escSS           // ESC N or ESC O: one more byte
)

// readSize is the size of the decoder's read buffer. Players type short
// lines; a small buffer keeps an idle connection cheap.
const readSize = 1024

// Decoder reads the client's side of a connection. It is owned by the reader
// goroutine; all its fields are.
//
// The decoder is a byte-wise state machine: any split of the input across
// reads gives the same events and replies.
type Decoder struct {
	r      io.Reader
	o      *Options
	reply  func(ctl []byte)
	maxLn  int
	maxSub int

	rbuf  [readSize]byte
	rpos  int
	rend  int
	err   error
	empty int // consecutive reads that returned nothing

	state uint8
	verb  byte

	sbOpt  byte
	sb     []byte // the subnegotiation payload, unescaped; cap <= maxSub
	sbRaw  int    // payload bytes as sent, IAC IAC counted as two
	sbOver bool   // over maxSub: discarding until IAC SE

	line    []byte // the line so far; cap <= maxLn
	discard bool   // the line overflowed: discarding until its end
	sawCR   bool   // the last data byte was CR
	esc     uint8
	aytOK   bool // AYT may be answered: once per line, so it cannot amplify a flood

	queue []Event
	head  int
}

// NewDecoder returns a Decoder reading from r under the negotiated state o.
// reply receives every negotiation answer, and owns the slice it is given;
// the gate queues those bytes for its writer. reply is called on the reader
// goroutine and must not be nil.
func NewDecoder(r io.Reader, o *Options, reply func(ctl []byte)) *Decoder {
	if reply == nil {
		panic("telnet: NewDecoder with a nil reply func")
	}
	return &Decoder{r: r, o: o, reply: reply, maxLn: o.cfg.MaxLine, maxSub: o.cfg.MaxSubneg, aytOK: true}
}

// Next blocks until the next event and returns it. It handles negotiation
// itself, sending answers through the reply func, and returns no event for a
// negotiation it handled fully. At the end of the stream, or on a read
// error, it returns the events still pending and then the error (io.EOF at
// the end), whatever state the stream ended in; a line without its end is
// dropped.
func (d *Decoder) Next() (Event, error) {
	for {
		if d.head < len(d.queue) {
			e := d.queue[d.head]
			d.queue[d.head] = nil
			d.head++
			if d.head == len(d.queue) {
				d.queue, d.head = d.queue[:0], 0
			}
			return e, nil
		}
		if d.rpos < d.rend {
			for d.rpos < d.rend && len(d.queue) == 0 {
				c := d.rbuf[d.rpos]
				d.rpos++
				d.step(c)
			}
			continue
		}
		if d.err != nil {
			return nil, d.err
		}
		n, err := d.r.Read(d.rbuf[:])
		d.rpos, d.rend = 0, max(0, min(n, readSize))
		switch {
		case err != nil:
			d.err = err
		case n > 0:
			d.empty = 0
		default:
			if d.empty++; d.empty >= 100 {
				d.err = io.ErrNoProgress
			}
		}
	}
}

// step advances the state machine by one byte.
func (d *Decoder) step(c byte) {
	switch d.state {
	case stData:
		if c == IAC {
			d.state = stIAC
			return
		}
		d.data(c)
	case stIAC:
		d.state = stData
		switch c {
		case IAC:
			d.data(IAC)
		case WILL, WONT, DO, DONT:
			d.verb = c
			d.state = stVerb
		case SB:
			d.state = stSBOpt
		case EC:
			d.erase()
		case EL:
			d.eraseLine()
		case AYT:
			if d.aytOK {
				d.aytOK = false
				d.reply([]byte("[Yes]\r\n"))
			}
		}
		// NOP, GA, EOR, DM, BRK, IP, AO, a stray SE and unknown commands
		// need nothing.
	case stVerb:
		d.state = stData
		var out outbox
		d.o.recv(d.verb, c, &out)
		d.flush(&out)
	case stSBOpt:
		if c == IAC {
			// IAC SB IAC: no option. Take the second IAC as the start of
			// a command rather than swallow the stream up to some SE.
			d.emit(ProtocolError{Reason: "IAC SB without an option"})
			d.state = stIAC
			return
		}
		d.sbOpt = c
		d.sb, d.sbRaw, d.sbOver = d.sb[:0], 0, false
		d.state = stSB
	case stSB:
		if c == IAC {
			d.state = stSBIAC
			return
		}
		d.sbByte(c, 1)
	case stSBIAC:
		switch c {
		case IAC:
			d.state = stSB
			d.sbByte(IAC, 2)
		case SE:
			d.state = stData
			d.endSB()
		case SB:
			// The open subnegotiation lost its end; the new one starts.
			d.emit(ProtocolError{Reason: fmt.Sprintf("IAC SB inside the subnegotiation for option %d; discarded it", d.sbOpt)})
			d.releaseSB()
			d.state = stSBOpt
		default:
			// IAC and a command other than SE: the subnegotiation lost
			// its end. Drop it and take the command as a command.
			d.emit(ProtocolError{Reason: fmt.Sprintf("IAC %d inside the subnegotiation for option %d; discarded it", c, d.sbOpt)})
			d.releaseSB()
			d.state = stIAC
			d.step(c)
		}
	}
}

// sbByte adds one payload byte; raw is what it took on the wire.
func (d *Decoder) sbByte(c byte, raw int) {
	if d.sbOver {
		return
	}
	d.sbRaw += raw
	if d.sbRaw > d.maxSub {
		d.sbOver = true
		d.releaseSB()
		d.emit(ProtocolError{Reason: fmt.Sprintf("subnegotiation for option %d over %d bytes; discarded", d.sbOpt, d.maxSub)})
		return
	}
	d.sb = appendCapped(d.sb, c, d.maxSub)
}

// endSB dispatches a complete subnegotiation.
func (d *Decoder) endSB() {
	if d.sbOver {
		d.sbOver = false
		return
	}
	var out outbox
	d.o.subneg(d.sbOpt, d.sb, &out)
	d.flush(&out)
	if cap(d.sb) > 1024 {
		d.sb = nil // a large payload is rare; do not keep its buffer
	} else {
		d.sb = d.sb[:0]
	}
}

func (d *Decoder) releaseSB() {
	if cap(d.sb) > 1024 {
		d.sb = nil
	} else {
		d.sb = d.sb[:0]
	}
}

// data handles one byte of the data stream.
func (d *Decoder) data(c byte) {
	if d.sawCR {
		d.sawCR = false
		if c == '\n' || c == 0 {
			return // CR LF or CR NUL: the CR ended the line
		}
	}
	switch c {
	case '\r':
		d.endLine()
		d.sawCR = true
		return
	case '\n':
		d.endLine()
		return
	}
	if d.esc != escNone && d.escape(c) {
		return
	}
	switch {
	case c == 0x1b:
		d.esc = escStart
		return
	case c == '\t':
		c = ' '
	case c == '\b' || c == 0x7f:
		d.erase()
		return
	case c < 0x20:
		return
	}
	if d.discard {
		return
	}
	if len(d.line) >= d.maxLn {
		d.discard = true
		d.line = d.line[:0]
		d.emit(LineTooLong{Limit: d.maxLn})
		return
	}
	d.line = appendCapped(d.line, c, d.maxLn)
}

// escape advances an escape sequence by c and reports whether c belonged to
// it. A byte that cannot continue the sequence ends it and is not consumed.
func (d *Decoder) escape(c byte) bool {
	switch d.esc {
	case escStart:
		switch {
		case c == '[':
			d.esc = escCSI
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			d.esc = escString
		case c == 'N' || c == 'O':
			d.esc = escSS
		case c == 0x1b:
			// ESC ESC: the first was alone; a new sequence starts.
		case c >= 0x20 && c <= 0x2f:
			d.esc = escInter
		case c >= 0x30 && c <= 0x7e:
			d.esc = escNone
		default:
			d.esc = escNone
			return false
		}
	case escInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c >= 0x30 && c <= 0x7e:
			d.esc = escNone
		default:
			d.esc = escNone
			return false
		}
	case escCSI:
		switch {
		case c >= 0x20 && c <= 0x3f:
		case c >= 0x40 && c <= 0x7e:
			d.esc = escNone
		default:
			d.esc = escNone
			return false
		}
	case escString:
		switch c {
		case 0x07:
			d.esc = escNone
		case 0x1b:
			d.esc = escStrEsc
		}
	case escStrEsc:
		if c == '\\' {
			d.esc = escNone
			return true
		}
		// Not a string terminator: the ESC starts a new sequence.
		d.esc = escStart
		return d.escape(c)
	case escSS:
		d.esc = escNone
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// endLine ends the current line.
func (d *Decoder) endLine() {
	d.esc = escNone
	if d.discard {
		d.discard = false
		d.line = d.line[:0]
		return
	}
	d.emit(Line{Text: d.text(d.line)})
	d.line = d.line[:0]
	d.aytOK = true
}

// erase removes the last character of the line.
func (d *Decoder) erase() {
	if d.discard || len(d.line) == 0 {
		return
	}
	_, n := utf8.DecodeLastRune(d.line)
	d.line = d.line[:len(d.line)-max(n, 1)]
}

// eraseLine clears the line.
func (d *Decoder) eraseLine() {
	if !d.discard {
		d.line = d.line[:0]
	}
}

// text converts a raw line to valid UTF-8 without C1 controls. A line that
// is valid UTF-8 is read as UTF-8 even when the client never said so: plain
// telnet from a modern terminal sends UTF-8 without negotiating.
func (d *Decoder) text(p []byte) string {
	ascii := true
	for _, c := range p {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return string(p)
	}
	b := make([]byte, 0, len(p)+len(p)/2)
	if d.o.UTF8() || utf8.Valid(p) {
		for len(p) > 0 {
			r, n := utf8.DecodeRune(p)
			p = p[n:]
			if r >= 0x80 && r < 0xa0 {
				continue
			}
			b = utf8.AppendRune(b, r) // RuneError for an invalid byte
		}
		return string(b)
	}
	for _, c := range p {
		switch {
		case c < 0x80:
			b = append(b, c)
		case c >= 0xa0:
			b = utf8.AppendRune(b, rune(c))
		}
	}
	return string(b)
}

func (d *Decoder) emit(e Event) { d.queue = append(d.queue, e) }

// flush hands negotiation replies to the gate and queues the events.
func (d *Decoder) flush(out *outbox) {
	if len(out.reply) > 0 {
		d.reply(out.reply)
	}
	d.queue = append(d.queue, out.events...)
}

// appendCapped appends c to b, growing b at most to limit bytes of
// capacity. Callers keep len(b) < limit.
func appendCapped(b []byte, c byte, limit int) []byte {
	if len(b) == cap(b) {
		n := min(max(2*cap(b), 64), limit)
		nb := make([]byte, len(b), n)
		copy(nb, b)
		b = nb
	}
	return append(b, c)
}
