package telnet

import (
	"bytes"
	"strings"
)

// CHARSET (RFC 2066). The server offers WILL CHARSET; once either side has
// agreed it sends one REQUEST for UTF-8 or US-ASCII, the first byte of the
// list being its separator. ACCEPTED UTF-8 turns UTF8 on.
//
// Clients disagree about who sends the REQUEST (mushclient#47,
// telnetlib3#59, tinymux#627): MUSHclient refuses WILL CHARSET but answers
// DO CHARSET. So a refused WILL CHARSET is followed by one DO CHARSET, and a
// REQUEST from the client is answered as well.

// CHARSET subnegotiation codes.
const (
	csRequest        byte = 1
	csAccepted       byte = 2
	csRejected       byte = 3
	csTTableIs       byte = 4
	csTTableRejected byte = 5
)

// charsetOffer is the server's REQUEST list: separator, then the names.
const charsetOffer = ";UTF-8;US-ASCII"

// maxCharsetAnswers caps the client REQUESTs the server answers. A client
// that answers each REJECTED with a new REQUEST would otherwise keep the
// exchange going for ever.
const maxCharsetAnswers = 4

// charsetState is the server's progress through CHARSET.
type charsetState struct {
	requested   bool // the server's REQUEST was sent; it is sent once
	outstanding bool // and is not yet answered
	triedDo     bool // DO CHARSET was sent after the client refused WILL CHARSET
	answers     int  // client REQUESTs answered
	utf8        bool // the client accepted or asked for UTF-8
}

// charsetChangedLocked sends the REQUEST once the option is on for either
// side, and falls back to DO CHARSET once when WILL CHARSET is refused.
func (o *Options) charsetChangedLocked(s side, wasOn, isOn, refused bool, out *outbox) {
	switch {
	case isOn && !wasOn:
		if !o.cs.requested {
			o.cs.requested = true
			o.cs.outstanding = true
			out.raw(IAC, SB, OptCharset, csRequest)
			out.raw([]byte(charsetOffer)...)
			out.raw(IAC, SE)
		}
	case s == usSide && refused && !o.cs.triedDo && o.him[OptCharset]&qStateMask == qNo:
		o.cs.triedDo = true
		o.requestLocked(himSide, OptCharset, out)
	}
}

// charsetSubneg handles IAC SB CHARSET ... IAC SE.
func (o *Options) charsetSubneg(p []byte, out *outbox) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(p) == 0 {
		out.emit(ProtocolError{Reason: "empty CHARSET subnegotiation"})
		return
	}
	switch p[0] {
	case csRequest:
		if o.cs.answers >= maxCharsetAnswers {
			out.emit(ProtocolError{Reason: "too many CHARSET REQUESTs; ignored"})
			return
		}
		o.cs.answers++
		if o.cs.outstanding {
			// Both sides sent REQUEST at once: RFC 2066 has the server
			// reject the client's and wait for the answer to its own.
			out.raw(IAC, SB, OptCharset, csRejected, IAC, SE)
			return
		}
		name, ok := pickUTF8(p[1:])
		if !ok {
			out.raw(IAC, SB, OptCharset, csRejected, IAC, SE)
			return
		}
		out.raw(IAC, SB, OptCharset, csAccepted)
		out.raw(name...)
		out.raw(IAC, SE)
		o.setCharsetUTF8Locked(true, out)
	case csAccepted:
		o.cs.outstanding = false
		o.setCharsetUTF8Locked(isUTF8Name(p[1:]), out)
	case csRejected:
		o.cs.outstanding = false
	case csTTableIs:
		// No translation tables here; RFC 2066 requires an answer.
		out.raw(IAC, SB, OptCharset, csTTableRejected, IAC, SE)
	}
}

// setCharsetUTF8Locked records the CHARSET outcome and tells the gate if UTF8
// changed.
func (o *Options) setCharsetUTF8Locked(v bool, out *outbox) {
	o.cs.utf8 = v
	if o.updateUTF8Locked() {
		out.emit(ClientChanged{Info: o.tt.info})
	}
}

// pickUTF8 finds UTF-8 in a REQUEST list and returns the name as the client
// spelled it. The list starts with its separator; a list that starts with a
// letter or digit has none, and is split at spaces, commas and semicolons.
func pickUTF8(list []byte) ([]byte, bool) {
	// A translation-table request, "[TTABLE]" and a version byte, is
	// answered for its character sets alone.
	if rest, ok := bytes.CutPrefix(list, []byte("[TTABLE]")); ok {
		if len(rest) == 0 {
			return nil, false
		}
		list = rest[1:]
	}
	if len(list) == 0 {
		return nil, false
	}
	var names [][]byte
	if c := list[0]; c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
		names = bytes.FieldsFunc(list, func(r rune) bool { return r == ' ' || r == ',' || r == ';' })
	} else {
		names = bytes.Split(list[1:], list[:1])
	}
	for _, n := range names {
		if isUTF8Name(n) {
			return bytes.TrimSpace(n), true
		}
	}
	return nil, false
}

// isUTF8Name reports whether a character set name means UTF-8. TinTin++
// answers " UTF-8", with a space.
func isUTF8Name(n []byte) bool {
	s := strings.TrimSpace(string(n))
	return strings.EqualFold(s, "UTF-8") || strings.EqualFold(s, "UTF8")
}
