package sshd_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/net/sshd"
	"zonemud/server/servertest"
)

func TestSSH_FirstLoginCreates_ThenKeyLogin(t *testing.T) {
	e := start(t, nil)
	const pw = "ssh-era-password"
	tm := e.createOverSSH("Sshera", pw)
	if out := tm.Output(); strings.Contains(out, pw) {
		t.Fatalf("the password was echoed:\n%s", out)
	}

	key := newKey(t)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key.PublicKey()))) + " sshera@test"
	tm.Do("sshkey add "+line, "Key added")
	tm.Do("quit", "Farewell")
	if got := tm.Exit(); got != 0 {
		t.Fatalf("exit status after quit = %d, want 0", got)
	}

	c := e.mustDial("Sshera", gossh.PublicKeys(key))
	tm2 := openTerm(t, c, "xterm-256color", 80, 24)
	tm2.Expect("Exits:")
	tm2.Expect("> ")
	tm2.Do("score", "Sshera, level")
	if got := e.logs.lines("event=3004", "user=Sshera", "method=publickey", gossh.FingerprintSHA256(key.PublicKey())); len(got) != 1 {
		t.Fatalf("log lines for the key login = %q, want one", got)
	}
}

// A new name's first question must be on the screen before the player is
// expected to answer it.
func TestSSH_CreationQuestionShown(t *testing.T) {
	e := start(t, nil)
	c := e.mustDial("Questiona", gossh.Password("x"))
	tm := openTerm(t, c, "xterm-256color", 80, 24)
	tm.Expect("Did I get that right, Questiona (y/n)?")
	tm.Send("y")
	tm.Expect("Choose a password")
	tm.Send("questiona-password")
	tm.Expect("again")
	tm.Send("questiona-password")
	tm.Expect("Exits:")
	tm.Expect("> ")
	tm.Do("quit", "Farewell")

	// A key login's first prompt, too.
	key := newKey(t)
	e.addKey("Questiona", key.PublicKey())
	tm = openTerm(t, e.mustDial("Questiona", gossh.PublicKeys(key)), "xterm", 80, 24)
	tm.Expect("Exits:")
	tm.Expect("> ")
}

// Nothing that looks like the game's prompt comes before the first
// question: x/term draws its prompt as a read begins, and a "> " ahead of
// the banner is a prompt that answers nothing, which a scripted client
// (the load tool was one) takes for the end of the login and answers the
// question with a command. Over twenty logins, since the order of the
// reader and the writer is a race.
func TestSSH_NoPromptBeforeTheFirstQuestion(t *testing.T) {
	e := start(t, nil)
	for i := range 20 {
		name := "Early" + string(rune('a'+i))
		tm := openTerm(t, e.mustDial(name, gossh.Password("x")), "xterm", 80, 24)
		got := tm.Expect("(y/n)?")
		if strings.Contains(got, "> ") {
			t.Fatalf("login %d: a prompt came before the first question:\n%q", i, got)
		}
		tm.sess.Close()
	}
}

func TestSSH_KeyboardInteractive_NewNameOnly(t *testing.T) {
	e := start(t, nil)
	ki := gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })

	c := e.mustDial("Kinew", ki)
	tm := openTerm(t, c, "xterm", 80, 24)
	tm.answerNameQuestion()
	tm.Expect("password")
	tm.Send("kinew-password")
	tm.Expect("again")
	tm.Send("kinew-password")
	tm.Expect("Exits:")
	tm.Do("quit", "Farewell")

	if _, err := e.dial("Kinew", ki); err == nil {
		t.Fatal("keyboard-interactive without a question opened an existing account")
	}
}

func TestSSH_NoneAuthRefused(t *testing.T) {
	e := start(t, nil)
	e.createOverSSH("Nonea", "nonea-password").Do("quit", "Farewell")
	for _, user := range []string{"Nonea", "Nobodyyet"} {
		if _, err := e.dial(user); err == nil {
			t.Errorf("%s: authentication method none was accepted", user)
		}
	}
}

func TestSSH_WrongPasswordRefused(t *testing.T) {
	e := start(t, nil)
	e.createOverSSH("Wrongpw", "right-password").Do("quit", "Farewell")
	if _, err := e.dial("Wrongpw", gossh.Password("wrong-password")); err == nil {
		t.Fatal("a wrong password opened the account")
	}
	c := e.mustDial("Wrongpw", gossh.Password("right-password"))
	tm := openTerm(t, c, "xterm", 80, 24)
	tm.Expect("Exits:")
}

func TestSSH_MaxAuthTries(t *testing.T) {
	cfg := sshd.DefaultConfig()
	cfg.MaxAuthTries = 2
	e := start(t, &cfg)
	e.createOverSSH("Triesa", "triesa-password").Do("quit", "Farewell")
	var tries int
	guess := gossh.RetryableAuthMethod(gossh.PasswordCallback(func() (string, error) {
		tries++
		return fmt.Sprintf("guess-%d", tries), nil
	}), 10)
	if _, err := e.dial("Triesa", guess); err == nil {
		t.Fatal("a guessed password opened the account")
	}
	if tries != cfg.MaxAuthTries {
		t.Fatalf("the client made %d password tries on one connection, want %d", tries, cfg.MaxAuthTries)
	}
}

func TestSSH_KeyOfAnotherAccountRefused(t *testing.T) {
	e := start(t, nil)
	e.createOverSSH("Ownera", "ownera-password").Do("quit", "Farewell")
	e.createOverSSH("Otherb", "otherb-password").Do("quit", "Farewell")
	key := newKey(t)
	e.addKey("Otherb", key.PublicKey())
	if _, err := e.dial("Ownera", gossh.PublicKeys(key)); err == nil {
		t.Fatal("a key registered to Otherb opened Ownera")
	}
	e.mustDial("Otherb", gossh.PublicKeys(key)).Close()
}

// The class of CVE-2024-45337: a key the client offers but never signs
// with must not become the session's identity. Key B is registered to the
// account; the client offers an unregistered key A and key B, cannot sign
// with B, and then uses a password.
func TestSSH_OfferedKeyIsNotIdentity(t *testing.T) {
	e := start(t, nil)
	e.createOverSSH("Victima", "victima-password").Do("quit", "Farewell")
	keyA, keyB := newKey(t), newKey(t)
	e.addKey("Victima", keyB.PublicKey())
	offer := gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		return []gossh.Signer{keyA, cannotSign{keyB.PublicKey()}}, nil
	})

	// The server accepts the offer of B, but that proves nothing: with a
	// wrong password the client gets nowhere.
	if _, err := e.dial("Victima", offer, gossh.Password("not-the-password")); err == nil {
		t.Fatal("offering a registered key without signing, plus a wrong password, opened the account")
	}
	// Signing with the unregistered key A proves nothing either.
	if _, err := e.dial("Victima", gossh.PublicKeys(keyA)); err == nil {
		t.Fatal("an unregistered key opened the account")
	}

	// With the right password the session is the password's, not B's.
	c := e.mustDial("Victima", offer, gossh.Password("victima-password"))
	tm := openTerm(t, c, "xterm", 80, 24)
	tm.Expect("Exits:")
	if got := e.logs.lines("event=3004", "user=Victima", "method=password"); len(got) != 1 || strings.Contains(got[0], "key=") {
		t.Fatalf("password session log = %q, want one line without a key", got)
	}
	if got := e.logs.lines("event=3004", "user=Victima", "method=publickey"); len(got) != 0 {
		t.Fatalf("a session was recorded as opened by a key: %q", got)
	}
	tm.Do("quit", "Farewell")
}

// fakeMeta is the connection metadata of one authentication attempt.
type fakeMeta struct{ user string }

func (m fakeMeta) User() string          { return m.user }
func (m fakeMeta) SessionID() []byte     { return []byte("session") }
func (m fakeMeta) ClientVersion() []byte { return []byte("SSH-2.0-test") }
func (m fakeMeta) ServerVersion() []byte { return []byte("SSH-2.0-zonemud") }
func (m fakeMeta) RemoteAddr() net.Addr  { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555} }
func (m fakeMeta) LocalAddr() net.Addr   { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22} }

// A client may change its user name between attempts. Every callback must
// judge the name of its own attempt, and a session must belong to the name
// that was proven. Mallory registers Victim's public key B to his own
// account (anyone may register any public key) and knows only his own
// password.
func TestSSH_UserSwitchBetweenAttempts(t *testing.T) {
	e := start(t, nil)
	e.createOverSSH("Victimb", "victimb-password").Do("quit", "Farewell")
	e.createOverSSH("Mallory", "mallory-password").Do("quit", "Farewell")
	keyB, keyM := newKey(t), newKey(t)
	e.addKey("Victimb", keyB.PublicKey())
	e.addKey("Mallory", keyB.PublicKey())
	e.addKey("Mallory", keyM.PublicKey())
	cfg := e.ssh.AuthConfig()
	victim, mallory := fakeMeta{"Victimb"}, fakeMeta{"Mallory"}

	// Offer B as Mallory: accepted, but it records nothing.
	if _, err := cfg.PublicKeyCallback(mallory, keyB.PublicKey()); err != nil {
		t.Fatalf("offer of B as Mallory: %v", err)
	}
	// Then Mallory's password as Victim: refused.
	if _, err := cfg.PasswordCallback(victim, []byte("mallory-password")); err == nil {
		t.Fatal("Mallory's password opened Victimb")
	}
	// Keyboard-interactive as Victim: refused (the account exists).
	if _, err := cfg.KeyboardInteractiveCallback(victim, nil); err == nil {
		t.Fatal("keyboard-interactive opened Victimb")
	}
	// Mallory's own key, signed, as Victim: refused.
	if _, err := cfg.PublicKeyCallback(victim, keyM.PublicKey()); err == nil {
		t.Fatal("Mallory's key was accepted for Victimb")
	}
	if _, err := cfg.VerifiedPublicKeyCallback(victim, keyM.PublicKey(), nil, "ssh-ed25519"); err == nil {
		t.Fatal("Mallory's signed key was accepted for Victimb")
	}
	if _, err := cfg.NoClientAuthCallback(victim); err == nil {
		t.Fatal(`"none" was accepted`)
	}

	// What Mallory's own password proves cannot become Victim's session.
	p, err := cfg.PasswordCallback(mallory, []byte("mallory-password"))
	if err != nil {
		t.Fatalf("Mallory's password: %v", err)
	}
	if ok, _, err := e.ssh.Identify("Victimb", p); err == nil || ok {
		t.Fatalf("Identify(Victimb, Mallory's password) = %v, %v; want refused", ok, err)
	}
	if ok, m, err := e.ssh.Identify("Mallory", p); err != nil || !ok || m != "password" {
		t.Fatalf("Identify(Mallory, Mallory's password) = %v, %q, %v; want authenticated by password", ok, m, err)
	}
	// A new name's free pass is not an account's.
	p, err = cfg.PasswordCallback(fakeMeta{"Brandnew"}, []byte("x"))
	if err != nil {
		t.Fatalf("new name: %v", err)
	}
	if ok, _, err := e.ssh.Identify("Victimb", p); err == nil || ok {
		t.Fatalf("Identify(Victimb, a new name's pass) = %v, %v; want refused", ok, err)
	}
	if ok, m, err := e.ssh.Identify("Brandnew", p); err != nil || ok || m != "new" {
		t.Fatalf("Identify(Brandnew, new) = %v, %q, %v; want not authenticated, new", ok, m, err)
	}
	// B, signed by its holder as Victim, is Victim; removed from the
	// account before the session starts, it no longer is.
	p, err = cfg.VerifiedPublicKeyCallback(victim, keyB.PublicKey(), nil, "ssh-ed25519")
	if err != nil {
		t.Fatalf("B signed as Victimb: %v", err)
	}
	if ok, m, err := e.ssh.Identify("Victimb", p); err != nil || !ok || m != "publickey" {
		t.Fatalf("Identify(Victimb, B) = %v, %q, %v; want authenticated by publickey", ok, m, err)
	}
	if ok, _, err := e.ssh.Identify("Victimb", nil); err == nil || ok {
		t.Fatalf("Identify with no Permissions = %v, %v; want refused", ok, err)
	}
}

func TestSSH_HostKey_SameAfterRestart(t *testing.T) {
	e := start(t, nil)
	first := e.ssh.HostKey()
	if first.Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("host key type %s, want %s", first.Type(), gossh.KeyAlgoED25519)
	}
	path := filepath.Join(e.cfg.Server.DataDir, sshd.DefaultConfig().HostKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v, want 0600", fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "-----BEGIN OPENSSH PRIVATE KEY-----") {
		t.Fatalf("host key file is not in OpenSSH format:\n%.60s", raw)
	}
	e.mustDial("Restarta", gossh.Password("x")).Close()

	for i := 0; i < 2; i++ {
		ctx, cancel := contextWithTimeout(5 * time.Second)
		if err := e.ssh.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		cancel()
		e.serve(sshd.DefaultConfig())
		if got, want := gossh.FingerprintSHA256(e.ssh.HostKey()), gossh.FingerprintSHA256(first); got != want {
			t.Fatalf("restart %d: host key %s, want %s", i+1, got, want)
		}
		// The client pins the first key.
		cc := &gossh.ClientConfig{User: "Restarta", Auth: []gossh.AuthMethod{gossh.Password("x")},
			HostKeyCallback: gossh.FixedHostKey(first), Timeout: 15 * time.Second}
		c, err := gossh.Dial("tcp", e.addr, cc)
		if err != nil {
			t.Fatalf("restart %d: dial with the pinned key: %v", i+1, err)
		}
		c.Close()
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(raw) {
		t.Fatalf("the host key file changed across restarts (err %v)", err)
	}
}

func TestSSH_HostKey_UnreadableStopsStart(t *testing.T) {
	for name, content := range map[string]string{
		"garbage": "this is not a key\n",
		"empty":   "",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ssh_host_ed25519_key")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := sshd.New(nil, dir, sshd.DefaultConfig(), nil)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("New with an unreadable key: %v; want an error naming %s", err, path)
			}
			got, _ := os.ReadFile(path)
			if string(got) != content {
				t.Fatal("the unreadable key file was replaced")
			}
		})
	}
}

func TestSSH_NoPTY(t *testing.T) {
	e := start(t, nil)
	c := e.mustDial("Noptya", gossh.Password("x"))

	t.Run("exec", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		out, err := sess.CombinedOutput("look")
		var ee *gossh.ExitError
		if !errors.As(err, &ee) || ee.ExitStatus() == 0 {
			t.Fatalf("exec without a PTY: err %v, want a non-zero exit status", err)
		}
		if want := "zonemud needs an interactive terminal: connect with ssh -t Noptya@"; !strings.HasPrefix(string(out), want) || strings.Count(string(out), "\n") != 1 {
			t.Fatalf("output %q, want one line starting %q", out, want)
		}
	})
	t.Run("shell", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		tm := newTerm(t, sess)
		if err := sess.Shell(); err != nil {
			t.Fatalf("shell: %v", err)
		}
		tm.startWait()
		tm.Expect("zonemud needs an interactive terminal: connect with ssh -t")
		if got := tm.Exit(); got != 1 {
			t.Fatalf("exit status %d, want 1", got)
		}
	})
	t.Run("exec with a PTY", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		tm := newTerm(t, sess)
		if err := sess.Start("look"); err != nil {
			t.Fatalf("start: %v", err)
		}
		tm.startWait()
		tm.Expect("zonemud runs no commands")
		if got := tm.Exit(); got != 1 {
			t.Fatalf("exit status %d, want 1", got)
		}
	})
	t.Run("subsystem", func(t *testing.T) {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		if err := sess.RequestSubsystem("sftp"); err == nil {
			t.Fatal("the sftp subsystem was accepted")
		}
	})
}

func TestSSH_ForwardingDenied(t *testing.T) {
	e := start(t, nil)
	c := e.mustDial("Forwarda", gossh.Password("x"))
	if conn, err := c.Dial("tcp", e.srv.TelnetAddr()); err == nil {
		conn.Close()
		t.Fatal("local port forwarding was allowed")
	}
	if l, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
		t.Fatal("remote port forwarding was allowed")
	}
}

// A window-change before the shell request fills gliderlabs' one-slot
// channel; a server that does not drain it hangs the shell request.
func TestSSH_WindowChanges_NoHang(t *testing.T) {
	e := start(t, nil)
	c := e.mustDial("Winchera", gossh.Password("x"))
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	tm := newTerm(t, sess)
	for i := 0; i < 1000; i++ {
		h, w := 24+i%50, 80+i%100
		switch i {
		case 500:
			h, w = 0, 0
		case 999:
			h, w = 65535, 65535
		}
		if err := sess.WindowChange(h, w); err != nil {
			t.Fatalf("window change %d: %v", i, err)
		}
	}
	shell := make(chan error, 1)
	go func() { shell <- sess.Shell() }()
	select {
	case err := <-shell:
		if err != nil {
			t.Fatalf("shell: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the shell request hung after 1000 window changes")
	}
	tm.startWait()
	tm.Expect("\n") // the gate's session runs
	for _, sz := range [][2]int{{0, 0}, {65535, 65535}, {24, 80}, {0, 0}} {
		if err := sess.WindowChange(sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
	}
	tm.answerNameQuestion()
	tm.Expect("password")
	tm.Send("winchera-password")
	tm.Expect("again")
	tm.Send("winchera-password")
	tm.Expect("Exits:")
	for i := 0; i < 1000; i++ {
		if err := sess.WindowChange(24+i%3, 65535-i); err != nil {
			t.Fatal(err)
		}
	}
	tm.Do("look", "Exits:")
}

// One client opening 100 session channels gets MaxChannels of them and
// refusals for the rest; another client's session keeps answering.
func TestSSH_ManyChannels(t *testing.T) {
	e := start(t, nil)
	other := e.createOverSSH("Bystander", "bystander-password")

	c := e.mustDial("Chanhog", gossh.Password("x"))
	var wg sync.WaitGroup
	var accepted, refused, otherErr int
	var open []*gossh.Session
	defer func() {
		for _, s := range open {
			s.Close()
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			sess, err := c.NewSession()
			var oce *gossh.OpenChannelError
			switch {
			case err == nil:
				accepted++
				open = append(open, sess)
			case errors.As(err, &oce) && oce.Reason == gossh.ResourceShortage:
				refused++
			default:
				otherErr++
				t.Logf("channel %d: %v", i, err)
			}
		}
	}()
	for i := 0; i < 5; i++ {
		other.Do("look", "Exits:")
	}
	wg.Wait()
	if max := sshd.DefaultConfig().MaxChannels; accepted != max || refused != 100-max || otherErr != 0 {
		t.Fatalf("accepted %d, refused %d, other errors %d; want %d, %d, 0", accepted, refused, otherErr, max, 100-max)
	}
	other.Do("look", "Exits:")

	// Closing a channel frees its place.
	c2 := e.mustDial("Chanhogb", gossh.Password("x"))
	s1, err := c2.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.NewSession(); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.NewSession(); err == nil {
		t.Fatal("a third session channel was accepted")
	}
	s1.Close()
	var s3 *gossh.Session
	for deadline := time.Now().Add(30 * time.Second); ; {
		if s3, err = c2.NewSession(); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("no session channel after closing one: %v", err)
	}
	tm := openTermOn(t, s3)
	tm.answerNameQuestion()
	tm.Expect("password")
}

// openTermOn requests a PTY and a shell on a session already open.
func openTermOn(t *testing.T, sess *gossh.Session) *term {
	t.Helper()
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatalf("pty: %v", err)
	}
	tm := newTerm(t, sess)
	if err := sess.Shell(); err != nil {
		t.Fatalf("shell: %v", err)
	}
	tm.startWait()
	return tm
}

func TestSSH_TakeoverFromTelnet(t *testing.T) {
	e := start(t, nil)
	tel := servertest.Dial(t, e.srv.TelnetAddr())
	tel.Create("Sshtake", "sshtake-password")

	c := e.mustDial("Sshtake", gossh.Password("sshtake-password"))
	tm := openTerm(t, c, "xterm-256color", 80, 24)
	tm.Expect("You take over your character")
	tm.Expect("Exits:")
	tel.Expect("Sshtake has just logged in from another connection")
	if !tel.WaitClosed(15 * time.Second) {
		t.Fatal("the telnet connection was not closed")
	}
	tm.Do("score", "Sshtake")
}

// A connection that never authenticates, or stays without a game session,
// is closed after the handshake timeout.
func TestSSH_IdleConnectionClosed(t *testing.T) {
	cfg := sshd.DefaultConfig()
	cfg.HandshakeTimeoutSecs = 2
	e := start(t, &cfg)

	raw, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 256)
	for {
		if _, err := raw.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("a connection that never authenticated stayed open")
			}
			break
		}
	}

	c := e.mustDial("Idlera", gossh.Password("x"))
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("an authenticated connection without a session stayed open")
	}
}

func TestSSH_ShutdownClosesConnections(t *testing.T) {
	e := start(t, nil)
	tm := e.createOverSSH("Shutdowna", "shutdowna-password")
	ctx, cancel := contextWithTimeout(5 * time.Second)
	defer cancel()
	if err := e.ssh.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := tm.wait("never printed", 5*time.Second); err == nil || !strings.Contains(err.Error(), "session closed") {
		t.Fatalf("the session's connection was not closed: %v", err)
	}
	if c, err := net.DialTimeout("tcp", e.addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after shutdown")
	}
}

// A client that stops reading fills its channel window; the gate's writer
// then blocks in Write, where closing the channel cannot reach it. The
// front cuts the connection after the write stall.
func TestSSH_StalledClientCut(t *testing.T) {
	e := &env{t: t, cfg: servertest.Config(t), logs: &logBuf{}}
	e.srv = servertest.Start(t, e.cfg)
	e.serve(sshd.DefaultConfig(), func(s *sshd.Server) { s.SetWriteStall(time.Second) })

	c := e.mustDial("Stalla", gossh.Password("x"))
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = c.Wait(); close(ended) }()
	if _, err := in.Write([]byte("y\rstalla-password\rstalla-password\r")); err != nil {
		t.Fatal(err)
	}
	// Read until the character is in the world, then never again.
	var seen strings.Builder
	for buf := make([]byte, 4096); !strings.Contains(seen.String(), "Exits:"); {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("reading the login: %v; got %q", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	go func() {
		// Each line comes back twice, echoed and said: 2 KB of output. The
		// pause keeps under the gate's input flood limits.
		line := []byte("say " + strings.Repeat("blah ", 200) + "\r")
		for i := 0; i < 5000; i++ {
			select {
			case <-ended:
				return
			case <-time.After(time.Millisecond):
			}
			if _, err := in.Write(line); err != nil {
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(60 * time.Second):
		t.Fatal("a client that stopped reading kept its connection")
	}
	if got := e.logs.lines("client stopped reading", "127.0.0.1"); len(got) == 0 {
		t.Fatalf("no log of the stalled client; log:\n%s", e.logs.String())
	}
}

// The line editor keeps a whole line in memory: a line without an end is
// cut at the front, whole characters at a time, and the session goes on.
func TestSSH_EndlessLineCapped(t *testing.T) {
	e := start(t, nil)
	tm := e.createOverSSH("Longline", "longline-password")
	for _, ch := range []string{"x", "é"} {
		// An odd byte first, so a cut by bytes would split a character.
		if _, err := tm.in.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		chunk := []byte(strings.Repeat(ch, 32<<10))
		for i := 0; i < 32; i++ { // 1 MiB or more without a line end
			if _, err := tm.in.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		// The line end is acted on at once: no cut character keeps the
		// line editor waiting for more input.
		tm.Do("", "too long")
		// The editor echoes what it gets, and redraws the line when other
		// output arrives meanwhile; 1 MiB would show, 8 KiB and a few
		// redraws do not. channel_test.go checks the exact cut.
		if n, max := strings.Count(tm.Output(), ch), 128<<10; n > max {
			t.Fatalf("%d characters %q of the endless line reached the line editor (echoed), want far fewer", n, ch)
		}
	}
	tm.Do("look", "Exits:")
}

// A client that opens a session as soon as its last one has ended is never
// refused for the one the server is still tearing down: the count of a
// connection's sessions drops before the server's end of a session is sent.
func TestSSH_SessionAfterSessionIsNotRefused(t *testing.T) {
	e := start(t, nil)
	c := e.mustDial("Oneafter", gossh.Password("x"))
	for i := range 50 {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		out, err := sess.CombinedOutput("look")
		var ee *gossh.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(out), "interactive terminal") {
			t.Fatalf("session %d: err %v, output %q", i, err, out)
		}
	}
}
