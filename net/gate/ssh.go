package gate

import (
	"errors"
	"io"
	"net"

	"zonemud/world"
)

// SSHLogin is one SSH session as the SSH front hands it to the gate: the
// channel to talk on, who the client says it is, and whether it proved it.
type SSHLogin struct {
	// User is the SSH user name: the character name.
	User string
	// Authenticated is true when the client proved it owns the existing
	// account User (by its password, or by a key registered to it, checked
	// against the key the client actually signed with). False means User
	// names no account yet, and the session asks the creation questions.
	Authenticated bool
	// Channel carries the terminal. Close ends the session.
	Channel io.ReadWriteCloser
	// Remote is the client's address.
	Remote net.Addr
	// Term, Width and Height come from the PTY request.
	Term          string
	Width, Height int
	// Resize delivers window changes; the front drains its own source
	// continuously, so this channel may drop stale sizes but never blocks
	// the front. Closed when the session ends.
	Resize <-chan [2]int
}

// ServeSSH runs one SSH session to its end: the same login rules, sessions,
// link-dead and takeover as telnet. It blocks until the session is over. A
// connection over the gate's limits is refused with a line.
func (g *Gate) ServeSSH(l SSHLogin) {
	if why := g.admit(l.Remote); why != "" {
		_, _ = l.Channel.Write([]byte(why + "\r\n"))
		_ = l.Channel.Close()
		return
	}
	g.gr.Run(func() {
		g.run(l.Remote, frontSSH, func(s *Session) conn { return newSSHConn(&g.gr, l, g.cfg.MaxLine) }, &preAuth{name: l.User, authenticated: l.Authenticated}, false)
	}, "session", "reader")
}

// AccountExists reports whether a character name has an account. It is
// for the SSH front, to decide between password checks and creation.
func (g *Gate) AccountExists(name string) (bool, error) {
	n, why := cleanName(name, nil)
	if why != "" {
		return false, nil
	}
	_, err := g.w.Account(n)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, world.ErrNoAccount):
		return false, nil
	}
	return false, err
}

// CheckPassword reports whether password opens the account name, under
// the login limits telnet has (checkLogin): a try from a shut-out address,
// or at an account over its tries, is refused before any hash; a check
// costs a password hash (bounded by hash_concurrency).
func (g *Gate) CheckPassword(name, password string, remote net.Addr) bool {
	n, why := cleanName(name, nil)
	if why != "" {
		return false
	}
	a, err := g.w.Account(n)
	if err != nil {
		return false
	}
	v, _ := g.checkLogin(a, password, remote, frontSSH)
	return v == passwordRight
}

// AccountKeys returns the SSH public keys (authorized_keys lines) the
// account has registered in game.
func (g *Gate) AccountKeys(name string) ([]string, error) {
	n, why := cleanName(name, nil)
	if why != "" {
		return nil, nil
	}
	a, err := g.w.Account(n)
	if err != nil {
		if errors.Is(err, world.ErrNoAccount) {
			return nil, nil
		}
		return nil, err
	}
	return a.Keys, nil
}
