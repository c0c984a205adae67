package gate

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// The per-account cap on password tries. A delay per try slows one
// connection, but parallel connections multiply whatever one may do: 300
// of them made 1,000 guesses at one account in half a minute. So an
// account allows AccountTries password tries in each window of
// AccountWindowSecs, counted across every connection and every way in,
// before any hash is computed; past that it is locked for a window, then
// two, four and so on up to an hour (or a window, if longer), until its
// owner logs in.
//
// That count and its lock are for addresses that have failed of late
// (every try counts as a failure of its address until it succeeds). A try
// from an address that has not failed is never refused by the account's
// cap: its password is checked, so the owner, from such an address, logs
// in however many tries others made. Such tries have an allowance of
// their own, as many per window; past it each waits a little longer
// before its password is checked (a second more each, up to
// maxCleanDelay), which slows an attacker and costs the owner seconds at
// most. Each such try makes its address one that has failed, so the
// guesses an attack gets are the account's tries per window plus one per
// address it holds (an address counts until its failure decays, about ten
// minutes: halfLife), and every later try from those addresses meets the
// lock.
//
// The owner is told, when they next log in, how many tries failed. The
// counts live in memory: a restart forgets them (the per-address shut-out
// too), as it forgets open connections.

// maxLockout caps a lock's growth (or one window, if that is longer).
const maxLockout = time.Hour

// maxCleanDelay caps the wait of a try from an address that has not
// failed, past the account's allowance for such tries.
const maxCleanDelay = 10 * time.Second

// accounts counts password tries by account.
type accounts struct {
	mu sync.Mutex
	m  map[string]*accountTries // guarded by mu; by lower-case name
}

type accountTries struct {
	windowStart time.Time
	tries       int       // tries in the current window from addresses that have failed
	fresh       int       // tries in the current window from addresses that have not
	lockedUntil time.Time // no tries from addresses that have failed before this
	lockouts    int       // locks since the owner last logged in; each doubles the next
	failed      int       // failed tries, refused ones included, since the owner last logged in
	last        time.Time // last try, for pruning
}

// take decides whether a password try at the account may go ahead, and
// counts it. clean says the try comes from an address that has not failed
// of late: such a try always goes ahead, after wait once the account's
// allowance for clean tries in this window is spent. A refused try (never
// a clean one) returns how long until the account takes tries from its
// address again.
func (a *accounts) take(name string, clean bool, limit int, window time.Duration, now time.Time) (ok bool, wait time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.get(name, now)
	if t == nil {
		if clean {
			return true, maxCleanDelay // the table is full of live locks: slow, never refuse
		}
		return false, window
	}
	t.last = now
	if now.Sub(t.windowStart) >= window {
		t.windowStart, t.tries, t.fresh = now, 0, 0
	}
	switch {
	case clean:
		t.fresh++
		if over := t.fresh - limit; over > 0 {
			return true, min(time.Duration(over)*time.Second, maxCleanDelay)
		}
		return true, 0
	case now.Before(t.lockedUntil):
		t.failed++
		return false, t.lockedUntil.Sub(now)
	case t.tries >= limit:
		lock := min(window<<min(t.lockouts, 20), max(maxLockout, window))
		t.lockedUntil = now.Add(lock)
		t.lockouts++
		t.failed++
		return false, lock
	}
	t.tries++
	return true, 0
}

// failedTry records a password try that was checked and wrong.
func (a *accounts) failedTry(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.m[name]; t != nil {
		t.failed++
	}
}

// loggedIn records that the owner logged in (by password or key): the
// tries and the growth of locks start afresh; a lock in force stays, since
// it only holds back addresses that have failed. It returns how many tries
// failed since the owner last logged in.
func (a *accounts) loggedIn(name string) (failed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.m[name]
	if t == nil {
		return 0
	}
	failed = t.failed
	t.failed, t.tries, t.fresh, t.lockouts = 0, 0, 0, 0
	if !t.lockedUntil.After(time.Now()) {
		delete(a.m, name)
	}
	return failed
}

// get returns the account's entry, making it. The table stays bounded:
// when full, entries quiet for a day and not locked go; if it is still
// full (an attack on a great many accounts at once), get returns nil.
func (a *accounts) get(name string, now time.Time) *accountTries {
	if t := a.m[name]; t != nil {
		return t
	}
	if a.m == nil {
		a.m = map[string]*accountTries{}
	}
	if len(a.m) >= maxTracked {
		for k, t := range a.m {
			if now.Sub(t.last) > 24*time.Hour && !now.Before(t.lockedUntil) {
				delete(a.m, k)
			}
		}
		if len(a.m) >= maxTracked {
			return nil
		}
	}
	t := &accountTries{windowStart: now, last: now}
	a.m[name] = t
	return t
}

// The refusals a login try can meet.
const (
	whyAddressShut = "Too many failed logins from your address; please try again in a few minutes."
)

// try is one password or key try that startTry let through.
type try struct {
	g    *Gate
	ip   string        // the address's limit key ("" for an exempt address)
	name string        // the account, lower-case; "" for a key
	wait time.Duration // how long the account's cap slows this try
}

// startTry is the one decision for "may this address try to log in to
// this account now", made before any password is hashed, for telnet, TLS
// and SSH, passwords and keys alike:
//
//   - an address with max_login_failures failures of late is shut out;
//   - a password try (password true) counts against the account's tries
//     (accounts): those of addresses that have failed, which lock the
//     account against them, or those of clean addresses (real, limited
//     addresses with no failure of late), which are never refused, only
//     slowed (try.wait) past their allowance.
//
// A password try let through is counted at once as a failure of its
// address, so parallel tries from one address see each other, and taken
// back by finish if the password is right. A refused password try counts
// as a failure of its address too. why is the line for a refused client.
func (g *Gate) startTry(remote net.Addr, name string, password bool) (t *try, why string) {
	ip := g.ipKey(remote)
	if why := g.AddressRefused(remote); why != "" {
		return nil, why
	}
	if !password {
		return &try{g: g, ip: ip}, ""
	}
	lower := strings.ToLower(name)
	clean := ip != "" && g.ipFails.fail(ip) < 0.5
	window := time.Duration(g.cfg.AccountWindowSecs) * time.Second
	ok, wait := g.accounts.take(lower, clean, g.cfg.AccountTries, window, time.Now())
	if !ok {
		g.refusedTries.Add(1)
		return nil, fmt.Sprintf("Too many failed logins for %s; please try again in %s.", capitalise(lower), roundWait(wait))
	}
	return &try{g: g, ip: ip, name: lower, wait: wait}, ""
}

// finish records the outcome of a password try: failed (a wrong
// password) stays counted against its address and its account; anything
// else is taken back from the address.
func (t *try) finish(failed bool) {
	if !failed {
		t.g.ipFails.refund(t.ip)
		return
	}
	t.g.accounts.failedTry(t.name)
}

// roundWait says a wait in whole minutes, at least one.
func roundWait(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// AddressRefused is the line to refuse a connection or an SSH
// authentication from remote with, or "" if the address may try: the
// per-address shut-out every way in shares. The SSH front asks it before
// the handshake, and again for every authentication, so an address shut
// out over telnet cannot try passwords or keys over SSH either.
func (g *Gate) AddressRefused(remote net.Addr) string {
	if why := g.w.Banned(addrOf(remote), ""); why != "" {
		g.refusedBan.Add(1)
		return why
	}
	if g.ipFails.count(g.ipKey(remote)) >= float64(g.cfg.MaxLoginFailures) {
		g.refusedIP.Add(1)
		return whyAddressShut
	}
	return ""
}

// failedLoginsLine tells an owner who just logged in how many tries at
// their account failed since their last login, or "".
func (g *Gate) failedLoginsLine(name string) string {
	n := g.accounts.loggedIn(strings.ToLower(name))
	switch {
	case n == 0:
		return ""
	case n == 1:
		return "One try to log in as you failed since your last login."
	}
	return fmt.Sprintf("%d tries to log in as you failed since your last login.", n)
}

// LoginStats are the gate's login counters since start.
type LoginStats struct {
	// PasswordChecks counts passwords hashed to check them.
	PasswordChecks uint64
	// RefusedAddress counts connections and tries refused because their
	// address was shut out or over its connection cap.
	RefusedAddress uint64
	// RefusedAccount counts password tries refused, unchecked, by their
	// account's cap.
	RefusedAccount uint64
}

// LoginStats returns the login counters.
func (g *Gate) LoginStats() LoginStats {
	return LoginStats{PasswordChecks: g.checks.Load(), RefusedAddress: g.refusedIP.Load(), RefusedAccount: g.refusedTries.Load()}
}
