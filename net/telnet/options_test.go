package telnet

import (
	"bytes"
	"strings"
	"testing"

	"zonemud/internal/markup"
)

func TestOptions_Start(t *testing.T) {
	o := NewOptions(DefaultConfig())
	got := o.Start()
	want := bs(t, "IAC DO TTYPE IAC DO NAWS IAC WILL CHARSET IAC WILL EOR IAC WILL GMCP IAC WILL MSSP IAC WILL MCCP2")
	if !bytes.Equal(got, want) {
		t.Fatalf("got %s, want %s", describeBytes(got), describeBytes(want))
	}
	if again := o.Start(); len(again) != 0 {
		t.Errorf("second Start: got %s, want nothing", describeBytes(again))
	}

	o = NewOptions(Config{OfferNAWS: true, OfferGMCP: true})
	if got, want := o.Start(), bs(t, "IAC DO NAWS IAC WILL GMCP"); !bytes.Equal(got, want) {
		t.Errorf("partial offer: got %s, want %s", describeBytes(got), describeBytes(want))
	}
	if !o.Client().Done {
		t.Errorf("TTYPE not offered: Client().Done = false, want true")
	}
	if o.Client().Done != false && NewOptions(DefaultConfig()).Client().Done {
		t.Errorf("TTYPE offered: Client().Done = true before any answer")
	}
}

// exchange is one client message and what the server must answer.
type exchange struct {
	in     string // client bytes in the notation of parseBytes
	out    string // server reply bytes; "" for none
	events string // event kinds, comma separated
}

func TestOptions_Negotiation(t *testing.T) {
	noNAWS := DefaultConfig()
	noNAWS.OfferNAWS = false
	noEOR := DefaultConfig()
	noEOR.OfferEOR = false

	cases := []struct {
		name  string
		cfg   *Config
		pre   func(o *Options) // before the exchanges, after Start
		steps []exchange
		check func(t *testing.T, o *Options)
	}{
		{name: "NAWS agreed and sized", steps: []exchange{
			{"IAC WILL NAWS", "", ""},
			{"IAC SB NAWS 0x00 0x50 0x00 0x18 IAC SE", "", "Resize"},
		}, check: func(t *testing.T, o *Options) {
			if w, h := o.Size(); w != 80 || h != 24 {
				t.Errorf("Size() = %d,%d, want 80,24", w, h)
			}
		}},
		{name: "NAWS 255 arrives doubled", steps: []exchange{
			{"IAC WILL NAWS IAC SB NAWS 0x00 IAC IAC 0x01 IAC IAC IAC SE", "", "Resize"},
		}, check: func(t *testing.T, o *Options) {
			if w, h := o.Size(); w != 255 || h != 511 {
				t.Errorf("Size() = %d,%d, want 255,511", w, h)
			}
		}},
		{name: "NAWS zero is unknown", steps: []exchange{
			{"IAC WILL NAWS IAC SB NAWS 0x00 0x00 0x00 0x00 IAC SE", "", "Resize"},
		}, check: func(t *testing.T, o *Options) {
			if w, h := o.Size(); w != 0 || h != 0 {
				t.Errorf("Size() = %d,%d, want 0,0", w, h)
			}
		}},
		{name: "NAWS 65535 clamped", steps: []exchange{
			{"IAC WILL NAWS IAC SB NAWS IAC IAC IAC IAC IAC IAC IAC IAC IAC SE", "", "Resize"},
		}, check: func(t *testing.T, o *Options) {
			if w, h := o.Size(); w != 1000 || h != 1000 {
				t.Errorf("Size() = %d,%d, want 1000,1000", w, h)
			}
		}},
		{name: "NAWS wrong length ignored", steps: []exchange{
			{"IAC WILL NAWS IAC SB NAWS 0x00 0x50 0x00 IAC SE", "", "ProtocolError"},
			{"IAC SB NAWS 0x00 0x50 0x00 0x18 0x00 IAC SE", "", "ProtocolError"},
		}, check: func(t *testing.T, o *Options) {
			if w, h := o.Size(); w != 0 || h != 0 {
				t.Errorf("Size() = %d,%d, want 0,0", w, h)
			}
		}},
		{name: "NAWS refused once when not offered", cfg: &noNAWS, steps: []exchange{
			{"IAC WILL NAWS", "IAC DONT NAWS", ""},
			{"IAC WILL NAWS", "", ""},
		}},
		{name: "TTYPE MTTS cycle", steps: []exchange{
			{"IAC WILL TTYPE", "IAC SB TTYPE SEND IAC SE", ""},
			{`IAC SB TTYPE IS "MUDLET" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "ANSI-256COLOR" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "MTTS 77" IAC SE`, "", "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			want := ClientInfo{Name: "MUDLET", Terminal: "ANSI-256COLOR", MTTS: 77, Done: true}
			if got := o.Client(); got != want {
				t.Errorf("Client() = %+v, want %+v", got, want)
			}
			if !o.UTF8() || !o.ScreenReader() || o.ColorLevel() != markup.Color256 {
				t.Errorf("UTF8 %v ScreenReader %v ColorLevel %v, want true true 256", o.UTF8(), o.ScreenReader(), o.ColorLevel())
			}
		}},
		{name: "TTYPE repeat ends the cycle", steps: []exchange{
			{"IAC WILL TTYPE", "IAC SB TTYPE SEND IAC SE", ""},
			{`IAC SB TTYPE IS "xterm" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "XTERM" IAC SE`, "", "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			want := ClientInfo{Name: "xterm", Done: true}
			if got := o.Client(); got != want {
				t.Errorf("Client() = %+v, want %+v", got, want)
			}
			if o.ColorLevel() != markup.Color256 {
				t.Errorf("ColorLevel() = %v, want 256", o.ColorLevel())
			}
		}},
		{name: "TTYPE four rounds at most", steps: []exchange{
			{"IAC WILL TTYPE", "IAC SB TTYPE SEND IAC SE", ""},
			{`IAC SB TTYPE IS "A" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "B" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "C" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ClientChanged"},
			{`IAC SB TTYPE IS "D" IAC SE`, "", "ClientChanged"},
			{`IAC SB TTYPE IS "E" IAC SE`, "", "ProtocolError"},
		}, check: func(t *testing.T, o *Options) {
			want := ClientInfo{Name: "A", Terminal: "B", Done: true}
			if got := o.Client(); got != want {
				t.Errorf("Client() = %+v, want %+v", got, want)
			}
		}},
		{name: "TTYPE refused ends the cycle", steps: []exchange{
			{"IAC WONT TTYPE", "", "ClientChanged"},
			{"IAC WONT TTYPE", "", ""},
		}, check: func(t *testing.T, o *Options) {
			if got := o.Client(); !got.Done || got.Name != "" {
				t.Errorf("Client() = %+v, want Done and nothing else", got)
			}
			if o.ColorLevel() != markup.Color16 {
				t.Errorf("ColorLevel() = %v, want 16", o.ColorLevel())
			}
		}},
		{name: "TTYPE answer truncated and cleaned", steps: []exchange{
			{"IAC WILL TTYPE", "IAC SB TTYPE SEND IAC SE", ""},
			{`IAC SB TTYPE IS " tin\x01tin++ ` + strings.Repeat("x", 100) + `" IAC SE`, "IAC SB TTYPE SEND IAC SE", "ProtocolError,ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			if got, want := o.Client().Name, "tintin++ "+strings.Repeat("x", 53); got != want {
				t.Errorf("Name = %q, want %q", got, want)
			}
		}},
		{name: "TTYPE IS without SEND ignored", steps: []exchange{
			{`IAC SB TTYPE IS "SNEAKY" IAC SE`, "", "ProtocolError"},
		}},
		{name: "CHARSET accepted", steps: []exchange{
			{"IAC DO CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{`IAC SB CHARSET ACCEPTED "UTF-8" IAC SE`, "", "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			if !o.UTF8() {
				t.Errorf("UTF8() = false, want true")
			}
		}},
		{name: "CHARSET accepted with a space", steps: []exchange{
			{"IAC DO CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{`IAC SB CHARSET ACCEPTED " utf-8" IAC SE`, "", "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			if !o.UTF8() {
				t.Errorf("UTF8() = false, want true")
			}
		}},
		{name: "CHARSET rejected", steps: []exchange{
			{"IAC DO CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{"IAC SB CHARSET REJECTED IAC SE", "", ""},
		}, check: func(t *testing.T, o *Options) {
			if o.UTF8() {
				t.Errorf("UTF8() = true, want false")
			}
		}},
		{name: "CHARSET ASCII accepted", steps: []exchange{
			{"IAC DO CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{`IAC SB CHARSET ACCEPTED "US-ASCII" IAC SE`, "", ""},
		}, check: func(t *testing.T, o *Options) {
			if o.UTF8() {
				t.Errorf("UTF8() = true, want false")
			}
		}},
		{name: "CHARSET refused then DO CHARSET once", steps: []exchange{
			{"IAC DONT CHARSET", "IAC DO CHARSET", ""},
			{"IAC WILL CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{"IAC WONT CHARSET", "IAC DONT CHARSET", ""},
			{"IAC DONT CHARSET", "", ""},
		}},
		{name: "CHARSET refused both ways", steps: []exchange{
			{"IAC DONT CHARSET", "IAC DO CHARSET", ""},
			{"IAC WONT CHARSET", "", ""},
		}},
		{name: "CHARSET client REQUEST with UTF-8", steps: []exchange{
			{`IAC SB CHARSET REQUEST ";ISO-8859-1;UTF-8" IAC SE`, `IAC SB CHARSET ACCEPTED "UTF-8" IAC SE`, "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			if !o.UTF8() {
				t.Errorf("UTF8() = false, want true")
			}
		}},
		{name: "CHARSET client REQUEST without separator", steps: []exchange{
			{`IAC SB CHARSET REQUEST "UTF-8" IAC SE`, `IAC SB CHARSET ACCEPTED "UTF-8" IAC SE`, "ClientChanged"},
		}},
		{name: "CHARSET client REQUEST with TTABLE", steps: []exchange{
			{`IAC SB CHARSET REQUEST "[TTABLE]" 0x01 " utf-8 big5" IAC SE`, `IAC SB CHARSET ACCEPTED "utf-8" IAC SE`, "ClientChanged"},
		}},
		{name: "CHARSET client REQUEST without UTF-8", steps: []exchange{
			{`IAC SB CHARSET REQUEST ",ISO-8859-1,KOI8-R" IAC SE`, "IAC SB CHARSET REJECTED IAC SE", ""},
		}},
		{name: "CHARSET empty REQUEST", steps: []exchange{
			{"IAC SB CHARSET REQUEST IAC SE", "IAC SB CHARSET REJECTED IAC SE", ""},
			{"IAC SB CHARSET REQUEST 0x3b IAC SE", "IAC SB CHARSET REJECTED IAC SE", ""},
			{`IAC SB CHARSET REQUEST "[TTABLE]" IAC SE`, "IAC SB CHARSET REJECTED IAC SE", ""},
			{"IAC SB CHARSET IAC SE", "", "ProtocolError"},
		}},
		{name: "CHARSET both sides REQUEST", steps: []exchange{
			{"IAC DO CHARSET", `IAC SB CHARSET REQUEST ";UTF-8;US-ASCII" IAC SE`, ""},
			{`IAC SB CHARSET REQUEST ";UTF-8" IAC SE`, "IAC SB CHARSET REJECTED IAC SE", ""},
			{`IAC SB CHARSET ACCEPTED "UTF-8" IAC SE`, "", "ClientChanged"},
		}, check: func(t *testing.T, o *Options) {
			if !o.UTF8() {
				t.Errorf("UTF8() = false, want true")
			}
		}},
		{name: "CHARSET translation table refused", steps: []exchange{
			{"IAC SB CHARSET TTABLE_IS 0x01 IAC SE", "IAC SB CHARSET TTABLE_REJECTED IAC SE", ""},
		}},
		{name: "EOR agreed and withdrawn", steps: []exchange{
			{"IAC DO EOR", "", ""},
			{"IAC DO EOR", "", ""},
			{"IAC DONT EOR", "IAC WONT EOR", ""},
			{"IAC DONT EOR", "", ""},
		}, check: func(t *testing.T, o *Options) {
			if o.EOR() {
				t.Errorf("EOR() = true after DONT EOR")
			}
		}},
		{name: "EOR refused once when not offered", cfg: &noEOR, steps: []exchange{
			{"IAC DO EOR", "IAC WONT EOR", ""},
			{"IAC DO EOR", "", ""},
		}},
		{name: "SGA agreed on request", steps: []exchange{
			{"IAC DO SGA", "IAC WILL SGA", ""},
			{"IAC WILL SGA", "IAC DO SGA", ""},
		}, check: func(t *testing.T, o *Options) {
			if !o.SGA() {
				t.Errorf("SGA() = false, want true")
			}
		}},
		{name: "ECHO around a password", pre: func(o *Options) {
			if got := o.EchoOff(); !bytes.Equal(got, []byte{IAC, WILL, OptEcho}) {
				t.Errorf("EchoOff() = %s, want IAC WILL ECHO", describeBytes(got))
			}
			if got := o.EchoOff(); got != nil {
				t.Errorf("second EchoOff() = %s, want nothing", describeBytes(got))
			}
		}, steps: []exchange{
			{"IAC DO ECHO", "", ""},
		}, check: func(t *testing.T, o *Options) {
			if got := o.EchoOn(); !bytes.Equal(got, []byte{IAC, WONT, OptEcho}) {
				t.Errorf("EchoOn() = %s, want IAC WONT ECHO", describeBytes(got))
			}
			if got := o.EchoOn(); got != nil {
				t.Errorf("second EchoOn() = %s, want nothing", describeBytes(got))
			}
		}},
		{name: "ECHO unprompted DO refused once", steps: []exchange{
			{"IAC DO ECHO", "IAC WONT ECHO", ""},
			{"IAC DO ECHO", "", ""},
			{"IAC DONT ECHO", "", ""},
		}},
		{name: "ECHO client WILL refused", steps: []exchange{
			{"IAC WILL ECHO", "IAC DONT ECHO", ""},
			{"IAC WILL ECHO", "", ""},
		}},
		{name: "ECHO refused by the client", pre: func(o *Options) { o.EchoOff() }, steps: []exchange{
			{"IAC DONT ECHO", "", ""},
		}, check: func(t *testing.T, o *Options) {
			if got := o.EchoOn(); got != nil {
				t.Errorf("EchoOn() after a refused WILL ECHO = %s, want nothing", describeBytes(got))
			}
		}},
		{name: "GMCP messages", steps: []exchange{
			{"IAC DO GMCP", "", ""},
			{`IAC SB GMCP "Core.Hello {\"client\":\"Mudlet\"}" IAC SE`, "", "GMCP"},
			{`IAC SB GMCP "Core.Ping" IAC SE`, "", "GMCP"},
			{`IAC SB GMCP "" IAC SE`, "", "ProtocolError"},
			{`IAC SB GMCP "Bad\x01Name {}" IAC SE`, "", "ProtocolError"},
			{"IAC DONT GMCP", "IAC WONT GMCP", ""},
			{`IAC SB GMCP "Core.Ping" IAC SE`, "", "ProtocolError"},
		}},
		{name: "MSSP requested once", steps: []exchange{
			{"IAC DO MSSP", "", "MSSPRequested"},
			{"IAC DO MSSP", "", ""},
		}},
		{name: "MCCP2 started and stopped", steps: []exchange{
			{"IAC DO MCCP2", "", "CompressRequested"},
			{"IAC DONT MCCP2", "", "CompressStopped"},
			{"IAC DONT MCCP2", "", ""},
			{"IAC DO MCCP2", "IAC WILL MCCP2", "CompressRequested"},
		}, check: func(t *testing.T, o *Options) {
			if !o.MCCP2() {
				t.Errorf("MCCP2() = false, want true")
			}
		}},
		{name: "unknown options refused once", steps: []exchange{
			{"IAC WILL 0x99", "IAC DONT 0x99", ""},
			{"IAC WILL 0x99", "", ""},
			{"IAC DO 0x99", "IAC WONT 0x99", ""},
			{"IAC DO 0x99", "", ""},
			{"IAC WONT 0x99 IAC DONT 0x99", "", ""},
			{"IAC DO NAWS IAC WILL EOR IAC DO TTYPE", "IAC WONT NAWS IAC DONT EOR IAC WONT TTYPE", ""},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			c := newConn(cfg)
			c.o.Start()
			if tc.pre != nil {
				tc.pre(c.o)
			}
			for i, x := range tc.steps {
				evs, reply := c.send(bs(t, x.in))
				if want := bs(t, x.out); !bytes.Equal(reply, want) {
					t.Errorf("step %d %s: reply %s, want %s", i, x.in, describeBytes(reply), describeBytes(want))
				}
				if got := kinds(evs); got != x.events {
					t.Errorf("step %d %s: events %s, want %s", i, x.in, got, x.events)
				}
			}
			if tc.check != nil {
				tc.check(t, c.o)
			}
		})
	}
}

func TestOptions_GMCPMessage(t *testing.T) {
	c := newConn(DefaultConfig())
	c.o.Start()
	evs, _ := c.send(bs(t, `IAC DO GMCP IAC SB GMCP "Char.Vitals {\"hp\":" IAC IAC "}" IAC SE IAC SB GMCP "Core.Ping" IAC SE`))
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2: %v", len(evs), shorts(evs))
	}
	m := evs[0].(GMCPMessage)
	if m.Package != "Char.Vitals" || string(m.Data) != "{\"hp\":\xff}" {
		t.Errorf("got %q %q, want Char.Vitals with the IAC unescaped", m.Package, m.Data)
	}
	if m := evs[1].(GMCPMessage); m.Package != "Core.Ping" || m.Data != nil {
		t.Errorf("got %q %q, want Core.Ping without data", m.Package, m.Data)
	}
}

func TestOptions_EchoClientsThatDoNotAnswer(t *testing.T) {
	// TinTin++ answers WILL ECHO but never WONT ECHO; older MUSHclient
	// answers neither. Every password prompt must still hide the input.
	for _, answersWill := range []bool{true, false} {
		c := newConn(DefaultConfig())
		c.o.Start()
		for round := range 3 {
			if got := c.o.EchoOff(); !bytes.Equal(got, []byte{IAC, WILL, OptEcho}) {
				t.Fatalf("answersWill=%v round %d: EchoOff() = %s, want IAC WILL ECHO", answersWill, round, describeBytes(got))
			}
			if answersWill {
				if _, reply := c.send(bs(t, "IAC DO ECHO")); len(reply) != 0 {
					t.Fatalf("round %d: DO ECHO drew %s", round, describeBytes(reply))
				}
			}
			if got := c.o.EchoOn(); !bytes.Equal(got, []byte{IAC, WONT, OptEcho}) {
				t.Fatalf("answersWill=%v round %d: EchoOn() = %s, want IAC WONT ECHO", answersWill, round, describeBytes(got))
			}
		}
	}
}

func TestOptions_EchoFastToggle(t *testing.T) {
	// WONT and WILL sent back to back; the answers to both arrive after.
	c := newConn(DefaultConfig())
	c.o.EchoOff()
	c.send(bs(t, "IAC DO ECHO"))
	c.o.EchoOn()
	c.o.EchoOff()
	if _, reply := c.send(bs(t, "IAC DONT ECHO IAC DO ECHO")); len(reply) != 0 {
		t.Errorf("late answers drew %s, want nothing", describeBytes(reply))
	}
	if got := c.o.EchoOn(); !bytes.Equal(got, []byte{IAC, WONT, OptEcho}) {
		t.Errorf("EchoOn() = %s, want IAC WONT ECHO", describeBytes(got))
	}
}

func TestClientInfo_ColorLevel(t *testing.T) {
	cases := []struct {
		info ClientInfo
		want markup.Level
	}{
		{ClientInfo{}, markup.Color16},
		{ClientInfo{Done: true}, markup.Color16},
		{ClientInfo{Name: "ANSI", Terminal: "VT100"}, markup.Color16},
		{ClientInfo{Name: "DUMB"}, markup.None},
		{ClientInfo{Name: "xterm"}, markup.Color256},
		{ClientInfo{Name: "foo", Terminal: "screen-256color"}, markup.Color256},
		{ClientInfo{Name: "foo", MTTS: mtts256}, markup.Color256},
		{ClientInfo{Name: "Mudlet 4.17"}, markup.Color256},
		{ClientInfo{Name: "MUSHclient"}, markup.Color256},
		{ClientInfo{Name: "CMUD"}, markup.Color256},
		{ClientInfo{Name: "TINYFUGUE"}, markup.Color256},
		{ClientInfo{Name: "PuTTY"}, markup.Color256},
		{ClientInfo{Name: "MUDLET", Terminal: "ANSI-TRUECOLOR"}, markup.TrueColor},
		{ClientInfo{Name: "foo", MTTS: mttsTrueColor}, markup.TrueColor},
		{ClientInfo{Name: "TINTIN++"}, markup.TrueColor},
		{ClientInfo{Name: "DUMB", MTTS: mtts256}, markup.Color256},
	}
	for _, tc := range cases {
		if got := tc.info.ColorLevel(); got != tc.want {
			t.Errorf("%+v: got %v, want %v", tc.info, got, tc.want)
		}
	}
}

// peer is a scripted client: given one command from the server it returns
// its answer.
type peer func(verb, opt byte) []byte

// converse plays the server against p from Start until neither has anything
// to say, and returns the bytes the server sent and the number of turns.
func converse(t *testing.T, p peer, echoToggles int) (sent, turns int) {
	t.Helper()
	c := newConn(DefaultConfig())
	out := c.o.Start()
	for i := range echoToggles {
		if i%2 == 0 {
			out = append(out, c.o.EchoOff()...)
		} else {
			out = append(out, c.o.EchoOn()...)
		}
	}
	for turns = 0; len(out) > 0; turns++ {
		if turns > 1000 || sent > 1<<20 {
			t.Fatalf("no end after %d turns; server sent %d bytes", turns, sent)
		}
		sent += len(out)
		var answer []byte
		for _, cmd := range commands(out) {
			answer = append(answer, p(cmd[0], cmd[1])...)
		}
		_, out = c.send(answer)
	}
	return sent, turns
}

// commands extracts (verb, option) pairs and (SB, option) from server bytes.
func commands(p []byte) [][2]byte {
	var cmds [][2]byte
	for i := 0; i+2 < len(p); i++ {
		if p[i] != IAC {
			continue
		}
		switch v := p[i+1]; v {
		case WILL, WONT, DO, DONT, SB:
			cmds = append(cmds, [2]byte{v, p[i+2]})
			i += 2
		case IAC:
			i++
		}
	}
	return cmds
}

func TestOptions_NoNegotiationLoops(t *testing.T) {
	opposite := map[byte]byte{WILL: DONT, WONT: DO, DO: WONT, DONT: WILL}
	agree := map[byte]byte{WILL: DO, WONT: DONT, DO: WILL, DONT: WONT}
	peers := map[string]peer{
		// Answers every request with its opposite, and every refusal
		// with a request.
		"opposite": func(v, o byte) []byte {
			if v == SB {
				return nil
			}
			return []byte{IAC, opposite[v], o}
		},
		// Sends every command straight back, subnegotiations included.
		"echo": func(v, o byte) []byte {
			if v == SB {
				switch o {
				case OptTTYPE:
					return []byte{IAC, SB, OptTTYPE, ttypeSEND, IAC, SE}
				case OptCharset:
					return []byte{IAC, SB, OptCharset, csRequest, ';', 'U', 'T', 'F', '-', '8', IAC, SE}
				}
				return nil
			}
			return []byte{IAC, v, o}
		},
		// Acknowledges everything, with no memory of what it said.
		"agree": func(v, o byte) []byte {
			if v == SB {
				return nil
			}
			return []byte{IAC, agree[v], o}
		},
		// Refuses everything, every time.
		"refuse": func(v, o byte) []byte {
			switch v {
			case WILL, WONT:
				return []byte{IAC, DONT, o}
			case DO, DONT:
				return []byte{IAC, WONT, o}
			}
			return nil
		},
	}
	for name, p := range peers {
		for _, toggles := range []int{0, 1, 2, 5} {
			sent, turns := converse(t, p, toggles)
			if sent > 512 || turns > 8 {
				t.Errorf("%s peer, %d echo toggles: server sent %d bytes in %d turns, want a bounded exchange", name, toggles, sent, turns)
			}
		}
	}
}

func TestOptions_EveryOptionAtOnce(t *testing.T) {
	c := newConn(DefaultConfig())
	c.o.Start()
	var in []byte
	for round := range 3 {
		_ = round
		for opt := range 256 {
			for _, v := range []byte{WILL, DO, WONT, DONT} {
				in = append(in, IAC, v, byte(opt))
			}
		}
	}
	_, reply := c.send(in)
	// Each side of each option can draw one refusal, one agreement and one
	// acknowledgement, plus a few subnegotiations.
	if len(reply) > 256*2*3*3+64 {
		t.Errorf("%d bytes of commands drew %d bytes of replies", len(in), len(reply))
	}
	_, again := c.send(in)
	if len(again) > 256*2*3*2 {
		t.Errorf("repeating every option drew %d bytes", len(again))
	}
}
