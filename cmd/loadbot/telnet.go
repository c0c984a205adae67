package main

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

	optEOR = 25
)

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
	reply []byte
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
			if c == cmdIAC {
				if i > start {
					text(p[start:i])
				}
				d.state = stateIAC
			}
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
}

// feed decodes one read's worth of bytes and returns how many prompts ended
// in it. Negotiation answers are left in s.dec.reply.
func (s *stream) feed(p []byte) int {
	s.prompts = 0
	s.dec.feed(p, s.onText, s.onMark)
	if !s.dec.eor && s.fresh && s.last2 == '>'<<8|' ' {
		s.prompt()
	}
	return s.prompts
}

func (s *stream) onText(p []byte) {
	for _, c := range p {
		if c == '\r' || c == 0 {
			continue
		}
		s.last2 = s.last2<<8 | uint16(c)
		s.fresh = true
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
