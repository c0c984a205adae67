package leaktest_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/run"
	"zonemud/server/servertest"
)

// A server with players on telnet, telnet over TLS and SSH, and a
// connection still at the login prompt, is shut down. While it runs, every
// goroutine the project's code started was started through internal/run;
// when Shutdown returns, every one of those has returned; and once the
// test's own clients are closed, the process is back to the goroutines it
// had before the server started.
func TestShutdown_LeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := servertest.Config(t)
	cfg.Server.TLSAddr = "127.0.0.1:0"
	srv := servertest.Start(t, cfg)

	tn := servertest.Dial(t, srv.TelnetAddr())
	tn.Create("Aria", "hunter22")
	tn.Do("look")
	tl := servertest.DialTLS(t, srv.TLSAddr())
	tl.Create("Bran", "hunter22")
	idle := servertest.Dial(t, srv.TelnetAddr())
	idle.Expect("name")
	sh := dialSSH(t, srv.SSHAddr(), srv.SSHHostKey(), "Cato")
	sh.expect("\n") // the banner: the gate's session runs
	sh.send("y")
	sh.expect("password")
	sh.send("hunter22")
	sh.expect("again")
	sh.send("hunter22")
	sh.expect("Exits:")
	if err := sh.sess.WindowChange(30, 100); err != nil {
		t.Fatal(err)
	}
	tn.DoExpect("say hello", "You say")

	if n := run.Live(); n == 0 {
		t.Fatal("no goroutine of the running server counts as started through internal/run")
	}
	for _, g := range goroutines() {
		by := createdBy(g)
		if strings.HasPrefix(by, "zonemud/") && !strings.HasPrefix(by, "zonemud/internal/run.") &&
			!strings.HasPrefix(by, "zonemud/server/servertest.") && !strings.HasPrefix(by, "zonemud/server/leaktest_test.") {
			t.Errorf("a goroutine of the server was not started through internal/run (created by %s):\n%s", by, g)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if n := run.Live(); n != 0 {
		t.Errorf("%d goroutines started through internal/run still running after Shutdown returned:", n)
		for _, g := range goroutines() {
			if strings.Contains(g, "zonemud/internal/run.") {
				t.Log(g)
			}
		}
	}

	// The server closed every connection; the clients see it and stop.
	for _, c := range []interface{ WaitClosed(time.Duration) bool }{tn, tl, idle} {
		if !c.WaitClosed(10 * time.Second) {
			t.Error("a telnet client's connection is still open after Shutdown")
		}
	}
	sh.close()
	// What is left ends on its own once its socket is closed (the
	// standard library's and the SSH library's goroutines): wait for the
	// count to come back, with a generous bound on a hang.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Shutdown, %d before Start; the extra ones:", n, before)
		for _, g := range goroutines()[1:] {
			t.Log(g)
		}
	}
}

// goroutines is every goroutine's stack, the caller's first.
func goroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(strings.TrimSpace(string(buf[:n])), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// createdBy is the function that started the goroutine whose stack is g
// ("" for the main goroutine).
func createdBy(g string) string {
	_, after, ok := strings.Cut(g, "\ncreated by ")
	if !ok {
		return ""
	}
	fn, _, _ := strings.Cut(after, " ")
	fn, _, _ = strings.Cut(fn, "\n")
	return fn
}

// sshTerm is an SSH session with a PTY, read into a buffer with escape
// sequences and carriage returns dropped.
type sshTerm struct {
	t    *testing.T
	c    *gossh.Client
	sess *gossh.Session
	in   io.WriteCloser
	done chan struct{} // the output copy has ended

	mu   sync.Mutex
	buf  bytes.Buffer // guarded by mu
	mark int          // guarded by mu: where the next expect looks from
	esc  int          // guarded by mu: 0 text, 1 after ESC, 2 in CSI
}

func dialSSH(t *testing.T, addr string, key gossh.PublicKey, user string) *sshTerm {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: user, Auth: []gossh.AuthMethod{gossh.Password("unused")},
		HostKeyCallback: gossh.FixedHostKey(key), Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh %s@%s: %v", user, addr, err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	tm := &sshTerm{t: t, c: c, sess: sess, done: make(chan struct{})}
	if tm.in, err = sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(tm.done)
		_, _ = io.Copy(tm, out)
	}()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tm.close)
	return tm
}

func (tm *sshTerm) Write(p []byte) (int, error) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	for _, c := range p {
		switch {
		case tm.esc == 1 && c == '[':
			tm.esc = 2
		case tm.esc == 1:
			tm.esc = 0
		case tm.esc == 2:
			if c >= 0x40 && c <= 0x7e {
				tm.esc = 0
			}
		case c == 0x1b:
			tm.esc = 1
		case c != '\r':
			tm.buf.WriteByte(c)
		}
	}
	return len(p), nil
}

func (tm *sshTerm) send(line string) {
	tm.t.Helper()
	if _, err := tm.in.Write([]byte(line + "\r")); err != nil {
		tm.t.Fatalf("ssh: send %q: %v", line, err)
	}
}

// expect waits until want has come since the last expect: a generous
// bound on a hang, not a measurement.
func (tm *sshTerm) expect(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tm.mu.Lock()
		s := tm.buf.String()
		i := strings.Index(s[tm.mark:], want)
		if i >= 0 {
			tm.mark += i + len(want)
		}
		tm.mu.Unlock()
		switch {
		case i >= 0:
			return
		case time.Now().After(deadline):
			tm.t.Fatalf("ssh: %q never came; got %q", want, s)
		}
		select {
		case <-tm.done:
			tm.t.Fatalf("ssh: the session ended before %q; got %q", want, s)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// close ends the client and waits for its output copy to stop.
func (tm *sshTerm) close() {
	_ = tm.sess.Close()
	_ = tm.c.Close()
	<-tm.done
}
