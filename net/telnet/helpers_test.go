package telnet

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"zonemud/net/telnet/telnettest"
)

// feed runs p through the decoder's state machine and returns every event,
// as Next would return them in order.
func (d *Decoder) feed(p []byte) []Event {
	for _, c := range p {
		d.step(c)
	}
	evs := append([]Event(nil), d.queue[d.head:]...)
	d.queue, d.head = d.queue[:0], 0
	return evs
}

// conn is a decoder under test with the replies it produced.
type conn struct {
	o       *Options
	d       *Decoder
	replies []byte
}

func newConn(cfg Config) *conn {
	c := &conn{o: NewOptions(cfg)}
	c.d = NewDecoder(strings.NewReader(""), c.o, func(ctl []byte) { c.replies = append(c.replies, ctl...) })
	return c
}

// send feeds client bytes and returns the events and the replies they drew.
func (c *conn) send(p []byte) ([]Event, []byte) {
	c.replies = nil
	evs := c.d.feed(p)
	r := c.replies
	c.replies = nil
	return evs, r
}

// bs reads bytes in the notation of telnettest.ParseBytes, for literals in
// tests.
func bs(t testing.TB, s string) []byte {
	t.Helper()
	b, err := telnettest.ParseBytes(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// describeBytes writes bytes back in the notation, for readable failures.
func describeBytes(p []byte) string {
	cmds := map[byte]string{IAC: "IAC", DONT: "DONT", DO: "DO", WONT: "WONT", WILL: "WILL", SB: "SB", SE: "SE", GA: "GA", EOR: "EOR_CMD", NOP: "NOP"}
	opts := map[byte]string{OptEcho: "ECHO", OptSGA: "SGA", OptTTYPE: "TTYPE", OptEOR: "EOR", OptNAWS: "NAWS",
		OptCharset: "CHARSET", OptMSSP: "MSSP", OptMCCP2: "MCCP2", OptGMCP: "GMCP"}
	name := func(m map[byte]string, c byte) string {
		if n, ok := m[c]; ok {
			return n
		}
		return fmt.Sprintf("0x%02x", c)
	}
	var parts []string
	var text []byte
	flush := func() {
		if len(text) > 0 {
			parts = append(parts, strconv.Quote(string(text)))
			text = nil
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != IAC {
			if c >= 0x20 && c < 0x7f {
				text = append(text, c)
			} else {
				flush()
				parts = append(parts, fmt.Sprintf("0x%02x", c))
			}
			continue
		}
		flush()
		parts = append(parts, "IAC")
		if i+1 == len(p) {
			break
		}
		i++
		parts = append(parts, name(cmds, p[i]))
		if v := p[i]; (v == WILL || v == WONT || v == DO || v == DONT || v == SB) && i+1 < len(p) {
			i++
			parts = append(parts, name(opts, p[i]))
		}
	}
	flush()
	return strings.Join(parts, " ")
}

// short renders an event as the transcripts write it.
func short(e Event) string {
	switch e := e.(type) {
	case Line:
		return "Line " + strconv.Quote(e.Text)
	case LineTooLong:
		return fmt.Sprintf("LineTooLong %d", e.Limit)
	case Resize:
		return fmt.Sprintf("Resize %dx%d", e.Width, e.Height)
	case ClientChanged:
		return "ClientChanged"
	case GMCPMessage:
		return "GMCP " + e.Package
	case MSSPRequested:
		return "MSSPRequested"
	case CompressRequested:
		return "CompressRequested"
	case CompressStopped:
		return "CompressStopped"
	case ProtocolError:
		return "ProtocolError"
	}
	return fmt.Sprintf("%T", e)
}

func shorts(evs []Event) []string {
	var s []string
	for _, e := range evs {
		s = append(s, short(e))
	}
	return s
}

// kinds is shorts without the details.
func kinds(evs []Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, strings.Fields(short(e))[0])
	}
	return strings.Join(s, ",")
}
