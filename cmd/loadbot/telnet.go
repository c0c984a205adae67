package main

import (
	"bytes"
	"strconv"
	"strings"
)

// Telnet bytes the bot understands (RFC 854, RFC 885 for EOR).
const (
	cmdSE   = 240
	cmdGA   = 249
	cmdSB   = 250
	cmdWILL = 251
	cmdWONT = 252
	cmdDO   = 253
	cmdDONT = 254
	cmdIAC  = 255
	cmdEOR  = 239

	optEOR  = 25
	optGMCP = 201
)

// gmcpSupports is what a bot with GMCP on asks the server for, as Mudlet
// and the web page do: vitals, rooms and the text of talk.
const gmcpSupports = `Core.Supports.Set ["Char 1", "Room 1", "Comm 1"]`

// mark is an in-band telnet signal that may end a prompt.
type mark uint8

const (
	markEOR mark = iota + 1
	markGA
)

// decoder is the client side of the telnet protocol as far as a bot needs it:
// it strips IAC sequences from the data, reports EOR and GA, agrees to EOR
// and refuses every other option. Answers to negotiation pile up in reply,
// which the caller writes to the connection and truncates.
//
// A decoder is owned by one goroutine at a time: the bot's goroutine during
// login, then its reader.
type decoder struct {
	state uint8
	verb  byte // WILL, WONT, DO or DONT waiting for its option byte
	eor   bool // the server offered EOR and we agreed
	// gmcp, set before the first feed, agrees to GMCP when the server
	// offers it and asks for gmcpSupports; the messages that follow are
	// subnegotiations, skipped as any other.
	gmcp   bool
	gmcpOn bool
	reply  []byte
}

// Decoder states, named in the manner of net/textproto's dotReader.
const (
	stateData  = iota
	stateIAC   // after IAC
	stateOpt   // after IAC WILL/WONT/DO/DONT
	stateSB    // inside a subnegotiation
	stateSBIAC // IAC inside a subnegotiation
)

// feed decodes p. Runs of text go to text, EOR and GA go to onMark, in the
// order they appear. The text slices alias p, or are a one-byte slice holding
// a literal 255; they are valid only during the call.
func (d *decoder) feed(p []byte, text func([]byte), onMark func(mark)) {
	start := 0 // first byte of the pending text run, when state is stateData
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch d.state {
		case stateData:
			if c != cmdIAC {
				// Skip to the next IAC at once: text is nearly all a bot reads.
				j := bytes.IndexByte(p[i:], cmdIAC)
				if j < 0 {
					i = len(p) - 1
					continue
				}
				i += j
			}
			if i > start {
				text(p[start:i])
			}
			d.state = stateIAC
			continue
		case stateIAC:
			d.state = stateData
			switch c {
			case cmdIAC:
				text(literalIAC[:])
			case cmdWILL, cmdWONT, cmdDO, cmdDONT:
				d.verb, d.state = c, stateOpt
			case cmdSB:
				d.state = stateSB
			case cmdEOR:
				onMark(markEOR)
			case cmdGA:
				onMark(markGA)
			}
			// NOP, AYT, DM and friends carry nothing for a bot.
		case stateOpt:
			d.state = stateData
			d.negotiate(d.verb, c)
		case stateSB:
			if c == cmdIAC {
				d.state = stateSBIAC
			}
		case stateSBIAC:
			switch c {
			case cmdSE:
				d.state = stateData
			default:
				// IAC IAC is an escaped 255 inside the subnegotiation; anything
				// else is malformed and skipped the same way.
				d.state = stateSB
			}
		}
		start = i + 1
	}
	if d.state == stateData && start < len(p) {
		text(p[start:])
	}
}

var literalIAC = [1]byte{cmdIAC}

// negotiate answers one option request. Only a change of state is answered,
// except refusals, which are cheap and never echoed back by a server, so the
// exchange cannot loop (RFC 1143).
func (d *decoder) negotiate(verb, opt byte) {
	switch verb {
	case cmdWILL:
		if opt == optEOR {
			if !d.eor {
				d.eor = true
				d.reply = append(d.reply, cmdIAC, cmdDO, optEOR)
			}
			return
		}
		if opt == optGMCP && d.gmcp {
			if !d.gmcpOn {
				d.gmcpOn = true
				d.reply = append(d.reply, cmdIAC, cmdDO, optGMCP, cmdIAC, cmdSB, optGMCP)
				d.reply = append(d.reply, gmcpSupports...)
				d.reply = append(d.reply, cmdIAC, cmdSE)
			}
			return
		}
		d.reply = append(d.reply, cmdIAC, cmdDONT, opt)
	case cmdWONT:
		if opt == optEOR && d.eor {
			d.eor = false
			d.reply = append(d.reply, cmdIAC, cmdDONT, optEOR)
		}
	case cmdDO:
		d.reply = append(d.reply, cmdIAC, cmdWONT, opt)
	case cmdDONT:
		// We never enable an option of our own, so there is nothing to turn off.
	}
}

// loginTextMax bounds the text a bot keeps while logging in. Questions come at
// the end of what the server sent, so the oldest text is the one to drop.
const loginTextMax = 2048

// stream turns the bytes of one connection into prompts. It keeps the text
// since the bot last answered while logging in (keep), and only the last two
// text bytes afterwards, so a logged-in bot costs a few bytes here.
//
// A prompt is IAC EOR when EOR was agreed; otherwise IAC GA, or "> " at the
// end of the bytes one read returned. A mark with no text since the previous
// prompt (or since the bot last sent a line while logging in) belongs to a
// prompt already counted: a server that sends "> " and GA in two writes, or
// a question followed by EOR that arrives after the bot answered it, gives
// one prompt, not two.
type stream struct {
	dec     decoder
	last2   uint16 // the last two text bytes, CR and NUL skipped
	fresh   bool   // text arrived since the last prompt
	prompts int    // prompts found by the current feed
	keep    bool   // keep text (logging in)
	text    []byte // kept text, when keep

	// Answer matching, once logged in: while armed, the first prompt
	// after text holding one of markers (or the first prompt at all, with
	// no markers) is the answer to the command that armed it.
	armed    bool
	markers  [][]byte
	matched  bool   // a marker was seen since arming
	which    int    // the index of the marker seen (0 with none)
	tail     []byte // the last bytes of text, for a marker split across runs
	answered bool   // the current feed found the answer (and disarmed)

	// Exits: with trackExits, the directions of every "Exits:" line are
	// collected in exits (the caller takes them after a feed).
	trackExits bool
	line       []byte // the line so far, escape sequences removed
	inEsc      bool   // inside an escape sequence
	exits      []string
	sawExits   bool // an exits line ended during the current feed

	// Hearing: with hear, the stamps of other players' says read in
	// lines are collected in heard (the caller takes them after a feed).
	hear  bool
	heard []int64
	// Channel lines: with own set (this bot's "[Gossip] Name: "), the
	// stamps of other bots' gossip lines go in heardCh.
	own     []byte
	heardCh []int64

	// The mix scenario: the room's listing, shop lists and fights.
	mix *mixState
}

// maxMarker bounds an answer marker's length.
const maxMarker = 32

// arm makes the next prompt after one of markers the answer.
func (s *stream) arm(markers [][]byte) {
	s.armed, s.markers, s.matched, s.which = true, markers, len(markers) == 0, 0
	s.tail = s.tail[:0]
}

func (s *stream) disarm() {
	s.armed, s.markers, s.matched = false, nil, false
}

// feed decodes one read's worth of bytes and returns how many prompts ended
// in it. Negotiation answers are left in s.dec.reply.
func (s *stream) feed(p []byte) int {
	s.prompts = 0
	s.answered = false
	s.sawExits = false
	s.dec.feed(p, s.onText, s.onMark)
	if !s.dec.eor && s.fresh && s.last2 == '>'<<8|' ' {
		s.prompt()
	}
	return s.prompts
}

func (s *stream) onText(p []byte) {
	// Only the last two bytes matter (CR and NUL aside): find them from
	// the end, so a long run costs nothing per byte here.
	var tail [2]byte
	n := 0
	for i := len(p) - 1; i >= 0 && n < 2; i-- {
		if c := p[i]; c != '\r' && c != 0 {
			tail[1-n] = c
			n++
		}
	}
	switch n {
	case 2:
		s.last2 = uint16(tail[0])<<8 | uint16(tail[1])
		s.fresh = true
	case 1:
		s.last2 = s.last2<<8 | uint16(tail[1])
		s.fresh = true
	}
	if s.armed && !s.matched {
		s.scan(p)
	}
	if s.trackExits || s.hear || s.own != nil {
		s.lines(p)
	}
	if s.keep {
		if len(s.text)+len(p) > loginTextMax {
			// Keep the newest half; a question is never that long.
			drop := len(s.text) + len(p) - loginTextMax/2
			if drop >= len(s.text) {
				p = p[drop-len(s.text):]
				s.text = s.text[:0]
			} else {
				s.text = append(s.text[:0], s.text[drop:]...)
			}
		}
		s.text = append(s.text, p...)
	}
}

func (s *stream) onMark(m mark) {
	if m == markGA && s.dec.eor {
		return // with EOR agreed, only EOR ends a prompt
	}
	if s.fresh {
		s.prompt()
	}
}

func (s *stream) prompt() {
	s.prompts++
	s.fresh = false
	s.last2 = 0
	if s.mix != nil {
		s.mix.prompt()
	}
	if s.armed && s.matched {
		s.answered = true
		s.disarm()
	}
}

// scan looks for the armed markers in p and across its boundary with the
// text before it.
func (s *stream) scan(p []byte) {
	for i, m := range s.markers {
		if bytes.Contains(p, m) {
			s.matched, s.which = true, i
			return
		}
	}
	if len(s.tail) > 0 {
		// A marker split across runs: look in the old tail and the head
		// of p together.
		n := len(s.tail)
		s.tail = append(s.tail, p[:min(len(p), maxMarker-1)]...)
		for i, m := range s.markers {
			if bytes.Contains(s.tail, m) {
				s.matched, s.which = true, i
				return
			}
		}
		s.tail = s.tail[:n]
	}
	s.tail = append(s.tail, p...)
	if k := len(s.tail) - (maxMarker - 1); k > 0 {
		s.tail = append(s.tail[:0], s.tail[k:]...)
	}
}

// lines follows lines of text for the exits line.
func (s *stream) lines(p []byte) {
	for _, c := range p {
		switch {
		case s.inEsc:
			// CSI: ESC [ params final, the final byte in 0x40..0x7e.
			if c >= 0x40 && c <= 0x7e && c != '[' {
				s.inEsc = false
			}
		case c == 0x1b:
			s.inEsc = true
		case c == '\n':
			s.endLine()
		case c == '\r' || c == 0:
		default:
			if len(s.line) < 256 {
				s.line = append(s.line, c)
			}
		}
	}
}

func (s *stream) endLine() {
	defer func() { s.line = s.line[:0] }()
	if s.hear {
		if t, ok := stampIn(s.line); ok {
			s.heard = append(s.heard, t)
			return
		}
	}
	if s.own != nil {
		if t, ok := channelStampIn(s.line, s.own); ok {
			s.heardCh = append(s.heardCh, t)
			return
		}
	}
	if !s.trackExits {
		return
	}
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(s.line), []byte("Exits:"))
	if !ok {
		if s.mix != nil {
			s.mix.line(s.line)
		}
		return
	}
	if s.mix != nil {
		s.mix.exits()
	}
	s.exits = s.exits[:0]
	for _, w := range strings.Fields(string(rest)) {
		w = strings.Trim(w, ".,")
		switch {
		case w == "(closed)" && len(s.exits) > 0:
			s.exits = s.exits[:len(s.exits)-1] // the screen-reader form: "south (closed)"
			continue
		case w == "" || w == "none" || w == "and" || strings.HasPrefix(w, "[") || w == "(closed)":
			continue // nothing, or a closed door: "[north]"
		}
		s.exits = append(s.exits, w)
	}
	s.sawExits = true
}

// A say's stamp: the time it was sent, run.mono() in decimal between two
// stampMarks, at the end of what was said ("say hello zz12345zz").
const stampMark = "zz"

// appendStamp appends the stamp of time t to a say's text.
func appendStamp(b []byte, t int64) []byte {
	b = append(b, " "+stampMark...)
	b = strconv.AppendInt(b, t, 10)
	return append(b, stampMark...)
}

// stampIn finds the stamp of another player's say in a line ("Botab says,
// 'hello zz12345zz'"); the speaker's own echo ("You say, ...") is not one.
func stampIn(line []byte) (int64, bool) {
	i := bytes.Index(line, []byte(" says, '"))
	if i < 0 || bytes.HasPrefix(bytes.TrimSpace(line), []byte("You ")) {
		return 0, false
	}
	rest := line[i:]
	j := bytes.LastIndex(rest, []byte(stampMark))
	if j < 0 {
		return 0, false
	}
	k := bytes.LastIndex(rest[:j], []byte(stampMark))
	if k < 0 {
		return 0, false
	}
	t, err := strconv.ParseInt(string(rest[k+len(stampMark):j]), 10, 64)
	return t, err == nil && t > 0
}

// channelStampIn finds the stamp of another bot's gossip line
// ("[Gossip] Botab: hello zz12345zz"); one that starts with own, the
// bot's own line, is not one.
func channelStampIn(line, own []byte) (int64, bool) {
	i := bytes.Index(line, []byte(gossipTag))
	if i < 0 || bytes.HasPrefix(line[i:], own) {
		return 0, false
	}
	return lastStamp(line[i:])
}

// lastStamp is the stamp at the end of rest.
func lastStamp(rest []byte) (int64, bool) {
	j := bytes.LastIndex(rest, []byte(stampMark))
	if j < 0 {
		return 0, false
	}
	k := bytes.LastIndex(rest[:j], []byte(stampMark))
	if k < 0 {
		return 0, false
	}
	t, err := strconv.ParseInt(string(rest[k+len(stampMark):j]), 10, 64)
	return t, err == nil && t > 0
}

// sent records that the bot wrote a line while logging in: what came before
// was the question it answered.
func (s *stream) sent() {
	s.fresh = false
	s.last2 = 0
	s.text = s.text[:0]
}

// stopKeeping releases the login text.
func (s *stream) stopKeeping() {
	s.keep = false
	s.text = nil
}

// containsFold reports whether lowerNeedle, which must be lower-case ASCII,
// occurs in s ignoring ASCII case. It does not allocate.
func containsFold(s []byte, lowerNeedle string) bool {
	return indexFold(s, lowerNeedle) >= 0
}

func indexFold(s []byte, lowerNeedle string) int {
	n := len(lowerNeedle)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowerNeedle[j] {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}
