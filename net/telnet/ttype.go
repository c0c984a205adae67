package telnet

import (
	"fmt"
	"strconv"
	"strings"

	"zonemud/internal/markup"
)

// TTYPE (RFC 1091) with the MUD Terminal Type Standard: after the client's
// WILL TTYPE the server sends IAC SB TTYPE SEND IAC SE and reads one answer,
// IAC SB TTYPE IS <name> IAC SE, per request. By MTTS the first answer is the
// client's name, the second its terminal type and the third "MTTS <bits>";
// a client repeats its last answer at the end of its list.

// TTYPE subnegotiation codes.
const (
	ttypeIS   byte = 0
	ttypeSEND byte = 1
)

// maxTTYPERounds caps the SEND requests: name, terminal, MTTS, and one more
// for clients that list a further terminal type before repeating.
const maxTTYPERounds = 4

// MTTS bits (https://tintin.mudhalla.net/protocols/mtts/).
const (
	mttsANSI         = 1
	mttsVT100        = 2
	mttsUTF8         = 4
	mtts256          = 8
	mttsScreenReader = 64
	mttsTrueColor    = 256
)

// ClientInfo is what TTYPE revealed about the client. Name and Terminal are
// as the client sent them, printable ASCII only; compare them with
// strings.EqualFold.
type ClientInfo struct {
	Name     string // first answer: the client ("MUDLET", "TINTIN++"), or a terminal type for plain telnet clients
	Terminal string // second answer, if it differs from the first ("ANSI-TRUECOLOR", "XTERM-256COLOR")
	MTTS     int    // the MTTS bit field, 0 if none was reported
	Done     bool   // the cycle ended, the client refused TTYPE, or TTYPE was not offered
}

// ColorLevel derives the colour depth the way Evennia does (ttype.py):
//
//   - true colour for a name or terminal with "TRUECOLOR", MTTS bit 256, and
//     the clients TinTin++ and Axmud;
//   - 256 colours for "XTERM*", "*256COLOR", MTTS bit 8, and the clients
//     Mudlet, MUSHclient, CMUD, TinyFugue and PuTTY;
//   - none for a client that calls itself "DUMB";
//   - 16 ANSI colours otherwise, including a client that answered nothing:
//     plain telnet terminals render ANSI, and a client without TTYPE is more
//     likely one of those than a terminal without colour.
//
// MTTS bits only ever raise the level.
func (c ClientInfo) ColorLevel() markup.Level {
	name, term := strings.ToUpper(c.Name), strings.ToUpper(c.Terminal)
	either := func(f func(s string) bool) bool { return f(name) || f(term) }
	contains := func(sub string) func(string) bool {
		return func(s string) bool { return strings.Contains(s, sub) }
	}
	prefix := func(pre ...string) func(string) bool {
		return func(s string) bool {
			for _, p := range pre {
				if strings.HasPrefix(s, p) {
					return true
				}
			}
			return false
		}
	}
	switch {
	case c.MTTS&mttsTrueColor != 0, either(contains("TRUECOLOR")), prefix("TINTIN", "AXMUD")(name):
		return markup.TrueColor
	case c.MTTS&mtts256 != 0, either(contains("256COLOR")), either(prefix("XTERM")),
		prefix("MUDLET", "MUSHCLIENT", "CMUD", "TINYFUGUE", "PUTTY")(name):
		return markup.Color256
	case name == "DUMB", term == "DUMB":
		return markup.None
	}
	return markup.Color16
}

// ttypeState is the server's progress through the TTYPE cycle.
type ttypeState struct {
	sent     int    // SEND requests sent
	answers  int    // IS answers received
	last     string // the previous answer
	mttsUTF8 bool   // MTTS bit 4 was reported
	info     ClientInfo
}

// ttypeChangedLocked starts the cycle when the client agrees to TTYPE and
// ends it when the client refuses or withdraws.
func (o *Options) ttypeChangedLocked(wasOn, isOn, refused bool, out *outbox) {
	switch {
	case isOn && !wasOn:
		if !o.tt.info.Done && o.tt.sent == 0 {
			o.ttypeSendLocked(out)
		}
	case (wasOn || refused) && !o.tt.info.Done:
		o.tt.info.Done = true
		o.publishClientLocked(out)
	}
}

func (o *Options) ttypeSendLocked(out *outbox) {
	o.tt.sent++
	out.raw(IAC, SB, OptTTYPE, ttypeSEND, IAC, SE)
}

// ttypeSubneg handles IAC SB TTYPE IS <answer> IAC SE.
func (o *Options) ttypeSubneg(p []byte, out *outbox) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(p) == 0 || p[0] != ttypeIS {
		return // a SEND from the client, or nothing: not ours to answer
	}
	t := &o.tt
	if t.info.Done || t.answers >= t.sent {
		out.emit(ProtocolError{Reason: "TTYPE IS without a pending SEND; ignored"})
		return
	}
	v := p[1:]
	if len(v) > maxTTYPE {
		out.emit(ProtocolError{Reason: fmt.Sprintf("TTYPE answer of %d bytes truncated to %d", len(v), maxTTYPE)})
		v = v[:maxTTYPE]
	}
	ans := cleanTTYPE(v)
	t.answers++
	info := &t.info
	switch {
	case t.answers == 1:
		info.Name = ans
	case strings.EqualFold(ans, t.last):
		info.Done = true // the client repeats itself: the end of its list
	default:
		if bits, ok := parseMTTS(ans); ok {
			info.MTTS = bits
			t.mttsUTF8 = bits&mttsUTF8 != 0
			info.Done = true // MTTS is the last thing worth asking for
		} else if t.answers == 2 {
			info.Terminal = ans
		}
		if t.answers >= maxTTYPERounds {
			info.Done = true
		}
	}
	t.last = ans
	o.publishClientLocked(out)
	if !info.Done {
		o.ttypeSendLocked(out)
	}
}

// cleanTTYPE keeps the printable ASCII of an answer, trimmed.
func cleanTTYPE(v []byte) string {
	var b strings.Builder
	for _, c := range v {
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// parseMTTS parses "MTTS <decimal>".
func parseMTTS(s string) (int, bool) {
	if len(s) < 6 || !strings.EqualFold(s[:5], "MTTS ") {
		return 0, false
	}
	digits := strings.TrimSpace(s[5:])
	if len(digits) == 0 || len(digits) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
