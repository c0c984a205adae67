package gate_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/net/gate"
	"zonemud/server/servertest"
)

// A burst bigger than the telnet encoder's buffer, after a quiet spell
// longer than the write timeout, arrives whole: the encoder writes such a
// burst to the socket before its flush, so the burst's deadline must be set
// before its first write, not left at the last burst's, long passed.
func TestWriter_BigBurstAfterQuietSpell(t *testing.T) {
	// A help topic of numbered words, twice the encoder's buffer: one
	// command, one burst, and a cut shows.
	var b strings.Builder
	for i := 0; b.Len() < 8<<10; i++ {
		fmt.Fprintf(&b, "w%04d ", i)
	}
	words := strings.Fields(b.String())
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name != "help.toml" {
			return data
		}
		return fmt.Appendf(data, "\n[[help]]\nkeywords = [\"burst\"]\ntitle = \"A long read\"\ntext = \"\"\"\n%s\"\"\"\n", b.String())
	})
	cfg.Gate.WriteTimeoutSecs = 1
	srv := servertest.Start(t, cfg)
	c := servertest.Dial(t, srv.TelnetAddr())
	c.Create("Quietus", "quiet-pass")
	time.Sleep(1500 * time.Millisecond) // quiet for longer than the write timeout
	c.DoExpect("help burst", "A long read")
	got := strings.Fields(c.Expect(words[len(words)-1]))
	if strings.Join(got, " ") != strings.Join(words, " ") {
		t.Fatalf("the help text arrived as %d words, want %d", len(got), len(words))
	}
	c.DoExpect("look", "Exits:")
}

// A client that stops reading until its output queue overflows is cut off,
// and its character goes link-dead, as for any other lost connection: it is
// not left online on a closed session.
func TestOverflow_CharacterGoesLinkDead(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.OutputLimitKiB = 16
	// Longer than any flood takes, however slow the machine: the queue
	// overflows while the writer still waits on the socket, and the
	// overflow, not the write timeout, is what cuts the connection.
	cfg.Gate.WriteTimeoutSecs = 600
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()

	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096) // fills sooner
	}
	sl := servertest.Wrap(t, raw)
	sl.Create("Sleepy", "sleepy-pass")
	talk := servertest.Dial(t, addr)
	talk.Create("Chatter", "chatter-pass")
	sl.StopReading()

	flood(t, talk, func() bool { return srv.Gate().Overflows() > 0 })
	waitConnections(t, srv.Gate(), 1)
	waitLinkDead(t, talk, "Sleepy")
}

// An SSH client that stops reading fills its channel window, and a write
// to it waits for window space. The gate's write timeout closes the
// channel, so the session ends and the character goes link-dead. The SSH
// server here is the least that hands channels to the gate: without the
// write stall of net/sshd, only the gate can end the session.
func TestSSH_StalledClientGoesLinkDead(t *testing.T) {
	cfg := servertest.Config(t)
	// A queue that never overflows here: an overflow whose close frame
	// got written would end the session without the write timeout.
	cfg.Gate.OutputLimitKiB = 256 << 10
	cfg.Gate.WriteTimeoutSecs = 1
	srv := servertest.Start(t, cfg)
	addr := serveSSH(t, srv.Gate())

	cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            "Stalled",
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // the test's own server
		Timeout:         5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	ch, reqs, err := cl.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	go gossh.DiscardRequests(reqs)
	// A new name: confirm it, then the password twice, typed ahead.
	if _, err := ch.Write([]byte("y\rstalled-pass\rstalled-pass\r")); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for buf := make([]byte, 4096); !strings.Contains(seen.String(), "Exits:"); {
		n, err := ch.Read(buf)
		if err != nil {
			t.Fatalf("reading the login: %v; got %q", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	// From here on the client reads nothing: its window (2 MiB) fills.

	talk := servertest.Dial(t, srv.TelnetAddr())
	talk.Create("Gossip", "gossip-pass")
	flood(t, talk, func() bool { return srv.Gate().Connections() == 1 })
	if n := srv.Gate().Overflows(); n != 0 {
		t.Fatalf("%d output queues overflowed; the write timeout was to end the session", n)
	}
	waitLinkDead(t, talk, "Stalled")
}

// flood has talk say long lines, a few at a time, until done reports
// true. Each batch waits for the talker's own last echo, so the talker's
// output stays well under its own queue's limit.
func flood(t *testing.T, talk *servertest.Client, done func() bool) {
	t.Helper()
	const batch = 4
	long := strings.Repeat("chatter ", 110) // under the zone's 1000-rune command limit
	start := time.Now()
	for i := 0; !done(); i++ {
		for j := 0; j < batch; j++ {
			talk.Send(fmt.Sprintf("say %d.%d %s", i, j, long))
		}
		talk.ExpectWithin(fmt.Sprintf("You say, '%d.%d ", i, batch-1), 20*time.Second)
		if time.Since(start) > time.Minute {
			t.Fatalf("still flooding after %d batches of says", i+1)
		}
	}
}

// waitConnections waits until the gate has n connections open.
func waitConnections(t *testing.T, g *gate.Gate, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for g.Connections() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", g.Connections(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitLinkDead waits until who, as obs sees it, shows name link-dead.
func waitLinkDead(t *testing.T, obs *servertest.Client, name string) {
	t.Helper()
	deadline := time.Now().Add(servertest.ExpectTimeout)
	for {
		out := obs.DoExpect("who", "in the world.")
		for _, ln := range strings.Split(out, "\n") {
			if strings.Contains(ln, name) && strings.Contains(ln, "(link-dead)") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not shown link-dead after the connection ended:\n%s", name, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serveSSH runs an SSH server on loopback that lets every client in under
// the user name it gives and hands each session channel to g, and returns
// its address. It stops when the test ends, before the game server does.
func serveSSH(t *testing.T, g *gate.Gate) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &gossh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				sshConnection(c, cfg, g)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// sshConnection serves one SSH connection: each session channel is a game
// session, run to its end.
func sshConnection(c net.Conn, cfg *gossh.ServerConfig, g *gate.Gate) {
	sc, chans, reqs, err := gossh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	go gossh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(gossh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go gossh.DiscardRequests(creqs)
		resize := make(chan [2]int)
		close(resize) // no window changes
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.ServeSSH(gate.SSHLogin{
				User: sc.User(), Channel: ch, Remote: sc.RemoteAddr(),
				Term: "xterm", Width: 80, Height: 24, Resize: resize,
			})
			_ = ch.Close()
		}()
	}
}

// A listener handed to the gate after it shut down is closed at once: its
// accept loop would otherwise run for ever, and the server's shutdown,
// which waits for it, with it. (A test that shut a server down before its
// TLS accept loop had started hung this way.)
func TestGate_ListenerAfterShutdownIsClosed(t *testing.T) {
	srv := servertest.Start(t, nil)
	g := gate.New(srv.World(), gate.DefaultConfig(), nil)
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, serve := range map[string]func(net.Listener) error{
		"telnet": g.ServeTelnet,
		"TLS":    func(l net.Listener) error { return g.ServeTelnetTLS(l, nil, "") },
	} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- serve(l) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(30 * time.Second): // a bound on a hang
			l.Close()
			t.Fatalf("%s: the accept loop of a listener served after shutdown did not return", name)
		}
		if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
			c.Close()
			t.Errorf("%s: the listener is still open", name)
		}
	}
}
