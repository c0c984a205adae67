package gate

import (
	"sync"
	"time"

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
// one game let in is never started by another (a reboot between the
// password and the shell has the client connect again); and a session is
// attached to a later game as logged in only after a game put it in its
// character and said so (State). An SSH session still at the creation
// questions at a swap is closed with a line, rather than asked its name
// by the next game.

// authLinkWait is how long an SSH authentication waits for a game to link
// (a swap takes seconds) before the client is refused.
const authLinkWait = 5 * time.Second

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

// waitLink returns the linked game, waiting up to d for one, with the
// channel closed when it goes; nil if none links in time.
func (h *Holder) waitLink(d time.Duration) (*holderLink, <-chan struct{}) {
	deadline := time.Now().Add(d)
	for {
		h.mu.Lock()
		lk, gone, linked := h.link, h.unlinked, h.linked
		h.mu.Unlock()
		if lk != nil || h.stopping.Load() {
			return lk, gone
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		select {
		case <-linked:
		case <-time.After(left):
		}
	}
}

// CheckSSH asks the linked game what a credential proves.
func (h *Holder) CheckSSH(c SSHCheck) (SSHAnswer, error) {
	lk, gone := h.waitLink(authLinkWait)
	if lk == nil {
		return SSHAnswer{Why: noGameLine}, nil
	}
	if lk.version < boundary.SSHVersion {
		return SSHAnswer{Why: oldGameLine}, nil
	}
	a := &boundary.AuthAsk{Ask: h.nextAsk.Add(1), User: c.User, Method: boundary.AuthPassword, Secret: []byte(c.Password)}
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
	if !lk.send(false, a) {
		return SSHAnswer{Why: noGameLine}, nil
	}
	t := time.NewTimer(authAnswerWait)
	defer t.Stop()
	select {
	case ans := <-ch:
		switch ans.Verdict {
		case boundary.Opens:
			return SSHAnswer{Opens: true, Account: ans.Account, Grant: ans.Grant}, nil
		case boundary.NoAccount:
			return SSHAnswer{New: true, Grant: ans.Grant}, nil
		}
		return SSHAnswer{Why: ans.Why}, nil
	case <-gone:
		return SSHAnswer{Why: noGameLine}, nil
	case <-t.C:
		return SSHAnswer{Why: slowGameLine}, nil
	}
}

// answered hands an AuthAnswer to the CheckSSH that waits for it.
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
	amu  sync.Mutex
	asks map[uint64]chan *boundary.AuthAnswer // guarded by amu: by Ask
}

// ServeSSH keeps an SSH session the front let in on the linked game's
// answer and starts it in that game; it returns when the session is over.
func (h *Holder) ServeSSH(l SSHLogin) {
	key, why := h.admitAddr(l.Remote)
	if why != "" {
		_, _ = l.Channel.Write([]byte(why + "\r\n"))
		_ = l.Channel.Close()
		return
	}
	sc := newSSHConn(&h.gr, l, h.cfg.MaxLine)
	hd := &held{h: h, id: h.nextID.Add(1), front: frontSSH, key: key, c: sc}
	resized := func() { hd.forward(&boundary.ClientChanged{Session: hd.id, Client: hd.client()}) }
	sc.resized.Store(&resized)
	h.mu.Lock()
	lk := h.link
	if h.stopping.Load() || lk == nil || lk.version < boundary.SSHVersion {
		h.mu.Unlock()
		_, _ = l.Channel.Write([]byte(noGameLine + "\r\n"))
		_ = sc.close()
		h.release(key)
		return
	}
	h.held[hd.id] = hd
	h.mu.Unlock()
	hd.mu.Lock()
	if lk.send(false, &boundary.Login{Session: hd.id, Front: frontSSH, Remote: sc.remote(), User: l.User, Grant: l.Grant, Client: hd.client()}) {
		hd.link = lk
	} else {
		hd.gone = true
		hd.post([]boundary.Op{{Kind: boundary.OpText, Data: []byte(noGameLine + "\n")}}, true)
	}
	hd.mu.Unlock()
	hd.read()
}

// refuseLogin closes an SSH session that was not yet in its character
// when its game went: a later game has not checked its client. Called
// with hd.mu held.
func (hd *held) refuseLogin() {
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
