package servertest

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// DialSSH opens an SSH session with a PTY (xterm, 80x24) and a shell at
// addr, with cc's user, auth and host key check, and makes a Client of
// it: Send types a line, Expect reads the terminal (escape sequences
// dropped). The test fails if the client is not let in.
func DialSSH(t testing.TB, addr string, cc *gossh.ClientConfig) *Client {
	t.Helper()
	if cc.Timeout == 0 {
		cc.Timeout = 10 * time.Second
	}
	c, err := gossh.Dial("tcp", addr, cc)
	if err != nil {
		t.Fatalf("ssh %s@%s: %v", cc.User, addr, err)
	}
	return OpenSSH(t, c)
}

// OpenSSH opens a session with a PTY and a shell on a client that has
// authenticated already, and makes a Client of it, as DialSSH does.
func OpenSSH(t testing.TB, c *gossh.Client) *Client {
	t.Helper()
	s, err := StartShell(c)
	if err != nil {
		t.Fatal(err)
	}
	return Wrap(t, s)
}

// StartShell opens a session with a PTY and a shell on a client that has
// authenticated already, as OpenSSH does, and returns its terminal for
// Wrap; on any goroutine. c is closed if it fails.
func StartShell(c *gossh.Client) (net.Conn, error) {
	sess, err := c.NewSession()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("ssh session: %w", err)
	}
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("ssh pty: %w", err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		c.Close()
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		c.Close()
		return nil, err
	}
	sess.Stderr = io.Discard
	if err := sess.Shell(); err != nil {
		c.Close()
		return nil, fmt.Errorf("ssh shell: %w", err)
	}
	return &sshStream{r: out, w: in, c: c, sess: sess, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

// TrySSH authenticates at addr with cc and closes at once: nil if the
// client was let in, else x/crypto's error (it names the methods refused).
func TrySSH(addr string, cc *gossh.ClientConfig) error {
	if cc.Timeout == 0 {
		cc.Timeout = 10 * time.Second
	}
	c, err := gossh.Dial("tcp", addr, cc)
	if err != nil {
		return err
	}
	return c.Close()
}

// sshStream is an SSH session's terminal as a net.Conn, for Wrap.
type sshStream struct {
	r             io.Reader
	w             io.WriteCloser
	c             *gossh.Client
	sess          *gossh.Session
	local, remote net.Addr
}

func (s *sshStream) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s *sshStream) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s *sshStream) Close() error {
	_ = s.sess.Close()
	return s.c.Close()
}
func (s *sshStream) LocalAddr() net.Addr              { return s.local }
func (s *sshStream) RemoteAddr() net.Addr             { return s.remote }
func (s *sshStream) SetDeadline(time.Time) error      { return nil }
func (s *sshStream) SetReadDeadline(time.Time) error  { return nil }
func (s *sshStream) SetWriteDeadline(time.Time) error { return nil }

// NewSSHKey makes an ed25519 key for an SSH client, and its public half
// in authorized_keys form (what a player gives `sshkey add`).
func NewSSHKey(t testing.TB) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey())))
}
