package telnet

import (
	"sync"
	"sync/atomic"

	"zonemud/internal/markup"
)

// Config sets the limits of one connection and the options the server
// proposes. The zero Config proposes nothing; DefaultConfig proposes all.
type Config struct {
	MaxLine   int // bytes per input line before it is discarded (default 4096)
	MaxSubneg int // bytes per subnegotiation payload, escaped IACs counted (default 8192)

	// Offer* say which options the server proposes at connect. An option
	// that is not offered is also refused when the client proposes it.
	OfferNAWS, OfferTTYPE, OfferCharset, OfferEOR, OfferGMCP, OfferMSSP, OfferMCCP2 bool
}

// DefaultConfig returns the default limits with every option offered.
func DefaultConfig() Config {
	return Config{
		MaxLine:      DefaultMaxLine,
		MaxSubneg:    DefaultMaxSubneg,
		OfferNAWS:    true,
		OfferTTYPE:   true,
		OfferCharset: true,
		OfferEOR:     true,
		OfferGMCP:    true,
		OfferMSSP:    true,
		OfferMCCP2:   true,
	}
}

// Options is the negotiated state of one connection, shared by its Decoder
// (which changes it), its Encoder and the gate (which read it). Accessors are
// safe from any goroutine.
type Options struct {
	cfg Config // immutable after NewOptions

	mu   sync.Mutex
	us   [256]uint8   // guarded by mu: Q-method state of our side (we send WILL/WONT)
	him  [256]uint8   // guarded by mu: Q-method state of the client's side (we send DO/DONT)
	echo echoState    // guarded by mu
	tt   ttypeState   // guarded by mu
	cs   charsetState // guarded by mu

	eor    atomic.Bool                // atomic: written by the reader goroutine, read anywhere
	sga    atomic.Bool                // atomic: written by the reader goroutine, read anywhere
	gmcp   atomic.Bool                // atomic: written by the reader goroutine, read anywhere
	mccp2  atomic.Bool                // atomic: written by the reader goroutine, read anywhere
	utf8   atomic.Bool                // atomic: written by the reader goroutine, read anywhere
	size   atomic.Uint64              // atomic: width<<32 | height, written by the reader goroutine
	client atomic.Pointer[ClientInfo] // atomic: a fresh snapshot per change, never mutated
}

// NewOptions returns the state of a new connection. Zero limits in cfg take
// their defaults.
func NewOptions(cfg Config) *Options {
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	if cfg.MaxSubneg <= 0 {
		cfg.MaxSubneg = DefaultMaxSubneg
	}
	o := &Options{cfg: cfg}
	// Without TTYPE there is nothing to wait for.
	o.tt.info.Done = !cfg.OfferTTYPE
	info := o.tt.info
	o.client.Store(&info)
	return o
}

// Start returns the opening negotiation the server sends at connect, in this
// order and only for offered options: IAC DO TTYPE, IAC DO NAWS, IAC WILL
// CHARSET, IAC WILL EOR, IAC WILL GMCP, IAC WILL MSSP, IAC WILL MCCP2. Each
// is recorded as pending, so the client's answer is not answered again. A
// second call returns nothing.
func (o *Options) Start() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out outbox
	c := o.cfg
	for _, p := range []struct {
		offer bool
		s     side
		opt   byte
	}{
		{c.OfferTTYPE, himSide, OptTTYPE},
		{c.OfferNAWS, himSide, OptNAWS},
		{c.OfferCharset, usSide, OptCharset},
		{c.OfferEOR, usSide, OptEOR},
		{c.OfferGMCP, usSide, OptGMCP},
		{c.OfferMSSP, usSide, OptMSSP},
		{c.OfferMCCP2, usSide, OptMCCP2},
	} {
		if p.offer && o.table(p.s)[p.opt]&qStateMask == qNo {
			o.requestLocked(p.s, p.opt, &out)
		}
	}
	return out.reply
}

// EOR reports whether the client agreed to DO EOR: prompts end with IAC EOR.
func (o *Options) EOR() bool { return o.eor.Load() }

// SGA reports whether suppress-go-ahead was agreed: prompts get no IAC GA.
func (o *Options) SGA() bool { return o.sga.Load() }

// GMCP reports whether GMCP is enabled.
func (o *Options) GMCP() bool { return o.gmcp.Load() }

// MCCP2 reports whether the client agreed to MCCP2. Whether output is
// compressed right now is Encoder.Compressing.
func (o *Options) MCCP2() bool { return o.mccp2.Load() }

// UTF8 reports whether the client takes UTF-8: it accepted CHARSET UTF-8,
// asked for it, or reported MTTS bit 4.
func (o *Options) UTF8() bool { return o.utf8.Load() }

// Size returns the last window size from NAWS, each in [0, 1000]; 0 means
// unknown.
func (o *Options) Size() (w, h int) {
	v := o.size.Load()
	return int(v >> 32), int(v & 0xffffffff)
}

// Client returns what TTYPE revealed so far.
func (o *Options) Client() ClientInfo { return *o.client.Load() }

// ColorLevel returns the colour depth derived from Client; see
// ClientInfo.ColorLevel.
func (o *Options) ColorLevel() markup.Level { return o.Client().ColorLevel() }

// ScreenReader reports whether the client set MTTS bit 64 (screen reader).
func (o *Options) ScreenReader() bool { return o.Client().MTTS&mttsScreenReader != 0 }

// RFC 1143 Q-method state, one byte per option and side: the state in the
// low two bits, the queue bit, and whether an unwanted request for the option
// was refused already.
const (
	qNo        uint8 = 0
	qYes       uint8 = 1
	qWantNo    uint8 = 2
	qWantYes   uint8 = 3
	qStateMask uint8 = 3
	qOpposite  uint8 = 4 // queue: the opposite of the pending request is wanted next
	qRefused   uint8 = 8 // an unwanted request was refused; later ones are ignored
)

// side names which end of an option a command is about.
type side bool

const (
	usSide  side = true  // the server's side: DO/DONT in, WILL/WONT out
	himSide side = false // the client's side: WILL/WONT in, DO/DONT out
)

// table returns the Q-method states of one side. Callers hold mu.
func (o *Options) table(s side) *[256]uint8 {
	if s == usSide {
		return &o.us
	}
	return &o.him
}

// verbs returns the verbs the server sends about side s: the one that
// enables and the one that disables.
func verbs(s side) (enable, disable byte) {
	if s == usSide {
		return WILL, WONT
	}
	return DO, DONT
}

// setQ sets the state and queue bit of *q, keeping the refused bit.
func setQ(q *uint8, state uint8, opposite bool) {
	v := *q&qRefused | state
	if opposite {
		v |= qOpposite
	}
	*q = v
}

// outbox collects what handling one command produced: bytes for the client
// and events for the gate. The reply slice is handed to the gate, which owns
// it afterwards.
type outbox struct {
	reply  []byte
	events []Event
}

func (b *outbox) cmd(verb, opt byte) { b.reply = append(b.reply, IAC, verb, opt) }
func (b *outbox) raw(p ...byte)      { b.reply = append(b.reply, p...) }
func (b *outbox) emit(e Event)       { b.events = append(b.events, e) }

// requestLocked asks to enable opt on side s (RFC 1143 "we want it on").
func (o *Options) requestLocked(s side, opt byte, out *outbox) {
	q := &o.table(s)[opt]
	enable, _ := verbs(s)
	switch *q & qStateMask {
	case qNo:
		setQ(q, qWantYes, false)
		out.cmd(enable, opt)
	case qWantNo:
		setQ(q, qWantNo, true)
	case qWantYes:
		setQ(q, qWantYes, false)
	}
}

// acceptLocked says whether the server agrees when the client asks to enable
// opt on side s.
func (o *Options) acceptLocked(s side, opt byte) bool {
	c := o.cfg
	if s == usSide {
		switch opt {
		case OptSGA:
			return true
		case OptCharset:
			return c.OfferCharset
		case OptEOR:
			return c.OfferEOR
		case OptGMCP:
			return c.OfferGMCP
		case OptMSSP:
			return c.OfferMSSP
		case OptMCCP2:
			return c.OfferMCCP2
		}
		return false
	}
	switch opt {
	case OptSGA:
		return true
	case OptTTYPE:
		return c.OfferTTYPE
	case OptNAWS:
		return c.OfferNAWS
	case OptCharset:
		return c.OfferCharset
	}
	return false
}

// recv handles IAC verb opt from the client by RFC 1143. Each command draws
// at most one reply, an unwanted option is refused only once, and an answer
// to the server's own request draws nothing, so no exchange loops.
func (o *Options) recv(verb, opt byte, out *outbox) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var s side
	positive := verb == WILL || verb == DO
	if verb == DO || verb == DONT {
		s = usSide
	} else {
		s = himSide
	}
	if s == usSide && opt == OptEcho {
		o.recvEchoLocked(positive, out)
		return
	}
	q := &o.table(s)[opt]
	before := *q & qStateMask
	opposite := *q&qOpposite != 0
	enable, disable := verbs(s)
	if positive {
		switch before {
		case qNo:
			switch {
			case o.acceptLocked(s, opt):
				setQ(q, qYes, false)
				out.cmd(enable, opt)
			case *q&qRefused == 0:
				// Refuse once. A client that asks again after a refusal
				// is not answered, which bounds what any client can
				// make the server send.
				*q |= qRefused
				out.cmd(disable, opt)
			}
		case qWantNo:
			// The client answered our disable with enable: RFC 1143
			// takes it as a refusal of the disable.
			if opposite {
				setQ(q, qYes, false)
			} else {
				setQ(q, qNo, false)
			}
		case qWantYes:
			if opposite {
				setQ(q, qWantNo, false)
				out.cmd(disable, opt)
			} else {
				setQ(q, qYes, false)
			}
		}
	} else {
		switch before {
		case qYes:
			setQ(q, qNo, false)
			// A client that stops MCCP2 may not be able to read anything
			// sent before the writer ends the compressed stream, so the
			// acknowledgement is left out; the MCCP2 spec asks for none.
			if !(s == usSide && opt == OptMCCP2) {
				out.cmd(disable, opt)
			}
		case qWantNo:
			if opposite {
				setQ(q, qWantYes, false)
				out.cmd(enable, opt)
			} else {
				setQ(q, qNo, false)
			}
		case qWantYes:
			setQ(q, qNo, false)
		}
	}
	if after := *q & qStateMask; after != before {
		o.changedLocked(s, opt, before, after, out)
	}
}

// changedLocked runs the per-option consequences of a state change.
func (o *Options) changedLocked(s side, opt byte, before, after uint8, out *outbox) {
	wasOn, isOn := before == qYes, after == qYes
	refused := before == qWantYes && after == qNo
	if s == usSide {
		switch opt {
		case OptEOR:
			o.eor.Store(isOn)
		case OptSGA:
			o.sga.Store(isOn)
		case OptGMCP:
			o.gmcp.Store(isOn)
		case OptMSSP:
			o.msspChangedLocked(wasOn, isOn, out)
		case OptMCCP2:
			o.mccpChangedLocked(wasOn, isOn, out)
		case OptCharset:
			o.charsetChangedLocked(s, wasOn, isOn, refused, out)
		}
		return
	}
	switch opt {
	case OptTTYPE:
		o.ttypeChangedLocked(wasOn, isOn, refused, out)
	case OptCharset:
		o.charsetChangedLocked(s, wasOn, isOn, refused, out)
	}
}

// subneg handles a complete subnegotiation IAC SB opt p IAC SE, p already
// unescaped. p is the decoder's buffer: handlers copy what they keep.
func (o *Options) subneg(opt byte, p []byte, out *outbox) {
	switch opt {
	case OptNAWS:
		o.nawsSubneg(p, out)
	case OptTTYPE:
		o.ttypeSubneg(p, out)
	case OptCharset:
		o.charsetSubneg(p, out)
	case OptGMCP:
		o.gmcpSubneg(p, out)
	}
	// Other options were refused or send nothing the server reads.
}

// publishClientLocked stores a snapshot of the TTYPE results, recomputes
// UTF8 and tells the gate.
func (o *Options) publishClientLocked(out *outbox) {
	info := o.tt.info
	o.client.Store(&info)
	o.updateUTF8Locked()
	out.emit(ClientChanged{Info: info})
}

// updateUTF8Locked recomputes UTF8 and reports whether it changed.
func (o *Options) updateUTF8Locked() bool {
	v := o.cs.utf8 || o.tt.mttsUTF8
	return o.utf8.Swap(v) != v
}
