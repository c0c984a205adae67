package telnet

import "fmt"

// NAWS (RFC 1073). The server sends DO NAWS; a client that agrees sends
// IAC SB NAWS w1 w0 h1 h0 IAC SE now and on every resize. A byte 255 in the
// sizes arrives doubled as IAC IAC; the decoder has undone that before the
// payload gets here.

// nawsSubneg handles a window size: exactly four bytes, big-endian width
// then height, each clamped into [0, 1000].
func (o *Options) nawsSubneg(p []byte, out *outbox) {
	if len(p) != 4 {
		out.emit(ProtocolError{Reason: fmt.Sprintf("NAWS subnegotiation of %d bytes, want 4; ignored", len(p))})
		return
	}
	w := min(int(p[0])<<8|int(p[1]), maxNAWS)
	h := min(int(p[2])<<8|int(p[3]), maxNAWS)
	o.size.Store(uint64(w)<<32 | uint64(h))
	out.emit(Resize{Width: w, Height: h})
}
