package sshd_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/net/sshd"
	"zonemud/server/config"
	"zonemud/server/servertest"
)

// startWith is start with the server's config changed first.
func startWith(t *testing.T, edit func(*config.Config)) *env {
	t.Helper()
	cfg := servertest.Config(t)
	edit(cfg)
	e := &env{t: t, cfg: cfg, srv: servertest.Start(t, cfg), logs: &logBuf{}}
	e.serve(sshd.DefaultConfig())
	return e
}

// dialFrom opens a TCP connection from a given loopback address (Linux
// routes all of 127.0.0.0/8 to lo), so per-address limits can be tested.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 15 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", local, err)
	}
	return c
}

// sshFrom connects over SSH from a given loopback address and
// authenticates as user.
func (e *env) sshFrom(local, user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	c := dialFrom(e.t, local, e.addr)
	cc := &gossh.ClientConfig{User: user, Auth: auth, HostKeyCallback: gossh.FixedHostKey(e.ssh.HostKey()), Timeout: 15 * time.Second}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	conn, chans, reqs, err := gossh.NewClientConn(c, e.addr, cc)
	if err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	cl := gossh.NewClient(conn, chans, reqs)
	e.t.Cleanup(func() { cl.Close() })
	return cl, nil
}

// shutOut makes telnet logins from local fail until the gate shuts the
// address out.
func (e *env) shutOut(local, name string) {
	e.t.Helper()
	c := servertest.Wrap(e.t, dialFrom(e.t, local, e.srv.TelnetAddr()))
	defer c.Close()
	c.Expect("name")
	c.Send(name)
	for i := 0; i < e.cfg.Gate.MaxLoginFailures; i++ {
		c.Expect("password")
		c.Send("not-the-password")
		c.ExpectWithin("Wrong password", 20*time.Second)
	}
	late := servertest.Wrap(e.t, dialFrom(e.t, local, e.srv.TelnetAddr()))
	late.Expect("Too many failed logins from your address")
}

// An address telnet has shut out for failed logins can try no password,
// and no key, over SSH: not on a new connection (refused before the
// handshake) and not on one it opened before (refused before the password
// is checked). The x/crypto/ssh client is a real one.
func TestSSH_ShutOutAddressCannotTryPasswords(t *testing.T) {
	e := startWith(t, func(c *config.Config) {
		c.Gate.LimitLoopback = true
		c.Gate.MaxLoginFailures = 3
		c.Gate.MaxBadPasswords = 3
	})
	owner := servertest.Wrap(t, dialFrom(t, "127.0.0.20", e.srv.TelnetAddr()))
	owner.Create("Keeper", "keeper-pass")
	owner.Quit()
	key := newKey(t)
	e.addKey("Keeper", key.PublicKey())
	checks := func() uint64 { return e.srv.Gate().LoginStats().PasswordChecks }

	e.shutOut("127.0.0.21", "Keeper")
	before := checks()
	if _, err := e.sshFrom("127.0.0.21", "Keeper", gossh.Password("keeper-pass")); err == nil {
		t.Fatal("the right password opened the account from a shut-out address")
	}
	if _, err := e.sshFrom("127.0.0.21", "Keeper", gossh.PublicKeys(key)); err == nil {
		t.Fatal("the registered key opened the account from a shut-out address")
	}
	if got := checks(); got != before {
		t.Fatalf("%d passwords checked for a shut-out address, want none", got-before)
	}

	// A connection that finished its handshake before its address was
	// shut out: the client learns the password only after the shut-out.
	var checked uint64
	late := gossh.PasswordCallback(func() (string, error) {
		e.shutOut("127.0.0.22", "Keeper")
		checked = checks()
		return "keeper-pass", nil
	})
	if _, err := e.sshFrom("127.0.0.22", "Keeper", late); err == nil {
		t.Fatal("the right password opened the account over a connection whose address was then shut out")
	}
	if got := checks(); got != checked {
		t.Fatalf("%d passwords checked after the shut-out, want none", got-checked)
	}
	lateKey := gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		e.shutOut("127.0.0.25", "Keeper")
		return []gossh.Signer{key}, nil
	})
	if _, err := e.sshFrom("127.0.0.25", "Keeper", lateKey); err == nil {
		t.Fatal("the registered key opened the account over a connection whose address was then shut out")
	}

	// Elsewhere the owner gets in, by password and by key.
	if _, err := e.sshFrom("127.0.0.23", "Keeper", gossh.Password("keeper-pass")); err != nil {
		t.Fatalf("the owner's password from another address: %v", err)
	}
	c, err := e.sshFrom("127.0.0.24", "Keeper", gossh.PublicKeys(key))
	if err != nil {
		t.Fatalf("the owner's key from another address: %v", err)
	}
	openTerm(t, c, "xterm", 80, 24).Expect("Exits:")
}

// Ten wrong passwords at one character, each from a fresh address, do not
// keep its owner out: from an address that has not failed, the right
// password logs in at once, over SSH and over telnet alike, and the owner
// is told of the tries. The addresses that failed then meet the cap: their
// next tries add up to account_tries, and past that they are refused
// unchecked.
func TestLogins_OwnerFromACleanAddressAfterWrongTriesFromFreshOnes(t *testing.T) {
	const tries = 10
	e := startWith(t, func(c *config.Config) {
		c.Gate.LimitLoopback = true
		c.Gate.AccountTries = tries
		c.Gate.MaxLoginFailures = 100
	})
	owner := servertest.Wrap(t, dialFrom(t, "127.0.0.30", e.srv.TelnetAddr()))
	owner.Create("Target", "target-pass")
	owner.Quit()
	wrong := func(from string) *servertest.Client {
		t.Helper()
		c := servertest.Wrap(t, dialFrom(t, from, e.srv.TelnetAddr()))
		c.Expect("name")
		c.Send("Target")
		c.Expect("password")
		c.Send("not-the-password")
		got := c.ExpectWithin("Wrong password", 30*time.Second)
		if strings.Contains(got, "Too many failed logins") {
			t.Fatalf("a try from %s was refused: %q", from, got)
		}
		return c
	}
	for i := 1; i <= tries; i++ {
		wrong(fmt.Sprintf("127.0.3.%d", i)).Close()
	}
	c, err := e.sshFrom("127.0.0.31", "Target", gossh.Password("target-pass"))
	if err != nil {
		t.Fatalf("after %d wrong tries from fresh addresses, the owner's password over SSH from a clean address: %v", tries, err)
	}
	openTerm(t, c, "xterm", 80, 24).Expect("10 tries to log in as you failed since your last login")
	c.Close()

	// Ten more, over SSH this time, and the owner over telnet.
	for i := 1; i <= tries; i++ {
		if _, err := e.sshFrom(fmt.Sprintf("127.0.4.%d", i), "Target", gossh.Password("not-the-password")); err == nil {
			t.Fatal("a wrong password opened the account")
		}
	}
	back := servertest.Wrap(t, dialFrom(t, "127.0.0.32", e.srv.TelnetAddr()))
	back.Expect("name")
	back.Send("Target")
	back.Expect("password")
	back.Send("target-pass")
	if got := back.ExpectWithin("Exits:", 30*time.Second); !strings.Contains(got, "tries to log in as you failed") {
		t.Errorf("the owner was not told of the failed tries: %q", got)
	}
	back.Quit()

	// The addresses that failed try again: the account's tries for them,
	// then a refusal that checks no password.
	for i := 1; i <= tries; i++ {
		wrong(fmt.Sprintf("127.0.3.%d", i)).Close()
	}
	before := e.srv.Gate().LoginStats().PasswordChecks
	late := servertest.Wrap(t, dialFrom(t, "127.0.4.1", e.srv.TelnetAddr()))
	late.Expect("name")
	late.Send("Target")
	late.Expect("password")
	late.Send("target-pass")
	late.ExpectWithin("Too many failed logins for Target", 30*time.Second)
	if got := e.srv.Gate().LoginStats().PasswordChecks; got != before {
		t.Errorf("%d passwords checked past the cap, want none", got-before)
	}
	// And still the owner, from a clean address, gets in.
	if _, err := e.sshFrom("127.0.0.33", "Target", gossh.Password("target-pass")); err != nil {
		t.Fatalf("the owner's password from a clean address while the account is locked: %v", err)
	}
}

// A user name of 5,000 bytes is refused before any lookup, and reaches
// the log cut to a few dozen bytes with its length.
func TestSSH_LongUserNameIsCutInTheLog(t *testing.T) {
	e := start(t, nil)
	long := strings.Repeat("a", 5000)
	for _, auth := range []gossh.AuthMethod{gossh.Password("whatever"), gossh.PublicKeys(newKey(t)), gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })} {
		if _, err := e.dial(long, auth); err == nil {
			t.Fatal("a 5,000-byte user name was let in")
		}
	}
	log := e.logs.String()
	if !strings.Contains(log, "...(5000 bytes)") {
		t.Fatalf("no refusal logged with the name cut:\n%s", log)
	}
	if strings.Contains(log, strings.Repeat("a", 100)) {
		t.Fatal("the log holds 100 bytes or more of the user name")
	}
}

// The login timeout holds over SSH: a new name that sits at a question
// past it is cut off; a player who has logged in is never cut by
// it, however long they then sit.
func TestSSH_LoginTimeoutCutsOnlyTheLogin(t *testing.T) {
	// The least timeout the config allows: long enough that answering a
	// question in time never depends on the machine's speed.
	const timeout = 5 * time.Second
	e := startWith(t, func(c *config.Config) { c.Gate.LoginTimeoutSecs = int(timeout / time.Second) })

	tm := openTerm(t, e.mustDial("Sitter", gossh.Password("x")), "xterm", 80, 24)
	tm.answerNameQuestion()
	tm.Expect("Choose a password")
	tm.Send("sitter-password")
	tm.Expect("again")
	tm.Send("sitter-password")
	tm.Expect("> ")
	in := time.Now()

	slow := openTerm(t, e.mustDial("Dawdler", gossh.Password("x")), "xterm", 80, 24)
	slow.answerNameQuestion()
	slow.Expect("Choose a password")
	// The channel is closed under the login (an SSH read has no
	// deadline of its own), so there is no goodbye line to wait for.
	if _, err := slow.wait("no such text", 30*time.Second); err == nil || !strings.Contains(err.Error(), "session closed") {
		t.Fatalf("a login left at its question past the timeout was not cut: %v", err)
	}

	// Two login timeouts after Sitter came in: the condition, not a wait
	// for something.
	time.Sleep(time.Until(in.Add(2*timeout + time.Second)))
	tm.Do("look", "Exits:")
	if strings.Contains(tm.Output(), "took too long") {
		t.Fatalf("a player who had logged in was told the login timed out:\n%s", tm.Output())
	}
}
