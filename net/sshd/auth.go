package sshd

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"unicode/utf8"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/logev"
	"zonemud/net/gate"
)

// What the one successful authentication proved, as kept in the
// Permissions x/crypto returns for it (ServerConn.Permissions). x/crypto
// guarantees those are the Permissions of the attempt that succeeded, so
// keys merely offered or attempts for another user name leave no trace.
const (
	extMethod = "zonemud-method" // methodPassword, methodKey or methodNew
	extUser   = "zonemud-user"   // the SSH user name of that attempt
	extKey    = "zonemud-key"    // methodKey: the wire form of the key that signed
	extGrant  = "zonemud-grant"  // the backend's number for the answer that let the client in
)

const (
	methodPassword = "password"  // the account's password
	methodKey      = "publickey" // a signature by a key registered to the account
	methodNew      = "new"       // no account has the name: creation follows
)

var (
	errDenied = errors.New("permission denied")
	errNone   = errors.New(`"none" authentication is refused`)
)

// maxUser is the longest SSH user name the front considers: a character
// name is at most 20 letters, so a longer one is refused at every method
// before any lookup, and never reaches a log whole (logUser).
const maxUser = 64

// logUser is a user name as the front logs it: cut to maxUser bytes, with
// the length it had, so a client cannot write kilobytes into the log.
func logUser(u string) string {
	if len(u) <= maxUser {
		return u
	}
	cut := maxUser
	for cut > 0 && !utf8.RuneStart(u[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", u[:cut], len(u))
}

// mayTry is the check every authentication method makes first: a user
// name that cannot be a character, or an address the gate has shut out
// (too many failed logins, over any way in), is refused before any
// lookup, hash or key check.
func (s *Server) mayTry(c gossh.ConnMetadata) bool {
	if len(c.User()) > maxUser {
		s.log.Debug("sshd: an authentication refused", logev.ID(3009), "user", logUser(c.User()), logev.Remote(c.RemoteAddr().String()), "why", "user name too long")
		return false
	}
	if why := s.g.AddressRefused(c.RemoteAddr()); why != "" {
		s.log.Debug("sshd: an authentication refused", logev.ID(3009), "user", logUser(c.User()), logev.Remote(c.RemoteAddr().String()), "why", why)
		return false
	}
	return true
}

// serverConfig is the x/crypto configuration of one connection. Every
// callback reads the user name from the attempt's own ConnMetadata: a
// client may change the name between attempts, and gliderlabs' Context
// keeps only the first one.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	var cn *conn // nil for a test's configuration
	if ctx != nil {
		cn, _ = ctx.Value(ctxConn).(*conn)
	}
	return &gossh.ServerConfig{
		MaxAuthTries: s.cfg.MaxAuthTries,
		// gliderlabs turns NoClientAuth on because none of its own
		// handlers is set; this callback is what x/crypto then asks, and
		// it refuses.
		NoClientAuthCallback: func(gossh.ConnMetadata) (*gossh.Permissions, error) {
			return nil, errNone
		},
		PasswordCallback: func(c gossh.ConnMetadata, pw []byte) (*gossh.Permissions, error) {
			return s.password(cn, c, pw)
		},
		KeyboardInteractiveCallback: func(c gossh.ConnMetadata, ch gossh.KeyboardInteractiveChallenge) (*gossh.Permissions, error) {
			return s.keyboardInteractive(cn, c, ch)
		},
		PublicKeyCallback: func(c gossh.ConnMetadata, key gossh.PublicKey) (*gossh.Permissions, error) {
			return s.publicKey(cn, c, key)
		},
		VerifiedPublicKeyCallback: func(c gossh.ConnMetadata, key gossh.PublicKey, p *gossh.Permissions, alg string) (*gossh.Permissions, error) {
			return s.verifiedPublicKey(cn, c, key, p, alg)
		},
		AuthLogCallback: func(c gossh.ConnMetadata, method string, err error) {
			if err == nil {
				s.log.Debug("sshd: authenticated", logev.ID(3010), "user", logUser(c.User()), "method", method, logev.Remote(c.RemoteAddr().String()))
			}
		},
	}
}

func proved(method, user string, grant uint64) *gossh.Permissions {
	return &gossh.Permissions{Extensions: map[string]string{extMethod: method, extUser: user, extGrant: strconv.FormatUint(grant, 10)}}
}

// check asks the backend about a credential; a refusal with a line (an
// address shut out, no game up behind a copyover holder) goes to the
// client as a banner. A wait of the backend for a game does not count
// against cn's handshake timeout.
func (s *Server) check(cn *conn, c gossh.ConnMetadata, chk gate.SSHCheck) (gate.SSHAnswer, error) {
	chk.User, chk.Remote = c.User(), c.RemoteAddr()
	if cn != nil {
		chk.Hold = cn.hold
	}
	ans, err := s.g.CheckSSH(chk)
	if err != nil {
		s.log.Error("sshd: an account lookup failed", logev.ID(3011), "user", logUser(c.User()), "err", err)
		return gate.SSHAnswer{}, errDenied
	}
	if ans.Why != "" {
		s.log.Debug("sshd: an authentication refused", logev.ID(3009), "user", logUser(c.User()), logev.Remote(c.RemoteAddr().String()), "why", ans.Why)
		return gate.SSHAnswer{}, &gossh.BannerError{Err: errDenied, Message: ans.Why + "\r\n"}
	}
	return ans, nil
}

// password opens an existing account with its password, and lets a name
// without an account in with any password: the session then asks the
// creation questions, the password included.
// A password the backend asks to keep (SSHAnswer.Keep) is kept on the
// connection until its shell takes it (conn.keep).
func (s *Server) password(cn *conn, c gossh.ConnMetadata, pw []byte) (*gossh.Permissions, error) {
	if !s.mayTry(c) {
		return nil, errDenied
	}
	ans, err := s.check(cn, c, gate.SSHCheck{Password: string(pw)})
	switch {
	case err != nil:
		return nil, err
	case ans.New:
		return proved(methodNew, c.User(), ans.Grant), nil
	case ans.Opens:
		if ans.Keep && cn != nil {
			cn.keep(string(pw))
		}
		return proved(methodPassword, c.User(), ans.Grant), nil
	}
	return nil, errDenied
}

// keyboardInteractive lets a name without an account in without a
// question, so "ssh newname@host" goes straight to the creation questions.
// An existing account must use its password or a key.
func (s *Server) keyboardInteractive(cn *conn, c gossh.ConnMetadata, _ gossh.KeyboardInteractiveChallenge) (*gossh.Permissions, error) {
	if !s.mayTry(c) {
		return nil, errDenied
	}
	ans, err := s.check(cn, c, gate.SSHCheck{Exists: true})
	if err != nil {
		return nil, err
	}
	if !ans.New {
		return nil, errDenied
	}
	return proved(methodNew, c.User(), ans.Grant), nil
}

// publicKey answers whether a key may be used for the user: it is
// registered to that account. x/crypto calls it for keys merely offered
// too, so it records nothing; verifiedPublicKey runs once the client has
// signed.
func (s *Server) publicKey(cn *conn, c gossh.ConnMetadata, key gossh.PublicKey) (*gossh.Permissions, error) {
	if !s.mayTry(c) {
		return nil, errDenied
	}
	ans, err := s.check(cn, c, gate.SSHCheck{Key: key.Marshal()})
	if err != nil {
		return nil, err
	}
	if !ans.Opens {
		return nil, errDenied
	}
	return &gossh.Permissions{}, nil
}

// verifiedPublicKey runs after the client proved it holds key, and records
// the key and the user name of that attempt.
func (s *Server) verifiedPublicKey(cn *conn, c gossh.ConnMetadata, key gossh.PublicKey, _ *gossh.Permissions, _ string) (*gossh.Permissions, error) {
	if !s.mayTry(c) {
		return nil, errDenied
	}
	ans, err := s.check(cn, c, gate.SSHCheck{Key: key.Marshal()})
	if err != nil || !ans.Opens {
		return nil, errDenied
	}
	p := proved(methodKey, c.User(), ans.Grant)
	p.Extensions[extKey] = string(key.Marshal())
	return p, nil
}

// identity is who a session's client proved to be.
type identity struct {
	user          string
	authenticated bool   // it proved it owns the existing account user
	method        string // methodPassword, methodKey or methodNew
	key           gossh.PublicKey
	grant         uint64 // the backend's number for the answer that let it in
}

// identify decides a session's identity from the Permissions of the
// authentication that succeeded on its connection, and re-checks a key
// against the account as it is now. user is the connection's user name;
// hold is SSHCheck.Hold for that check. An error means the connection's
// authentication is not one this front made, and the session is refused.
func (s *Server) identify(user string, remote net.Addr, p *gossh.Permissions, hold func() func()) (identity, error) {
	if p == nil || p.Extensions == nil {
		return identity{}, errors.New("no authentication recorded")
	}
	if got := p.Extensions[extUser]; got != user {
		return identity{}, fmt.Errorf("authenticated as %q, not %q", logUser(got), logUser(user))
	}
	id := identity{user: user, method: p.Extensions[extMethod]}
	id.grant, _ = strconv.ParseUint(p.Extensions[extGrant], 10, 64)
	switch id.method {
	case methodPassword:
		id.authenticated = true
	case methodKey:
		key, err := gossh.ParsePublicKey([]byte(p.Extensions[extKey]))
		if err != nil {
			return identity{}, fmt.Errorf("recorded key: %w", err)
		}
		ans, err := s.g.CheckSSH(gate.SSHCheck{User: user, Remote: remote, Key: key.Marshal(), Hold: hold})
		if err != nil {
			return identity{}, fmt.Errorf("account keys: %w", err)
		}
		if !ans.Opens {
			return identity{}, errors.New("the key is no longer registered")
		}
		// The latest answer's grant: the one from the game running now.
		id.key, id.authenticated, id.grant = key, true, ans.Grant
	case methodNew:
		// Not authenticated: the gate asks the creation questions, or
		// refuses if someone has taken the name since.
	default:
		return identity{}, fmt.Errorf("unknown method %q", id.method)
	}
	return id, nil
}
