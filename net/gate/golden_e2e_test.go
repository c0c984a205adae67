package gate_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"zonemud/net/telnet"
	"zonemud/net/telnet/telnettest"
	"zonemud/server/servertest"
)

// update rewrites the golden files instead of comparing with them: run
// `go test ./net/gate -run Golden -update` after changing the login on
// purpose, and read the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The whole of a login, byte for byte, for each client of the conformance
// transcripts (net/telnet/testdata/transcripts): the server's opening, the
// client's answers as the transcript gives them and what the server says
// to each, in order, then the login dialogue of a new character, the first
// room and prompt, and quit. The golden file shows the exchange as a
// dialogue: C: what the client sent, S: what the server sent, in the
// transcripts' notation, text a line at a time.
//
// The test waits for the server after each thing the client sends (see
// wire.sync, whose probes the file leaves out), so the order in the file
// is the order the server must keep, never an accident of timing. The
// square is made a nomob room, so nothing can wander into the first room
// while the login runs: the file holds what the player is shown, not who
// happened to pass.
func TestGolden_Login(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "telnet", "testdata", "transcripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("transcripts: %v, %v", files, err)
	}
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name != "emberfall.toml" {
			return data
		}
		const room = "[rooms.square]\n"
		if !bytes.Contains(data, []byte(room)) {
			t.Fatal("emberfall.toml has no [rooms.square]")
		}
		return bytes.Replace(data, []byte(room), []byte(room+"flags = [\"nomob\"]\n"), 1)
	})
	srv := servertest.Start(t, cfg)
	for i, f := range files {
		client := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(client, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := telnettest.ParseTranscript(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			d := &dialogue{w: dialWire(t, srv.TelnetAddr()), after: map[byte][][]byte{}}
			d.w.expect(servertest.NamePrompt)
			d.sync()
			for _, b := range tr.Blocks[1:] {
				for _, op := range b.Ops {
					if op.Action == "" {
						d.step(op.Bytes)
					}
				}
			}
			name := fmt.Sprintf("Golden%c", 'a'+i)
			d.login(name, "golden-pass")
			d.w.expect("Exits:")
			d.w.expect("> ")
			d.sync()
			d.sendLine("quit")
			d.w.wait("the connection to close", func() bool { return d.w.err != nil })
			golden(t, "login-"+client+".txt", d.render(name))
		})
	}
}

// dialogue is a wire whose every send is recorded at the point in the
// server's stream after which it was sent: after the refusal of the last
// probe.
type dialogue struct {
	w     *wire
	probe byte              // the last probe's option, 0 before the first
	after map[byte][][]byte // what the client sent after each probe's refusal
}

func (d *dialogue) send(p []byte) {
	d.w.t.Helper()
	d.after[d.probe] = append(d.after[d.probe], p)
	d.w.send(p)
}

// step sends p and waits until the server has answered it: for a line,
// its next question (one prompt mark for each line); for negotiation,
// a probe. A probe sent right behind a line may be read with it, and its
// refusal then come before the line's answer, so a line is waited for by
// its answer instead.
func (d *dialogue) step(p []byte) {
	d.w.t.Helper()
	lines := bytes.Count(p, []byte("\n"))
	if lines == 0 {
		d.send(p)
		d.sync()
		return
	}
	marks := func() int {
		n := 0
		for _, c := range d.w.cmds {
			if isPromptMark(c.b) {
				n++
			}
		}
		return n
	}
	d.w.mu.Lock()
	want := marks() + lines
	d.w.mu.Unlock()
	d.send(p)
	d.w.wait(fmt.Sprintf("the answer to %s", notation(p)), func() bool { return marks() >= want })
	d.sync()
}

func (d *dialogue) sendLine(s string) { d.w.t.Helper(); d.send([]byte(s + "\r\n")) }

func (d *dialogue) sync() {
	d.w.t.Helper()
	d.probe = d.w.probe
	d.w.sync()
}

// login is wire.login with every line recorded and the server waited
// for after each: it creates a character, starting wherever the
// transcript left the dialogue.
func (d *dialogue) login(name, password string) {
	w := d.w
	w.t.Helper()
	w.mu.Lock()
	text := string(w.text)
	w.mu.Unlock()
	yn, nm := strings.LastIndex(text, "(y/n)"), strings.LastIndex(text, "name")
	switch {
	case yn > nm:
		w.mark = yn + len("(y/n)")
		d.sendLine("n")
	case nm >= 0:
		w.mark = nm
	}
	// "password: " is the question itself: the line before it names the
	// password too, and a probe sent on that line races the question.
	for _, step := range [][2]string{{"name", name}, {"(y/n)", "y"}, {"password: ", password}, {"again", password}} {
		w.expect(step[0])
		d.sync()
		d.sendLine(step[1])
	}
}

// render writes the exchange: the server's stream cut into its commands
// and its lines of text, the client's sends put after the probe refusal
// they followed, and the probes left out.
func (d *dialogue) render(name string) string {
	d.w.mu.Lock()
	all := append([]byte(nil), d.w.all...)
	d.w.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "# The login of %s; see TestGolden_Login. C: the client, S: the server;\n# after S: IAC SB MCCP2 IAC SE, the server's bytes are shown decompressed;\n# MSSP values that differ from run to run, or with the world's content, are *.\n", name)
	client := func(probe byte) {
		for _, p := range d.after[probe] {
			b.WriteString("C: " + notation(p) + "\n")
		}
	}
	client(0)
	text := func(p []byte) {
		for len(p) > 0 {
			i := bytes.IndexByte(p, '\n') + 1
			if i == 0 {
				i = len(p)
			}
			b.WriteString("S: " + strconv.Quote(string(p[:i])) + "\n")
			p = p[i:]
		}
	}
	var s splitter
	start := 0 // where the text not yet written begins
	for i, c := range all {
		before := len(s.cmds)
		s.add(c)
		if len(s.cmds) == before {
			continue
		}
		cmd := s.cmds[len(s.cmds)-1].b
		text(all[start : i+1-len(cmd)])
		start = i + 1
		if len(cmd) == 3 && cmd[1] == telnet.WONT && cmd[2] >= firstProbe && cmd[2] <= lastProbe {
			client(cmd[2])
			continue
		}
		b.WriteString("S: " + notation(steadyMSSP(cmd)) + "\n")
	}
	text(all[start:])
	return b.String()
}

// unsteady are the MSSP variables whose values change from run to run
// (the port, the start time, the year the database was made) or whenever
// a builder adds to the world; the golden file shows them as *.
var unsteady = map[string]bool{"UPTIME": true, "PORT": true, "CREATED": true, "PLAYERS": true,
	"AREAS": true, "ROOMS": true, "MOBILES": true, "OBJECTS": true, "HELPFILES": true}

// steadyMSSP is cmd with the values of the unsteady variables of an MSSP
// frame replaced by *; any other command is returned as it is.
func steadyMSSP(cmd []byte) []byte {
	if len(cmd) < 5 || cmd[1] != telnet.SB || cmd[2] != telnet.OptMSSP {
		return cmd
	}
	body := cmd[3 : len(cmd)-2]
	out := append([]byte(nil), cmd[:3]...)
	var name string
	for len(body) > 0 {
		kind := body[0]
		body = body[1:]
		i := bytes.IndexAny(body, "\x01\x02")
		if i < 0 {
			i = len(body)
		}
		v := body[:i]
		body = body[i:]
		out = append(out, kind)
		switch {
		case kind == 1:
			name = string(v)
		case unsteady[name]:
			v = []byte("*")
		}
		out = append(out, v...)
	}
	return append(out, cmd[len(cmd)-2:]...)
}

// golden compares got with testdata/golden/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if got != string(want) {
		w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		i := 0
		for i < len(w) && i < len(g) && w[i] == g[i] {
			i++
		}
		wl, gl := "(end)", "(end)"
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		t.Errorf("%s differs from the login the server now gives, first at line %d; if the change is meant, rewrite it with -update:\n  want: %s\n  got:  %s", path, i+1, wl, gl)
	}
}
