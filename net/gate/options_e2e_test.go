package gate_test

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// Telnet option codes and commands used by these tests.
const (
	iac, sb, se, will, wont, do, dont = 255, 250, 240, 251, 252, 253, 254
	ga, eorCmd                        = 249, 239
	optEOR, optNAWS, optTTYPE         = 25, 31, 24
	optCharset, optGMCP, optMSSP      = 42, 201, 70
	optMCCP2                          = 86
)

func subneg(opt byte, payload ...any) []byte {
	b := []byte{iac, sb, opt}
	for _, p := range payload {
		switch v := p.(type) {
		case byte:
			b = append(b, v)
		case int:
			b = append(b, byte(v))
		case string:
			b = append(b, v...)
		}
	}
	return append(b, iac, se)
}

// Prompts end with IAC EOR for a client that agreed to EOR, and IAC GA for
// one that refused everything.
func TestOptions_PromptMarks(t *testing.T) {
	srv := servertest.Start(t, nil)
	e := servertest.Dial(t, srv.TelnetAddr(), optEOR)
	e.Create("Eorfan", "eor-pass")
	e.DoExpect("look", "Exits:")
	if !waitRaw(e, []byte{'>', ' ', iac, eorCmd}) {
		t.Fatal("no IAC EOR after the prompt for a client that agreed to EOR")
	}
	if bytes.Contains(e.Raw(), []byte{'>', ' ', iac, ga}) {
		t.Fatal("IAC GA sent to a client that agreed to EOR")
	}
	p := servertest.Dial(t, srv.TelnetAddr())
	p.Create("Plainer", "plain-pass")
	if !waitRaw(p, []byte{'>', ' ', iac, ga}) {
		t.Fatal("no IAC GA after the prompt for a client that refused everything")
	}
}

// waitRaw waits (at most ten seconds, a bound on a hang) for bytes to appear in what a client
// read: the bytes after a prompt may come in a later read than the prompt.
func waitRaw(c *servertest.Client, want []byte) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if bytes.Contains(c.Raw(), want) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// rawCount counts occurrences of want in what a client read.
func rawCount(c *servertest.Client, want []byte) int { return bytes.Count(c.Raw(), want) }

// NAWS: the width the client reports is the width text is wrapped to.
func TestOptions_NAWSWraps(t *testing.T) {
	srv := servertest.Start(t, nil)
	c := servertest.Dial(t, srv.TelnetAddr(), optNAWS)
	c.Expect("name")
	_ = c.Write(subneg(optNAWS, 0, 40, 0, 24))
	c.Create("Narrow", "narrow-pass")
	out := c.DoExpect("look", "Exits:")
	for _, ln := range strings.Split(out, "\r\n") {
		if len([]rune(ln)) > 40 {
			t.Fatalf("line of %d columns for a 40-column client: %q", len([]rune(ln)), ln)
		}
	}
	// A resize takes effect at once; absurd sizes are clamped, not obeyed.
	_ = c.Write(subneg(optNAWS, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF))
	_ = c.Write(subneg(optNAWS, 0, 0, 0, 0))
	out = c.DoExpect("look", "Exits:")
	if !strings.Contains(out, "Emberfall Square") {
		t.Fatalf("look after odd sizes: %q", out)
	}
}

// TTYPE with MTTS: the colour level follows what the client says, and the
// screen-reader bit turns colour off.
func TestOptions_TTYPEColourAndScreenReader(t *testing.T) {
	srv := servertest.Start(t, nil)
	for _, tc := range []struct {
		name, term string
		mtts       int
		want       string
	}{
		{"Truecolr", "ANSI-TRUECOLOR", 1 | 4 | 8 | 256, "Colour: truecolor"},
		{"Twofiftysix", "XTERM-256COLOR", 1 | 8, "Colour: 256"},
		{"Readerly", "ANSI", 1 | 64, "Colour: off"},
	} {
		c := servertest.Dial(t, srv.TelnetAddr(), optTTYPE)
		c.Expect("name")
		// Answer each SEND as a real client does, in turn.
		send := []byte{iac, sb, optTTYPE, 1, iac, se}
		for i, answer := range []string{"MUDLET", tc.term, fmt.Sprintf("MTTS %d", tc.mtts)} {
			deadline := time.Now().Add(10 * time.Second)
			for rawCount(c, send) < i+1 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			_ = c.Write(subneg(optTTYPE, 0, answer))
		}
		c.Create(tc.name, "color-pass")
		c.DoExpect("color", tc.want)
		if tc.mtts&64 != 0 {
			c.DoExpect("look", "Exits: north, east, south and west.")
			raw := c.Raw()
			if i := bytes.LastIndex(raw, []byte("Emberfall Square")); i < 0 || bytes.Contains(raw[i:], []byte("\x1b[")) {
				t.Fatal("colour codes sent to a screen reader")
			}
		}
	}
}

// CHARSET: a client that accepts UTF-8 gets it; one that does not gets
// ASCII, never raw UTF-8 bytes.
func TestOptions_Charset(t *testing.T) {
	srv := servertest.Start(t, nil)
	u := servertest.Dial(t, srv.TelnetAddr(), optCharset)
	u.Expect("name")
	if !waitRaw(u, []byte{iac, sb, optCharset, 1}) { // the server's REQUEST
		t.Fatal("no CHARSET REQUEST for a client that agreed to CHARSET")
	}
	_ = u.Write(subneg(optCharset, 2, "UTF-8")) // ACCEPTED
	u.Create("Utfy", "utf-pass")
	a := servertest.Dial(t, srv.TelnetAddr())
	a.Create("Asci", "asci-pass")
	a.Skip()
	u.Send("say café — naïve")
	u.Expect("You say, 'café — naïve'")
	a.Expect("Utfy says, 'cafe - naive'")
	raw := a.Raw()
	if i := bytes.LastIndex(raw, []byte("Utfy says")); i >= 0 {
		for _, b := range raw[i:] {
			if b >= 0x80 && b != iac && b != ga {
				t.Fatalf("a byte 0x%02x reached an ASCII client", b)
			}
		}
	}
}

// gmcpReader collects GMCP messages from a raw connection.
type gmcpConn struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	text bytes.Buffer
	mark int // readUntil looks for text after here
	msgs []gmcpMsg
}

type gmcpMsg struct {
	pkg  string
	data []byte
}

func dialGMCP(t *testing.T, addr string) *gmcpConn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &gmcpConn{t: t, c: c, r: bufio.NewReader(c)}
}

// readUntil parses the stream (answering negotiation: yes to GMCP, no to
// the rest) until text contains want.
func (g *gmcpConn) readUntil(want string) {
	g.t.Helper()
	_ = g.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if i := strings.Index(g.text.String()[g.mark:], want); i >= 0 {
			g.mark += i + len(want)
			return
		}
		b, err := g.r.ReadByte()
		if err != nil {
			g.t.Fatalf("waiting for %q: %v; text so far %q", want, err, g.text.String())
		}
		if b != iac {
			g.text.WriteByte(b)
			continue
		}
		cmd, _ := g.r.ReadByte()
		switch cmd {
		case iac:
			g.text.WriteByte(iac)
		case will, wont, do, dont:
			opt, _ := g.r.ReadByte()
			switch {
			case cmd == will && opt == optGMCP:
				_, _ = g.c.Write([]byte{iac, do, optGMCP})
			case cmd == will:
				_, _ = g.c.Write([]byte{iac, dont, opt})
			case cmd == do:
				_, _ = g.c.Write([]byte{iac, wont, opt})
			}
		case sb:
			opt, _ := g.r.ReadByte()
			var payload []byte
			for {
				x, _ := g.r.ReadByte()
				if x == iac {
					y, _ := g.r.ReadByte()
					if y == se {
						break
					}
					payload = append(payload, y)
					continue
				}
				payload = append(payload, x)
			}
			if opt == optGMCP {
				pkg, data, _ := strings.Cut(string(payload), " ")
				g.msgs = append(g.msgs, gmcpMsg{pkg: pkg, data: []byte(data)})
			}
		}
	}
}

func (g *gmcpConn) send(line string) { _, _ = g.c.Write([]byte(line + "\r\n")) }

func (g *gmcpConn) last(pkg string) (gmcpMsg, bool) {
	for i := len(g.msgs) - 1; i >= 0; i-- {
		if strings.EqualFold(g.msgs[i].pkg, pkg) {
			return g.msgs[i], true
		}
	}
	return gmcpMsg{}, false
}

// GMCP: after moving, the client receives Room.Info whose exits name the
// room numbers it would reach; Char.* arrives on login and Comm.Channel.Text
// with speech; a payload that is not JSON is ignored.
func TestOptions_GMCPRoomInfo(t *testing.T) {
	srv := servertest.Start(t, nil)
	set := srv.World().Content()
	g := dialGMCP(t, srv.TelnetAddr())
	g.readUntil("name")
	_, _ = g.c.Write(subneg(optGMCP, `Core.Hello {"client":"test","version":"1"}`))
	_, _ = g.c.Write(subneg(optGMCP, `Core.Supports.Set ["Char 1", "Room 1", "Comm 1"]`))
	_, _ = g.c.Write(subneg(optGMCP, `Core.Supports.Add not json at all`))
	g.send("Gmcpy")
	g.readUntil("(y/n)")
	g.send("y")
	g.readUntil("password")
	g.send("gmcp-pass")
	g.readUntil("again")
	g.send("gmcp-pass")
	g.readUntil("Exits:")
	g.readUntil("> ")
	if m, ok := g.last("Char.Vitals"); !ok || !bytes.Contains(m.data, []byte(`"maxhp"`)) {
		t.Fatalf("no Char.Vitals on login: %+v", g.msgs)
	}
	if _, ok := g.last("Char.Name"); !ok {
		t.Fatal("no Char.Name on login")
	}
	g.send("north")
	g.readUntil("Temple Street")
	g.readUntil("> ")
	m, ok := g.last("Room.Info")
	if !ok {
		t.Fatal("no Room.Info after moving")
	}
	var info struct {
		Num   int            `json:"num"`
		Name  string         `json:"name"`
		Area  string         `json:"area"`
		Exits map[string]int `json:"exits"`
	}
	if err := json.Unmarshal(m.data, &info); err != nil {
		t.Fatalf("Room.Info is not JSON: %v: %s", err, m.data)
	}
	here := set.Rooms["emberfall:room:north_street"]
	if info.Num != here.Num || info.Name != here.Name {
		t.Fatalf("Room.Info num %d name %q, want %d %q", info.Num, info.Name, here.Num, here.Name)
	}
	for d, ex := range here.Exits {
		if ex == nil {
			continue
		}
		dir := [...]string{"n", "e", "s", "w", "u", "d", "ne", "nw", "se", "sw"}[d]
		if info.Exits[dir] != set.Rooms[ex.To].Num {
			t.Fatalf("Room.Info exit %s = %d, want %d (%s)", dir, info.Exits[dir], set.Rooms[ex.To].Num, ex.To)
		}
	}
	g.send("say mapped")
	g.readUntil("mapped")
	g.readUntil("> ")
	if m, ok := g.last("Comm.Channel.Text"); !ok || !bytes.Contains(m.data, []byte("mapped")) {
		t.Fatalf("no Comm.Channel.Text for a say: %+v", g.msgs)
	}
}

// MSSP: a crawler that says DO MSSP gets the variables listing sites read.
func TestOptions_MSSP(t *testing.T) {
	plain := servertest.Start(t, nil)
	vars := msspVars(t, plain.TelnetAddr())
	for _, v := range []string{"NAME", "PLAYERS", "UPTIME", "CODEBASE", "PORT"} {
		if len(vars[v]) != 1 {
			t.Errorf("MSSP sent %s %d times, want once", v, len(vars[v]))
		}
	}
	if got := vars["SSL"]; len(got) != 1 || got[0] != "0" {
		t.Errorf("without TLS, MSSP sent SSL as %q, want once as 0", got)
	}

	cfg := servertest.Config(t)
	cfg.Server.TLSAddr = "127.0.0.1:0"
	tls := servertest.Start(t, cfg)
	_, port, _ := net.SplitHostPort(tls.TLSAddr())
	if got := msspVars(t, tls.TelnetAddr())["SSL"]; len(got) != 1 || got[0] != port {
		t.Errorf("with TLS on port %s, MSSP sent SSL as %q, want once as the port", port, got)
	}
}

// msspVars asks a server for MSSP and returns each variable's values, one
// entry per time the variable was sent.
func msspVars(t *testing.T, addr string) map[string][]string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte{iac, do, optMSSP})
	_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte{iac, sb, optMSSP}) || !bytes.Contains(got[bytes.Index(got, []byte{iac, sb, optMSSP}):], []byte{iac, se}) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("no MSSP: %v (%q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	i := bytes.Index(got, []byte{iac, sb, optMSSP}) + 3
	frame := got[i : i+bytes.Index(got[i:], []byte{iac, se})]
	vars := map[string][]string{}
	// MSSP_VAR (1) name, then MSSP_VAL (2) value, once per value.
	for _, part := range bytes.Split(frame, []byte{1})[1:] {
		fields := bytes.Split(part, []byte{2})
		name := string(fields[0])
		for _, v := range fields[1:] {
			vars[name] = append(vars[name], string(v))
		}
	}
	return vars
}

// MCCP2: a client that agrees gets IAC SB MCCP2 IAC SE and then a zlib
// stream it can log in and play through.
func TestOptions_MCCP2(t *testing.T) {
	srv := servertest.Start(t, nil)
	c, err := net.Dial("tcp", srv.TelnetAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = c.Write([]byte{iac, do, optMCCP2})
	br := bufio.NewReader(c)
	var pre []byte
	marker := []byte{iac, sb, optMCCP2, iac, se}
	for !bytes.HasSuffix(pre, marker) {
		b, err := br.ReadByte()
		if err != nil {
			t.Fatalf("no MCCP2 start: %v (%q)", err, pre)
		}
		pre = append(pre, b)
	}
	if !bytes.Contains(pre, []byte("name")) {
		t.Fatalf("no name prompt before compression: %q", pre)
	}
	// Output from here on is compressed; it starts with the answer to the
	// name.
	_, _ = c.Write([]byte("Zippy\r\n"))
	zr, err := zlib.NewReader(br)
	if err != nil {
		t.Fatalf("not a zlib stream: %v", err)
	}
	var text bytes.Buffer
	until := func(want string) {
		buf := make([]byte, 1024)
		for !strings.Contains(text.String(), want) {
			n, err := zr.Read(buf)
			text.Write(buf[:n])
			if err != nil && err != io.EOF {
				t.Fatalf("reading the compressed stream for %q: %v (%q)", want, err, text.String())
			}
		}
	}
	until("(y/n)")
	for _, line := range []string{"y", "zip-pass", "zip-pass"} {
		_, _ = c.Write([]byte(line + "\r\n"))
	}
	until("Exits:")
	_, _ = c.Write([]byte("look\r\n"))
	text.Reset()
	until("Emberfall Square")
}

// The TLS port speaks telnet over TLS, and tells a plain client so.
func TestOptions_TLSPort(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.TLSAddr = "127.0.0.1:0"
	srv := servertest.Start(t, cfg)
	plain := servertest.Dial(t, srv.TLSAddr())
	plain.Expect("telnet over TLS")
	if !plain.WaitClosed(15 * time.Second) {
		t.Fatal("plain client on the TLS port left open")
	}
	tc := servertest.DialTLS(t, srv.TLSAddr())
	tc.Create("Secure", "secure-pass")
	tc.DoExpect("look", "Emberfall Square")
}

// dialFrom connects from a given loopback address (Linux routes all of
// 127.0.0.0/8 to lo), so per-address limits can be tested.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 15 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", local, err)
	}
	return c
}

// A thousand failed logins from one address: each ends in a clean refusal
// or disconnect, the address is shut out after the limit, and a player on
// another address plays on unaffected.
func TestLimits_FailedLoginFlood(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	cfg.Gate.MaxLoginFailures = 6
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()
	owner := servertest.Wrap(t, dialFrom(t, "127.0.0.3", addr))
	owner.Create("Victim", "victim-pass")
	owner.Quit()
	bystander := servertest.Wrap(t, dialFrom(t, "127.0.0.4", addr))
	bystander.Create("Bystander", "by-pass")

	refused, failed := 0, 0
	for i := 0; i < 1000; i++ {
		c := servertest.Wrap(t, dialFrom(t, "127.0.0.2", addr))
		if _, ok := c.Try("name", 15*time.Second); !ok {
			if strings.Contains(c.Since(), "Too many failed logins") {
				refused++
				c.Close()
				continue
			}
			t.Fatalf("attempt %d: neither a prompt nor a refusal: %q", i, c.Since())
		}
		c.Send("Victim")
		c.Expect("password")
		c.Send(fmt.Sprintf("guess%d", i))
		c.ExpectWithin("Wrong password", 20*time.Second)
		failed++
		c.Close()
		if i%5 == 0 {
			want := fmt.Sprintf("You say, 'ok %d'", i)
			bystander.Send(fmt.Sprintf("say ok %d", i))
			bystander.Expect(want)
		}
	}
	if failed > cfg.Gate.MaxLoginFailures+2 || refused < 900 {
		t.Fatalf("%d wrong passwords were checked and %d connections refused; want the address shut out after %d", failed, refused, cfg.Gate.MaxLoginFailures)
	}
	// The owner, from elsewhere, still gets in.
	back := servertest.Wrap(t, dialFrom(t, "127.0.0.3", addr))
	back.Expect("name")
	back.Send("Victim")
	back.Expect("password")
	back.Send("victim-pass")
	back.ExpectWithin("Exits:", 20*time.Second)
}

// The per-address connection cap holds; other addresses are not affected.
func TestLimits_ConnectionsPerAddress(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	cfg.Gate.MaxConnsPerIP = 5
	srv := servertest.Start(t, cfg)
	var open []net.Conn
	for i := 0; i < 5; i++ {
		open = append(open, dialFrom(t, "127.0.0.5", srv.TelnetAddr()))
	}
	sixth := servertest.Wrap(t, dialFrom(t, "127.0.0.5", srv.TelnetAddr()))
	sixth.Expect("Too many connections from your address")
	other := servertest.Wrap(t, dialFrom(t, "127.0.0.6", srv.TelnetAddr()))
	other.Create("Elsewhere", "else-pass")
	for _, c := range open {
		c.Close()
	}
}
