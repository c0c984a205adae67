package gate

import (
	"io"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"zonemud/internal/markup"
	"zonemud/net/telnet"
)

// telnetConn is a conn over a TCP socket speaking telnet.
type telnetConn struct {
	c   net.Conn
	o   *telnet.Options
	dec *telnet.Decoder // reader goroutine only
	enc *telnet.Encoder // writer goroutine only
	dw  *directWriter   // the encoder's writer on a TCP socket, else nil; writer only
	// depth is colorDepth's answer, worked out when the client says more
	// about itself: the writer asks for every burst, and info for every
	// Width and Client a zone asks. atomic: written by the reader, read by
	// the writer and the zones.
	depth atomic.Pointer[depth]
}

// depth is what a telnet client said of its colour: the level it renders
// and whether a screen reader reads it.
type depth struct {
	level        markup.Level
	screenReader bool
}

func newTelnetConn(c net.Conn, cfg telnet.Config, reply func([]byte)) *telnetConn {
	o := telnet.NewOptions(cfg)
	t := &telnetConn{c: c, o: o, dec: telnet.NewDecoder(c, o, reply)}
	var w io.Writer = c
	if t.dw = newDirectWriter(c); t.dw != nil {
		w = t.dw
	}
	t.enc = telnet.NewEncoder(w, o)
	t.noteClient()
	return t
}

// noteClient works out the colour depth again from what the client said.
func (t *telnetConn) noteClient() {
	t.depth.Store(&depth{level: t.o.ColorLevel(), screenReader: t.o.ScreenReader()})
}

func (t *telnetConn) next() (event, error) {
	for {
		ev, err := t.dec.Next()
		if err != nil {
			return event{}, err
		}
		switch e := ev.(type) {
		case telnet.Line:
			return event{kind: evLine, text: e.Text}, nil
		case telnet.LineTooLong:
			return event{kind: evTooLong, n: e.Limit}, nil
		case telnet.Resize:
			return event{kind: evResize}, nil
		case telnet.ClientChanged:
			t.noteClient()
			return event{kind: evClient}, nil
		case telnet.GMCPMessage:
			return event{kind: evGMCP, pkg: e.Package, data: e.Data}, nil
		case telnet.MSSPRequested:
			return event{kind: evMSSP}, nil
		case telnet.CompressRequested:
			return event{kind: evCompress}, nil
		case telnet.CompressStopped:
			return event{kind: evDecompress}, nil
		case telnet.ProtocolError:
			return event{kind: evProtocol, text: e.Reason}, nil
		}
	}
}

func (t *telnetConn) setReadDeadline(d time.Time) error  { return t.c.SetReadDeadline(d) }
func (t *telnetConn) setWriteDeadline(d time.Time) error { return t.c.SetWriteDeadline(d) }
func (t *telnetConn) writeText(p []byte) error           { return t.enc.WriteText(p) }
func (t *telnetConn) writePrompt(p []byte) error         { return t.enc.WritePrompt(p) }
func (t *telnetConn) writeRaw(p []byte) error            { return t.enc.WriteRaw(p) }
func (t *telnetConn) startCompress() error               { return t.enc.StartCompression() }
func (t *telnetConn) flush() error                       { return t.enc.Flush() }
func (t *telnetConn) close() error                       { return t.c.Close() }
func (t *telnetConn) remote() string                     { return t.c.RemoteAddr().String() }
func (t *telnetConn) kind() string                       { return "telnet" }
func (t *telnetConn) echoOff() []byte                    { return t.o.EchoOff() }
func (t *telnetConn) echoOn() []byte                     { return t.o.EchoOn() }
func (t *telnetConn) opening() []byte                    { return t.o.Start() }
func (t *telnetConn) counts() (uint64, uint64, uint64)   { return t.enc.Counts() }

func (t *telnetConn) stopCompress() error {
	if !t.enc.Compressing() {
		return nil
	}
	return t.enc.StopCompression()
}

func (t *telnetConn) gmcpFrame(pkg string, json []byte) []byte {
	if !t.o.GMCP() {
		return nil
	}
	return telnet.GMCPFrame(pkg, json)
}

func (t *telnetConn) colorDepth() (markup.Level, bool) {
	d := t.depth.Load()
	return d.level, d.screenReader
}

func (t *telnetConn) columns() int {
	w, _ := t.o.Size()
	return w
}

func (t *telnetConn) info() clientInfo {
	w, h := t.o.Size()
	ci := t.o.Client()
	inf := clientInfo{width: w, height: h, utf8: t.o.UTF8(), name: ci.Name, terminal: ci.Terminal, mccp: t.enc.Compressing()}
	// The depth worked out when the client last said something of itself:
	// not again for every Width or Client a zone asks.
	inf.color, inf.screenReader = t.colorDepth()
	if inf.name == "" {
		inf.name = "telnet"
	}
	inf.name = strings.ToLower(inf.name)
	return inf
}
