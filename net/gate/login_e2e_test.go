package gate_test

import (
	"crypto/tls"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// 300 wrong guesses at one account at once, a hundred connections from
// each of three addresses, with the per-address limits out of the way: the
// account's cap holds them to its configured tries (and the first try of
// each address, which had not failed yet), however many connections they
// use, while the owner, from an address of their own, logs in at the
// first try and is told how many tries failed. Everything is counted,
// nothing timed.
func TestLogins_ParallelGuessesAreCappedPerAccount(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.LimitLoopback = true
	const tries = 10
	cfg.Gate.AccountTries = tries
	cfg.Gate.MaxLoginFailures = 1000
	cfg.Gate.MaxConnsPerIP = 1000
	const attackers = 3
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()
	owner := servertest.Wrap(t, dialFrom(t, "127.0.0.3", addr))
	owner.Create("Victim", "victim-pass")
	owner.Quit()
	before := srv.Gate().LoginStats()

	const guesses = 300
	var wrong, refused atomic.Int64
	var mu sync.Mutex
	var problems []string
	var wg sync.WaitGroup
	for i := 0; i < guesses; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := servertest.Wrap(t, dialFrom(t, fmt.Sprintf("127.0.1.%d", 1+i%attackers), addr))
			defer c.Close()
			if _, ok := c.Try("name", 30*time.Second); ok {
				c.Send("Victim")
				if _, ok := c.Try("password", 30*time.Second); ok {
					c.Send(fmt.Sprintf("guess-%d", i))
					if _, ok := c.Try("Wrong password", 30*time.Second); ok {
						wrong.Add(1)
						return
					}
					if strings.Contains(c.Since(), "Too many failed logins for Victim") {
						refused.Add(1)
						return
					}
				}
			}
			got := c.Since()
			mu.Lock()
			problems = append(problems, fmt.Sprintf("guess %d: neither checked nor refused: %q", i, got))
			mu.Unlock()
		}()
	}

	// The owner logs in while the attack goes on, once it has made a
	// hundred tries.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st := srv.Gate().LoginStats()
		if st.PasswordChecks-before.PasswordChecks+st.RefusedAccount-before.RefusedAccount >= 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attack made fewer than 100 tries: %+v", st)
		}
	}
	back := servertest.Wrap(t, dialFrom(t, "127.0.0.3", addr))
	back.Expect("name")
	back.Send("Victim")
	back.Expect("password")
	checks := srv.Gate().LoginStats().PasswordChecks
	back.Send("victim-pass")
	told := back.ExpectWithin("Exits:", 30*time.Second)
	if !strings.Contains(told, "tries to log in as you failed since your last login") {
		t.Errorf("the owner was not told of the failed tries: %q", told)
	}
	if got := srv.Gate().LoginStats().PasswordChecks; got < checks+1 {
		t.Errorf("the owner's password was not checked (checks %d then %d): refused instead", checks, got)
	}

	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	after := srv.Gate().LoginStats()
	attackChecks := after.PasswordChecks - before.PasswordChecks - 1 // the owner's
	if limit := uint64(tries + attackers); attackChecks > limit || wrong.Load() > int64(limit) {
		t.Fatalf("%d wrong guesses were checked (%d hashes), want at most the account's %d tries and one per address", wrong.Load(), attackChecks, tries)
	}
	if wrong.Load()+refused.Load() != guesses || after.RefusedAccount-before.RefusedAccount != uint64(refused.Load()) {
		t.Fatalf("%d checked and %d refused of %d guesses; the gate counted %d refused", wrong.Load(), refused.Load(), guesses, after.RefusedAccount-before.RefusedAccount)
	}
}

// Wrong passwords over TLS and over plain telnet count against one
// address, and an address shut out over one is shut out over the other.
func TestLogins_ShutOutOverTLSAndTelnetAlike(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.TLSAddr = "127.0.0.1:0"
	cfg.Gate.LimitLoopback = true
	cfg.Gate.MaxLoginFailures = 4
	srv := servertest.Start(t, cfg)
	owner := servertest.Wrap(t, dialFrom(t, "127.0.0.3", srv.TelnetAddr()))
	owner.Create("Guarded", "guarded-pass")
	owner.Quit()
	tlsFrom := func(local string) *servertest.Client {
		return servertest.Wrap(t, tls.Client(dialFrom(t, local, srv.TLSAddr()), &tls.Config{InsecureSkipVerify: true}))
	}
	guess := func(c *servertest.Client, n int) {
		c.Expect("name")
		c.Send("Guarded")
		for i := 0; i < n; i++ {
			c.Expect("password")
			c.Send("wrong-pass")
			c.ExpectWithin("Wrong password", 20*time.Second)
		}
		c.Close()
	}
	guess(tlsFrom("127.0.0.30"), 2)
	guess(servertest.Wrap(t, dialFrom(t, "127.0.0.30", srv.TelnetAddr())), 2)
	servertest.Wrap(t, dialFrom(t, "127.0.0.30", srv.TelnetAddr())).Expect("Too many failed logins from your address")
	// Over TLS the refusal comes before the handshake: the connection is
	// closed, with no name prompt.
	if c := tlsFrom("127.0.0.30"); !c.WaitClosed(20*time.Second) || strings.Contains(c.Since(), "name") {
		t.Fatalf("a shut-out address got a TLS session: %q", c.Since())
	}
	tlsFrom("127.0.0.31").Login("Guarded", "guarded-pass")
}
