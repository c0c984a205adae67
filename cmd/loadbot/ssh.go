package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

// link is a bot's connection: a telnet TCP socket, or an SSH session's
// terminal. Reads and writes may run on two goroutines at once.
type link interface {
	io.Reader
	Write(p []byte) (int, error)
	Close() error
	// SetDeadline bounds the login; the zero time removes the bound.
	SetDeadline(t time.Time) error
	// SetReadDeadline makes a blocked read return a timeout error at t.
	// A link that cannot (SSH) ignores it; its reads end when it closes.
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// tcpLink is a telnet bot's link.
type tcpLink struct{ net.Conn }

// sshKey is the key every SSH bot offers. It is loaded from a file (an
// OpenSSH private key), or made and written there the first time.
type sshKey struct {
	signer ssh.Signer
	line   string // the authorized_keys line, for `sshkey add`
}

// loadOrMakeKey reads the ed25519 key at path, or makes one and writes it
// there (mode 0600) if the file does not exist.
func loadOrMakeKey(path string) (*sshKey, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("loadbot: make key: %w", err)
		}
		blk, err := ssh.MarshalPrivateKey(priv, "zonemud loadbot")
		if err != nil {
			return nil, fmt.Errorf("loadbot: encode key: %w", err)
		}
		b = pem.EncodeToMemory(blk)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("loadbot: write key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("loadbot: read key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("loadbot: key %s: %w", path, err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	return &sshKey{signer: signer, line: line}, nil
}

// usedSigner wraps a signer to tell whether the server took the key: the
// client signs only after the server said the key may be used.
type usedSigner struct {
	ssh.Signer
	used atomic.Bool
}

func (u *usedSigner) Sign(r io.Reader, data []byte) (*ssh.Signature, error) {
	u.used.Store(true)
	return u.Signer.Sign(r, data)
}

// sshLink is an SSH bot's link: one session with a PTY and a shell.
type sshLink struct {
	tcp    net.Conn
	client *ssh.Client
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader

	mu    sync.Mutex
	timer *time.Timer // guarded by mu: closes the link at the login deadline
	once  sync.Once
}

// dialSSH connects as user, offering the key and then the password (which
// a new name needs: the server then asks the creation questions in the
// session). keyUsed reports whether the key logged the bot in.
func dialSSH(ctx context.Context, addr, user, password string, key *sshKey, deadline time.Time) (l *sshLink, keyUsed bool, err error) {
	d := net.Dialer{Deadline: deadline}
	tcp, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	tcp.SetDeadline(deadline)
	us := &usedSigner{Signer: key.signer}
	cfg := &ssh.ClientConfig{
		User: user,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(us), ssh.Password(password)},
		// The load tool measures a server its user runs; it has no
		// known_hosts to check against and trusts the address it is given.
		HostKeyCallback: ssh.InsecureIgnoreHostKey(),
		Timeout:         time.Until(deadline),
	}
	c, chans, reqs, err := ssh.NewClientConn(tcp, addr, cfg)
	if err != nil {
		tcp.Close()
		return nil, false, err
	}
	client := ssh.NewClient(c, chans, reqs)
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, false, err
	}
	l = &sshLink{tcp: tcp, client: client, sess: sess}
	fail := func(err error) (*sshLink, bool, error) {
		l.Close()
		return nil, false, err
	}
	if l.stdin, err = sess.StdinPipe(); err != nil {
		return fail(err)
	}
	if l.stdout, err = sess.StdoutPipe(); err != nil {
		return fail(err)
	}
	if err := sess.RequestPty("xterm", 24, 100, ssh.TerminalModes{}); err != nil {
		return fail(err)
	}
	if err := sess.Shell(); err != nil {
		return fail(err)
	}
	// From here on the SSH transport reads for itself; a deadline on the
	// socket would kill it. The login bound is a timer (SetDeadline).
	tcp.SetDeadline(time.Time{})
	return l, us.used.Load(), nil
}

func (l *sshLink) Read(p []byte) (int, error) { return l.stdout.Read(p) }

// Write sends keystrokes: a line ends with CR, as a terminal's Enter key.
func (l *sshLink) Write(p []byte) (int, error) {
	if n := len(p); n >= 2 && p[n-2] == '\r' && p[n-1] == '\n' {
		k, err := l.stdin.Write(p[:n-1])
		if err == nil {
			k = n
		}
		return k, err
	}
	return l.stdin.Write(p)
}

func (l *sshLink) Close() error {
	l.once.Do(func() {
		l.mu.Lock()
		if l.timer != nil {
			l.timer.Stop()
		}
		l.mu.Unlock()
		l.sess.Close()
		l.client.Close()
	})
	return nil
}

// SetDeadline closes the link at t.
func (l *sshLink) SetDeadline(t time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if !t.IsZero() {
		l.timer = time.AfterFunc(time.Until(t), func() { l.Close() })
	}
	return nil
}

func (l *sshLink) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline bounds a write only by closing the link, which is what
// the one caller (quit) wants anyway.
func (l *sshLink) SetWriteDeadline(t time.Time) error { return l.SetDeadline(t) }
