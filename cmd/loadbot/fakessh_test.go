package main

import (
	"bufio"
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// sshFront puts an SSH front before a fake server, with the real server's
// rules: a registered key or the password opens an account, and a name
// without one gets in to answer the creation questions.
type sshFront struct {
	f      *fakeServer
	ln     net.Listener
	byKey  atomic.Int32
	byPass atomic.Int32
}

func newSSHFront(t *testing.T, f *fakeServer) *sshFront {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fr := &sshFront{f: f, ln: ln}
	const ctxAuthed = "authed"
	srv := &ssh.Server{
		Handler: func(s ssh.Session) {
			if _, _, ok := s.Pty(); !ok {
				s.Exit(1)
				return
			}
			authed, _ := s.Context().Value(ctxAuthed).(bool)
			fc := &fconn{f: f, c: s, br: bufio.NewReader(s), ssh: true, user: s.User()}
			f.session(fc, authed)
		},
		PublicKeyHandler: func(ctx ssh.Context, key ssh.PublicKey) bool {
			f.mu.Lock()
			line := f.keys[canonical(ctx.User())]
			f.mu.Unlock()
			if line == "" {
				return false
			}
			k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
			if err != nil || !ssh.KeysEqual(k, key) {
				return false
			}
			ctx.SetValue(ctxAuthed, true)
			fr.byKey.Add(1)
			return true
		},
		PasswordHandler: func(ctx ssh.Context, pw string) bool {
			f.mu.Lock()
			want, known := f.known[canonical(ctx.User())]
			f.mu.Unlock()
			if !known {
				return true // a new name: the session asks the questions
			}
			if pw != want {
				return false
			}
			ctx.SetValue(ctxAuthed, true)
			fr.byPass.Add(1)
			return true
		},
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return fr
}

func canonical(name string) string { return strings.ToUpper(name[:1]) + strings.ToLower(name[1:]) }

// Over SSH the bots create their characters with the password, register
// the key in game, and the next run logs in by key.
func TestRun_SSHRegistersKeyThenUsesIt(t *testing.T) {
	f := newFakeServer(t, fakeOpts{delay: time.Millisecond})
	fr := newSSHFront(t, f)
	cfg := testConfig(fr.ln.Addr().String())
	cfg.Bots = 5
	cfg.SSHKey = filepath.Join(t.TempDir(), "key")

	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	if !s.SSH || s.KeysAdded != cfg.Bots || s.ByKey != 0 {
		t.Errorf("first run: ssh %v, keys added %d, by key %d; want true, %d, 0", s.SSH, s.KeysAdded, s.ByKey, cfg.Bots)
	}
	if got := f.created.Load(); got != int32(cfg.Bots) {
		t.Errorf("characters created: got %d, want %d", got, cfg.Bots)
	}

	s = runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	if s.ByKey != cfg.Bots || s.KeysAdded != 0 {
		t.Errorf("second run: by key %d, keys added %d; want %d, 0", s.ByKey, s.KeysAdded, cfg.Bots)
	}
	if got := fr.byKey.Load(); got != int32(cfg.Bots) {
		t.Errorf("the front saw %d key logins, want %d", got, cfg.Bots)
	}
	if got := fr.byPass.Load(); got != 0 {
		t.Errorf("the front saw %d password logins of known names, want 0", got)
	}
}

// The key file is made once and read back the same.
func TestLoadOrMakeKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	a, err := loadOrMakeKey(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadOrMakeKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.line != b.line {
		t.Fatalf("the key changed between reads: %q, %q", a.line, b.line)
	}
	if _, _, _, _, err := gossh.ParseAuthorizedKey([]byte(a.line)); err != nil {
		t.Fatalf("authorized key line does not parse: %v", err)
	}
}
