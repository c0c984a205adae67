package gate

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"

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
	// Grant is the number of the answer (SSHAnswer.Grant) that let the
	// client in, for a copyover holder to hand the game that gave it.
	Grant uint64
	// Password is the password the client authenticated with, when the
	// answer that let it in said to keep it (SSHAnswer.Keep); Key the
	// wire form of the key it proved it holds, for a key. A copyover
	// holder has the game running when the session starts check them
	// again if that is not the game that checked them.
	Password string
	Key      []byte
}

// SSHCheck is one credential the SSH front asks about.
type SSHCheck struct {
	User   string
	Remote net.Addr
	// Exactly one of: Exists (only whether User names an account),
	// Key (a public key in SSH wire form), or else Password.
	Exists   bool
	Key      []byte
	Password string
	// Hold, if not nil, is called when the backend starts to wait for a
	// game to ask (a copyover holder between two games), and what it
	// returns when the wait ends: the front does not count that wait
	// against its handshake timeout.
	Hold func() (done func())
}

// SSHAnswer is the gate's answer to an SSHCheck.
type SSHAnswer struct {
	Opens   bool   // the password or key opens the account Account
	New     bool   // no account has the name: the session asks the creation questions
	Account string // Opens: the account's name as it is spelled
	// Grant is non-zero on an answer a copyover game gave its holder
	// (Opens or New): the Login that starts the session brings it back.
	Grant uint64
	// Why is the line to show a client refused for its address ("" for a
	// wrong credential, or an answer that lets it in).
	Why string
	// Keep asks the front to keep the password that opened the account
	// until the session starts, and hand it over (SSHLogin.Password): a
	// copyover holder may have to have the next game check it.
	Keep bool
}

// CheckSSH decides what a credential proves, under the login limits
// telnet has: an address shut out or banned is refused before any lookup;
// a password costs a hash, bounded by hash_concurrency (CheckPassword). A
// key opens the account if it is one registered to it.
func (g *Gate) CheckSSH(c SSHCheck) (SSHAnswer, error) {
	if why := g.AddressRefused(c.Remote); why != "" {
		return SSHAnswer{Why: why}, nil
	}
	n, why := cleanName(c.User, nil)
	if why != "" {
		return SSHAnswer{}, nil
	}
	a, err := g.w.Account(n)
	switch {
	case errors.Is(err, world.ErrNoAccount):
		if c.Key != nil {
			return SSHAnswer{}, nil // no account, no keys
		}
		return SSHAnswer{New: true}, nil
	case err != nil:
		return SSHAnswer{}, err
	case c.Exists:
		return SSHAnswer{}, nil
	case c.Key != nil:
		for _, line := range a.Keys {
			pub, _, _, _, err := gossh.ParseAuthorizedKey([]byte(line))
			if err == nil && bytes.Equal(pub.Marshal(), c.Key) {
				return SSHAnswer{Opens: true, Account: a.Name}, nil
			}
		}
		return SSHAnswer{}, nil
	}
	if v, _ := g.checkLogin(a, c.Password, c.Remote, frontSSH); v == passwordRight {
		return SSHAnswer{Opens: true, Account: a.Name}, nil
	}
	return SSHAnswer{}, nil
}

// grantLife is how long a grant waits for its Login: the SSH handshake's
// timeout is far shorter.
const grantLife = 2 * time.Minute

// maxGrants bounds the grants waiting; past it the oldest goes.
const maxGrants = 4096

// grants are the answers a copyover game gave its holder's SSH front that
// let a client in, each waiting for the Login that starts its session.
type grants struct {
	mu    sync.Mutex
	by    map[uint64]grant // guarded by mu
	order []uint64         // guarded by mu: oldest first
}

type grant struct {
	user  string // lower case
	opens bool   // the account opened; false: the creation questions
	until time.Time
}

// give records an answer for user and returns its number.
func (gs *grants) give(user string, opens bool) uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if n := binary.BigEndian.Uint64(b[:]); n != 0 {
			gs.mu.Lock()
			defer gs.mu.Unlock()
			if gs.by == nil {
				gs.by = map[uint64]grant{}
			}
			for len(gs.order) >= maxGrants {
				delete(gs.by, gs.order[0])
				gs.order = gs.order[1:]
			}
			gs.by[n] = grant{user: strings.ToLower(user), opens: opens, until: time.Now().Add(grantLife)}
			gs.order = append(gs.order, n)
			return n
		}
	}
}

// take uses grant n for user, once: whether it is one given for that name
// and still good, and whether it opened the account.
func (gs *grants) take(n uint64, user string) (ok, opens bool) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	gr, found := gs.by[n]
	if !found {
		return false, false // not a grant of this game
	}
	delete(gs.by, n)
	if i := indexOf(gs.order, n); i >= 0 {
		gs.order = append(gs.order[:i], gs.order[i+1:]...)
	}
	if gr.user != strings.ToLower(user) || time.Now().After(gr.until) {
		return false, false
	}
	return true, gr.opens
}

func indexOf(l []uint64, n uint64) int {
	for i, v := range l {
		if v == n {
			return i
		}
	}
	return -1
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
