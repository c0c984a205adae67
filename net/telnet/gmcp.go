package telnet

import (
	"bytes"
	"fmt"
)

// GMCP, the Generic MUD Communication Protocol. The server offers WILL GMCP;
// after DO GMCP both sides send IAC SB GMCP <package> <JSON> IAC SE, the
// package name and the JSON separated by the first space. The JSON is not
// checked here; the gate parses it.

// maxGMCPPackage caps a package name ("Core.Supports.Set", "Char.Vitals").
const maxGMCPPackage = 128

// gmcpSubneg turns a client's GMCP subnegotiation into a GMCPMessage.
func (o *Options) gmcpSubneg(p []byte, out *outbox) {
	if !o.gmcp.Load() {
		out.emit(ProtocolError{Reason: "GMCP message while GMCP is off; ignored"})
		return
	}
	pkg, data := p, []byte(nil)
	// Mudlet also takes a newline as the separator.
	if i := bytes.IndexAny(p, " \n"); i >= 0 {
		pkg, data = p[:i], p[i+1:]
	}
	if len(pkg) == 0 || len(pkg) > maxGMCPPackage {
		out.emit(ProtocolError{Reason: fmt.Sprintf("GMCP package name of %d bytes; ignored", len(pkg))})
		return
	}
	for _, c := range pkg {
		if c <= 0x20 || c >= 0x7f {
			out.emit(ProtocolError{Reason: "GMCP package name with a byte outside printable ASCII; ignored"})
			return
		}
	}
	msg := GMCPMessage{Package: string(pkg)}
	if len(data) > 0 {
		msg.Data = bytes.Clone(data)
	}
	out.emit(msg)
}

// GMCPFrame returns IAC SB GMCP <pkg> <json> IAC SE with every 0xFF doubled.
// With empty json the frame carries the package name alone.
func GMCPFrame(pkg string, json []byte) []byte {
	b := make([]byte, 0, len(pkg)+len(json)+6)
	b = append(b, IAC, SB, OptGMCP)
	b = appendEscaped(b, []byte(pkg))
	if len(json) > 0 {
		b = append(b, ' ')
		b = appendEscaped(b, json)
	}
	return append(b, IAC, SE)
}

// appendEscaped appends p with every IAC doubled.
func appendEscaped(b, p []byte) []byte {
	for len(p) > 0 {
		i := bytes.IndexByte(p, IAC)
		if i < 0 {
			return append(b, p...)
		}
		b = append(b, p[:i+1]...)
		b = append(b, IAC)
		p = p[i+1:]
	}
	return b
}
