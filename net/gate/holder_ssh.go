package gate

import (
	"cmp"
	"sync"
	"time"

	"zonemud/internal/run"
	"zonemud/net/boundary"
)

// The holder's SSH front (net/sshd over a Holder): the holder owns the host
// key and the listener and does the SSH crypto, so a session survives the
// game's restart; what only the game knows (accounts and their passwords
// and keys, the address shut-outs, the login limits) it asks the linked
// game over the link (AuthAsk, AuthAnswer), and it starts the session in
// the game that answered (Login, with that game's grant). Address bans it
// applies itself, before the handshake, from the list the game sends it
// (holder_bans.go).
//
// Trust: the game believes the holder. The holder is the process that
// started it, the same executable, and the link is a unix socket in
// data_dir of mode 0600 whose path the game got from its parent; a process
// that could speak on it could read the database too. What the holder
// says it checks itself, the SSH crypto, is x/crypto's. Beyond that the
// protocol keeps each step to the game that took it: a Login is refused
// unless it brings a grant of this very game for that name, so a client
// one game let in is never started by another; and a session is attached
// to a later game as logged in only after a game put it in its character
// and said so (State).
//
// A swap during a login does not refuse the client: the login waits for
// the next game (GameWait at most) and asks it again. For that the holder
// keeps what the client authenticated with (the password typed, or the
// public key it proved it holds; a new name needs nothing) from the
// authentication until a game has put the session in its character: the
// SSH front keeps a password from its authentication to the shell, and
// the held session from then on (heldSSH). It is in memory only, never
// written anywhere, never sent but to the linked game in an AuthAsk, and
// dropped (the reference: Go cannot wipe a string) once the session is
// in its character, the login fails, or the connection closes. So the new
// game checks the credential itself and gives its own grant, and no
// session is ever started in a game that did not check its client. An
// SSH session already at a new name's creation questions at a swap is
// closed with a line, rather than asked its name by the next game.

// GameWait bounds how long an SSH login waits for a game that takes it:
// from a swap's Swap to the next game's link, or for a game started again
// after a crash. It is the bound the holder process gives a new game to
// link, so a reboot that ends at all ends within it.
const GameWait = 2 * time.Minute

// authAnswerWait bounds the game's answer: a password costs a hash, and
// hashes wait for one another.
const authAnswerWait = 30 * time.Second

// Lines for an SSH client the holder cannot let in now.
const (
	noGameLine    = "The world is restarting; please try again in a moment."
	oldGameLine   = "The game running now cannot check SSH logins behind this holder; please try again after its next reboot."
	slowGameLine  = "The world did not answer in time; please try again in a moment."
	sshLoginSwap  = "The world restarted while you logged in; please connect again."
	maxAuthSecret = 16 << 10 // boundary's bound on an AuthAsk's secret
)

// maxGiven bounds the grants a link remembers it was given; past it the
// oldest is forgotten (its login asks the game again).
const maxGiven = 4096

var sshLoginLabels = run.NewLabels("holder", "ssh-login")

// SetGameWait changes how long an SSH login waits for a game (GameWait
// unless set): for a test of a holder no game ever links to.
func (h *Holder) SetGameWait(d time.Duration) { h.gameWait.Store(int64(d)) }

func (h *Holder) gameDeadline() time.Time {
	return time.Now().Add(cmp.Or(time.Duration(h.gameWait.Load()), GameWait))
}

// SSHWaiting is the number of SSH authentications and logins waiting for
// a game that takes them.
func (h *Holder) SSHWaiting() int { return int(h.sshWaiting.Load()) }

// CredentialsKept is the number of SSH sessions whose credential the
// holder keeps now: those whose login has not yet ended in a character.
func (h *Holder) CredentialsKept() int {
	return h.count(func(hd *held, _ *holderLink) bool { return hd.ssh != nil && hd.ssh.cred != nil })
}

// game returns the linked game, with the channel closed when it goes, if
// it takes logins (it is not letting go for a swap); else it waits for
// one until deadline, the holder's shutdown or quit. nil if none came.
// hold, if not nil, is called as the wait begins, and what it returns as
// the wait ends.
func (h *Holder) game(deadline time.Time, quit <-chan struct{}, hold func() func()) (*holderLink, <-chan struct{}) {
	var resume func()
	defer func() {
		if resume != nil {
			h.sshWaiting.Add(-1)
			resume()
		}
	}()
	for {
		h.mu.Lock()
		lk, linked, unlinked := h.link, h.linked, h.unlinked
		h.mu.Unlock()
		if h.stopping.Load() {
			return nil, nil
		}
		wake := linked
		if lk != nil {
			if !lk.lettingGo() {
				return lk, unlinked
			}
			wake = unlinked
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		if resume == nil {
			h.sshWaiting.Add(1)
			resume = func() {}
			if hold != nil {
				resume = hold()
			}
		}
		t := time.NewTimer(left)
		select {
		case <-wake:
		case <-t.C:
		case <-quit:
		case <-h.stop:
		}
		t.Stop()
		select {
		case <-quit:
			return nil, nil
		default:
		}
	}
}

// lettingGo reports whether the holder has asked the game to Swap.
func (lk *holderLink) lettingGo() bool {
	lk.wmu.Lock()
	defer lk.wmu.Unlock()
	return lk.swapping
}

// ask puts a to the game lk and waits for its answer: nil if it did not
// come in time; ok is false if lk went, or began letting go, before it
// answered (the caller waits for the next game and asks it).
func (h *Holder) ask(lk *holderLink, gone <-chan struct{}, a boundary.AuthAsk) (ans *boundary.AuthAnswer, ok bool) {
	a.Ask = h.nextAsk.Add(1)
	ch := make(chan *boundary.AuthAnswer, 1)
	lk.amu.Lock()
	if lk.asks == nil {
		lk.asks = map[uint64]chan *boundary.AuthAnswer{}
	}
	lk.asks[a.Ask] = ch
	lk.amu.Unlock()
	defer func() {
		lk.amu.Lock()
		delete(lk.asks, a.Ask)
		lk.amu.Unlock()
	}()
	// As input: refused once a Swap was sent, as the game reads no more.
	if !lk.send(true, &a) {
		return nil, false
	}
	t := time.NewTimer(authAnswerWait)
	defer t.Stop()
	select {
	case ans := <-ch:
		if ans.Verdict != boundary.Denied {
			lk.gave(ans.Grant)
		}
		return ans, true
	case <-gone:
		return nil, false
	case <-h.stop:
		return nil, false
	case <-t.C:
		return nil, true
	}
}

// next waits for a game that went, or lets go, to be gone before a login
// asks the next one; false if the deadline, the holder's shutdown or quit
// came first. hold is as for game.
func (h *Holder) next(gone <-chan struct{}, deadline time.Time, quit <-chan struct{}, hold func() func()) bool {
	if hold != nil {
		defer hold()()
	}
	t := time.NewTimer(max(time.Until(deadline), 0))
	defer t.Stop()
	select {
	case <-gone:
		return true
	case <-t.C:
	case <-quit:
	case <-h.stop:
	}
	return false
}

// CheckSSH asks a game what a credential proves: the linked one, or the
// next if none takes logins now (a swap) or the one asked goes before it
// answers.
func (h *Holder) CheckSSH(c SSHCheck) (SSHAnswer, error) {
	a := boundary.AuthAsk{User: c.User, Method: boundary.AuthPassword, Secret: []byte(c.Password)}
	if c.Remote != nil {
		a.Remote = c.Remote.String()
	}
	switch {
	case c.Exists:
		a.Method, a.Secret = boundary.AuthExists, nil
	case c.Key != nil:
		a.Method, a.Secret = boundary.AuthKey, c.Key
	}
	if len(a.Secret) > maxAuthSecret || len(a.User) > 1024 {
		return SSHAnswer{}, nil // no password or key is that long
	}
	deadline := h.gameDeadline()
	for {
		lk, gone := h.game(deadline, nil, c.Hold)
		if lk == nil {
			return SSHAnswer{Why: noGameLine}, nil
		}
		if lk.version < boundary.SSHVersion {
			return SSHAnswer{Why: oldGameLine}, nil
		}
		ans, ok := h.ask(lk, gone, a)
		if !ok {
			if !h.next(gone, deadline, nil, c.Hold) {
				return SSHAnswer{Why: noGameLine}, nil
			}
			continue
		}
		if ans == nil {
			return SSHAnswer{Why: slowGameLine}, nil
		}
		switch ans.Verdict {
		case boundary.Opens:
			return SSHAnswer{Opens: true, Account: ans.Account, Grant: ans.Grant, Keep: a.Method == boundary.AuthPassword}, nil
		case boundary.NoAccount:
			return SSHAnswer{New: true, Grant: ans.Grant}, nil
		}
		return SSHAnswer{Why: ans.Why}, nil
	}
}

// answered hands an AuthAnswer to the ask that waits for it.
func (lk *holderLink) answered(a *boundary.AuthAnswer) {
	lk.amu.Lock()
	ch := lk.asks[a.Ask]
	lk.amu.Unlock()
	if ch != nil {
		select {
		case ch <- a:
		default: // answered twice: the first counts
		}
	}
}

// holderAsks is what a holderLink keeps of its AuthAsks.
type holderAsks struct {
	amu   sync.Mutex
	asks  map[uint64]chan *boundary.AuthAnswer // guarded by amu: by Ask
	given map[uint64]bool                      // guarded by amu: the grants this game gave, not yet used
	order []uint64                             // guarded by amu: given's, oldest first
}

// gave records a grant the game gave.
func (lk *holderLink) gave(grant uint64) {
	lk.amu.Lock()
	defer lk.amu.Unlock()
	if lk.given == nil {
		lk.given = map[uint64]bool{}
	}
	for len(lk.order) >= maxGiven {
		delete(lk.given, lk.order[0])
		lk.order = lk.order[1:]
	}
	lk.given[grant] = true
	lk.order = append(lk.order, grant)
}

// took reports whether grant is one this game gave, and forgets it.
func (lk *holderLink) took(grant uint64) bool {
	lk.amu.Lock()
	defer lk.amu.Unlock()
	if !lk.given[grant] {
		return false
	}
	delete(lk.given, grant)
	if i := indexOf(lk.order, grant); i >= 0 {
		lk.order = append(lk.order[:i], lk.order[i+1:]...)
	}
	return true
}

// heldSSH is an SSH session's login, for as long as it lasts.
type heldSSH struct {
	quit chan struct{} // immutable: closed when the connection is over
	user string        // immutable: the SSH user name

	// Guarded by the held's mu:
	cred    *boundary.AuthAsk // what the client authenticated with, to ask the next game; nil once it is no longer needed
	grant   uint64            // the grant it came in with, until a Login has used it
	opens   bool              // it logs into an account; else it asks a new name's creation questions
	logging bool              // a login goroutine runs for it
}

// inCharacter is told that a game put the session in its character: the
// credential is no longer needed.
func (p *heldSSH) inCharacter() {
	if p != nil {
		p.cred = nil
	}
}

// ServeSSH keeps an SSH session the front let in on a game's answer and
// starts it in a game that checked its client; it returns when the session
// is over.
func (h *Holder) ServeSSH(l SSHLogin) {
	key, why := h.admitAddr(l.Remote)
	if why != "" {
		_, _ = l.Channel.Write([]byte(why + "\r\n"))
		_ = l.Channel.Close()
		return
	}
	sc := newSSHConn(&h.gr, l, h.cfg.MaxLine)
	p := &heldSSH{quit: make(chan struct{}), user: l.User, grant: l.Grant, opens: l.Authenticated, logging: true}
	switch {
	case !l.Authenticated:
		p.cred = &boundary.AuthAsk{Method: boundary.AuthExists}
	case l.Key != nil:
		p.cred = &boundary.AuthAsk{Method: boundary.AuthKey, Secret: l.Key}
	case l.Password != "":
		p.cred = &boundary.AuthAsk{Method: boundary.AuthPassword, Secret: []byte(l.Password)}
	}
	if p.cred != nil {
		p.cred.User, p.cred.Remote = l.User, sc.remote()
	}
	l.Password = "" // p has it, for as long as the login lasts
	hd := &held{h: h, id: h.nextID.Add(1), front: frontSSH, key: key, c: sc, ssh: p}
	resized := func() { hd.forward(&boundary.ClientChanged{Session: hd.id, Client: hd.client()}) }
	sc.resized.Store(&resized)
	h.mu.Lock()
	if h.stopping.Load() {
		h.mu.Unlock()
		_, _ = l.Channel.Write([]byte(noGameLine + "\r\n"))
		_ = sc.close()
		h.release(key)
		return
	}
	h.held[hd.id] = hd
	h.mu.Unlock()
	if !h.gr.GoWith(sshLoginLabels, func() { h.login(hd) }) {
		hd.mu.Lock()
		hd.loginFailed(noGameLine)
		hd.mu.Unlock()
	}
	hd.read()
	close(p.quit)
	hd.mu.Lock()
	p.cred = nil
	hd.mu.Unlock()
}

// login starts hd's session in a game that checked its client: the game
// whose grant it came with, if that one is linked, else the linked one,
// asked again with the credential; it waits for a game that takes logins
// up to GameWait. It runs on its own goroutine while hd.ssh.logging.
func (h *Holder) login(hd *held) {
	p := hd.ssh
	fail := func(line string) {
		hd.mu.Lock()
		hd.loginFailed(line)
		hd.mu.Unlock()
	}
	deadline := h.gameDeadline()
	for {
		lk, gone := h.game(deadline, p.quit, nil)
		if lk == nil {
			fail(noGameLine)
			return
		}
		if lk.version < boundary.SSHVersion {
			fail(oldGameLine)
			return
		}
		hd.mu.Lock()
		grant, cred := p.grant, p.cred
		hd.mu.Unlock()
		if !lk.took(grant) {
			if cred == nil {
				fail(sshLoginSwap)
				return
			}
			ans, ok := h.ask(lk, gone, *cred)
			switch {
			case !ok:
				if !h.next(gone, deadline, p.quit, nil) {
					fail(noGameLine)
					return
				}
				continue
			case ans == nil:
				fail(slowGameLine)
				return
			case ans.Verdict == boundary.Denied:
				fail(cmp.Or(ans.Why, sshLoginSwap))
				return
			case (ans.Verdict == boundary.Opens) != p.opens:
				fail(sshLoginSwap) // the account was made, or deleted, meanwhile
				return
			}
			grant = ans.Grant
		}
		hd.mu.Lock()
		if hd.gone {
			p.logging = false
			hd.mu.Unlock()
			return
		}
		fs := append([]boundary.Frame{&boundary.Login{Session: hd.id, Front: frontSSH, Remote: hd.c.remote(), User: p.user,
			Grant: grant, Client: hd.client()}}, hd.pending...)
		if !lk.send(true, fs...) {
			hd.mu.Unlock()
			if !h.next(gone, deadline, p.quit, nil) {
				fail(noGameLine)
				return
			}
			continue
		}
		hd.credLink, hd.sent, hd.taken = lk, uint64(len(hd.pending)), 0
		hd.pending, hd.dropped = nil, false
		hd.link, hd.served = lk, true
		p.grant, p.logging = 0, false
		if !p.opens {
			p.cred = nil // at the creation questions from now on
		}
		hd.wake()
		hd.mu.Unlock()
		return
	}
}

// loginFailed closes an SSH session whose login no game took, with line.
// Called with hd.mu held.
func (hd *held) loginFailed(line string) {
	hd.ssh.logging = false
	hd.ssh.cred = nil
	hd.gone = true
	hd.post([]boundary.Op{{Kind: boundary.OpText, Data: []byte(line + "\n")}}, true)
}

// loginAgain is an attach to a new game of an SSH session a game did not
// put in its character: if the holder still has its credential, the
// session is started in the new game once that game has checked it
// (login); else (a new name at its creation questions) it is closed with
// a line. Called with hd.mu held.
func (hd *held) loginAgain() {
	p := hd.ssh
	switch {
	case p == nil || p.cred == nil:
		hd.refuseLogin()
	case p.logging:
		// A login under way finds this game itself.
	default:
		p.logging = true
		if !hd.h.gr.GoWith(sshLoginLabels, func() { hd.h.login(hd) }) {
			hd.loginFailed(noGameLine)
		}
	}
}

// refuseLogin closes an SSH session that was at a new name's creation
// questions when its game went: the next game would ask them again, and
// the holder keeps none of the answers. Called with hd.mu held.
func (hd *held) refuseLogin() {
	if hd.ssh != nil {
		hd.ssh.cred = nil
	}
	hd.gone = true
	hd.post([]boundary.Op{{Kind: boundary.OpText, Data: []byte("\n" + sshLoginSwap + "\n")}}, true)
}

// secretInput turns an SSH session's password reading on or off (the
// game's echo off and on); other connections hide input themselves.
func secretInput(c conn, on bool) bool {
	sc, ok := c.(*sshConn)
	if ok {
		sc.in.secret.Store(on)
	}
	return ok
}
