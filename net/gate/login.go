package gate

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"zonemud/internal/logev"
	"zonemud/world"
)

// errLoginOver ends a login dialogue: the connection closed, timed out, or
// the player gave up.
var errLoginOver = errors.New("gate: login over")

// preAuth is what a transport that authenticates by itself (SSH) already
// knows when the session starts: the name typed, and whether the client
// proved it owns that existing account.
type preAuth struct {
	name          string
	authenticated bool
	// reattach says the session was in its character under another game
	// before a copyover: no banner, no question.
	reattach bool
}

// serve is the session's login: the opening negotiation, the login
// dialogue, and the character's entry into the world. It returns the
// route input goes by, or nil if the session is over.
func (s *Session) serve(pre *preAuth) *world.Route {
	if pre != nil && pre.reattach {
		s.reattached.Store(true)
	}
	if pre == nil || !pre.reattach {
		s.raw(s.c.opening())
		banner := strings.ReplaceAll(s.g.cfg.Banner, "{game}", s.g.w.GameName())
		s.Write([]byte(banner+"\n"), false)
	}
	var name string
	var err error
	if pre != nil {
		name, err = s.preLogin(pre)
	} else {
		name, err = s.login()
	}
	if err != nil {
		return nil
	}
	// A ban made while the player answered the questions after the name
	// (the password, the new character's) was not there at the check of
	// the name, and the ban's kick found no session by that name. Named
	// first and checked after, the login meets the ban one way or the
	// other: this check sees it, or the kick sees the name.
	s.name.Store(&name)
	if why := s.g.w.Banned(addrOf(s.remote), name); why != "" {
		s.g.log.Info("gate: a banned login was refused", logev.ID(2301), logev.Player(name), logev.Session(s.id), logev.Remote(s.c.remote()))
		s.Close(why)
		return nil
	}
	s.g.met.logins.WithLabelValues(s.front).Inc()
	s.g.log.Info("gate: a player logged in", logev.ID(2108), logev.Player(name), logev.Session(s.id), logev.Remote(s.c.remote()), "front", s.front, "resumed", s.resumed)
	route, err := s.g.w.Enter(name, s)
	if err != nil {
		switch {
		case errors.Is(err, world.ErrTakenOver):
			// Closed already, with the line that says why.
		case errors.Is(err, world.ErrStopping):
			s.Close("The world is shutting down. Please come back in a moment.")
		case errors.Is(err, world.ErrFull):
			s.Close("The world is full right now; please try again later.")
		default:
			s.Close("Your character could not be loaded, so it has not been touched. The admin has been told; please let them know too.")
		}
		return nil
	}
	s.route.Store(route)
	_ = s.c.setReadDeadline(time.Time{})
	s.sendResume(name)
	if lc, ok := s.c.(*linkConn); ok {
		lc.loggedIn()
	}
	return route
}

// play posts input lines through the session's route until the connection
// ends. Each line gets the next sequence number; the zone applies each once.
// Its frame is kept small, the work done in onEvent: an idle connection
// waits here, and the depth of the stack it waits with decides how small
// the goroutine's stack can shrink.
func (s *Session) play(route *world.Route) {
	for {
		ev, err := s.c.next()
		if err != nil {
			break
		}
		if s.onEvent(route, &ev) {
			return // the world is not answering: nothing to drop
		}
	}
	// The connection went without a quit: the character goes link-dead.
	// The drop is posted even if the session was closing. A close the gate
	// made (output overflow) leaves the character bound to this session,
	// and only the drop frees it; a zone that closed the session itself
	// (quit, takeover, idle, shutdown) unbound it first and ignores the drop.
	s.gone.Store(true)
	route.Dropped()
}

// onEvent handles one event in play. It reports whether play should stop
// at once, without dropping the character.
func (s *Session) onEvent(route *world.Route, ev *event) bool {
	if s.handleEvent(*ev) {
		return false
	}
	switch ev.kind {
	case evLine:
		s.typed.Store(true)
		s.lastRead.Store(time.Now().UnixNano())
		if err := s.lim.Wait(context.Background()); err != nil {
			return true
		}
		if ev.seq != 0 {
			// Over a copyover link the holder numbers the lines, so a
			// line it hands a game twice is dropped by the zone.
			s.seq = ev.seq
		} else {
			s.seq++
		}
		if !route.Input(s.seq, ev.text) {
			s.Close("The world is not answering; please log in again in a moment.")
			return true
		}
	case evTooLong:
		s.Write([]byte(fmt.Sprintf("That line is too long (more than %d bytes) and was ignored.\n> ", ev.n)), true)
	}
	return false
}

// handleEvent deals with the events that are the same at login and in
// game. It reports whether it handled ev.
func (s *Session) handleEvent(ev event) bool {
	switch ev.kind {
	case evGMCP:
		s.handleGMCP(ev.pkg, ev.data)
	case evMSSP:
		s.raw(s.msspFrame())
	case evCompress:
		s.put(frameCompress, nil)
	case evDecompress:
		s.put(frameDecompress, nil)
	case evProtocol:
		s.g.log.Debug("gate: a telnet protocol error", logev.ID(2003), logev.Session(s.id), logev.Remote(s.c.remote()), "reason", ev.text)
	case evResize, evClient:
	default:
		return false
	}
	return true
}

// ask shows a prompt and waits for a line, at most the login timeout.
func (s *Session) ask(prompt string) (string, error) {
	if !s.question([]byte(prompt)) {
		return "", errLoginOver
	}
	_ = s.c.setReadDeadline(time.Now().Add(time.Duration(s.g.cfg.LoginTimeoutSecs) * time.Second))
	for {
		ev, err := s.c.next()
		if err != nil {
			if os.IsTimeout(err) {
				s.Close("\nYou took too long to answer; goodbye.")
			}
			return "", errLoginOver
		}
		if s.handleEvent(ev) {
			continue
		}
		switch ev.kind {
		case evLine:
			s.typed.Store(true)
			return ev.text, nil
		case evTooLong:
			return "", nil // far too long to be an answer: ask again
		case evResume:
			s.resumeTok, s.resumeName = ev.text, ev.pkg
			return "", errResume
		}
	}
}

// secretReader is a transport that reads a hidden line itself (SSH).
type secretReader interface {
	readSecret(prompt string) (string, error)
}

// askSecret asks for a password with the client's echo off.
func (s *Session) askSecret(prompt string) (string, error) {
	if sr, ok := s.c.(secretReader); ok {
		_ = s.c.setReadDeadline(time.Now().Add(time.Duration(s.g.cfg.LoginTimeoutSecs) * time.Second))
		pw, err := sr.readSecret(prompt)
		if err != nil {
			return "", errLoginOver
		}
		return pw, nil
	}
	s.raw(s.c.echoOff())
	pw, err := s.ask(prompt)
	s.raw(s.c.echoOn())
	if err == nil {
		s.Write([]byte("\n"), false) // the client did not echo the newline either
	}
	return pw, err
}

// login runs the login dialogue and returns the character's name.
func (s *Session) login() (string, error) {
	for tries := 0; tries < 10; tries++ {
		typed, err := s.ask("By what name do you wish to be known? ")
		if errors.Is(err, errResume) {
			if name := s.resumeLogin(); name != "" {
				return name, nil
			}
			continue // told why; the name question again
		}
		if err != nil {
			return "", err
		}
		name, why := cleanName(typed, s.g.nameTaken)
		if why != "" {
			s.Write([]byte(why+"\n"), false)
			continue
		}
		if why := s.g.w.Banned(addrOf(s.remote), name); why != "" {
			s.g.log.Info("gate: a banned login was refused", logev.ID(2301), logev.Player(name), logev.Session(s.id), logev.Remote(s.c.remote()))
			s.Close(why)
			return "", errLoginOver
		}
		acct, err := s.g.w.Account(name)
		switch {
		case errors.Is(err, world.ErrNoAccount):
			ok, err := s.create(name)
			if err != nil {
				return "", err
			}
			if ok {
				return name, nil
			}
		case err != nil:
			s.g.log.Error("gate: an account cannot be read", logev.ID(2101), logev.Player(name), logev.Session(s.id), "err", err)
			s.Close("Accounts cannot be read right now; please try again later.")
			return "", errLoginOver
		default:
			if err := s.authenticate(acct); err != nil {
				return "", err
			}
			return acct.Name, nil
		}
	}
	s.Close("Too many tries; goodbye.")
	return "", errLoginOver
}

// preLogin finishes a login whose name the transport gave: straight in if
// the transport proved the account, the creation questions for a new name.
func (s *Session) preLogin(pre *preAuth) (string, error) {
	name, why := cleanName(pre.name, s.g.nameTaken)
	if why != "" {
		s.Close(why + " Connect again with the name you want as your user name.")
		return "", errLoginOver
	}
	if why := s.g.w.Banned(addrOf(s.remote), name); why != "" {
		s.g.log.Info("gate: a banned login was refused", logev.ID(2301), logev.Player(name), logev.Session(s.id), logev.Remote(s.c.remote()))
		s.Close(why)
		return "", errLoginOver
	}
	acct, err := s.g.w.Account(name)
	switch {
	case err == nil && pre.authenticated:
		s.loggedIn(acct.Name)
		return acct.Name, nil
	case err == nil:
		s.Close("That character already exists; log in with its password or a registered key.")
		return "", errLoginOver
	case !errors.Is(err, world.ErrNoAccount):
		s.g.log.Error("gate: an account cannot be read", logev.ID(2101), logev.Player(name), logev.Session(s.id), "err", err)
		s.Close("Accounts cannot be read right now; please try again later.")
		return "", errLoginOver
	}
	ok, err := s.create(name)
	if err != nil {
		return "", err
	}
	if !ok {
		s.Close("Connect again with the name you want as your user name.")
		return "", errLoginOver
	}
	return name, nil
}

// touchLogin records when the account last logged in. It is a record for
// the admin, so a failure to write it is logged and the login goes on.
func (s *Session) touchLogin(name string) {
	if err := s.g.w.TouchLogin(name); err != nil {
		s.g.log.Warn("gate: the last login time was not recorded", logev.ID(2102), logev.Player(name), "err", err)
	}
}

// create makes a new account: confirm the name, then the password twice.
// It reports false when the player wants another name.
func (s *Session) create(name string) (bool, error) {
	ans, err := s.ask(fmt.Sprintf("Did I get that right, %s (y/n)? ", name))
	if err != nil {
		return false, err
	}
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
		return false, nil
	}
	// Echo goes off before any text about the password, so a client that
	// answers on the word "password" never types it in the clear.
	s.raw(s.c.echoOff())
	s.Write([]byte("A new character, then. Choose a password to keep it yours.\n"), false)
	for tries := 0; tries < 5; tries++ {
		pw, err := s.askSecret("Choose a password: ")
		if err != nil {
			return false, err
		}
		if why := passwordProblem(pw); why != "" {
			s.Write([]byte(why+"\n"), false)
			continue
		}
		again, err := s.askSecret("Type the password again: ")
		if err != nil {
			return false, err
		}
		if again != pw {
			s.Write([]byte("The two passwords differ. Let us try that again.\n"), false)
			continue
		}
		hash, err := s.g.hash(pw)
		if err != nil {
			s.g.log.Error("gate: a password hash failed", logev.ID(2103), logev.Session(s.id), "err", err)
			s.Close("Something went wrong on our side; please try again later.")
			return false, errLoginOver
		}
		err = s.g.w.CreateAccount(name, hash)
		switch {
		case errors.Is(err, world.ErrAccountExists):
			s.Write([]byte("Someone has just taken that name. Please choose another.\n"), false)
			return false, nil
		case err != nil:
			s.g.log.Error("gate: an account cannot be created", logev.ID(2104), logev.Player(name), logev.Session(s.id), "err", err)
			s.Close("Accounts cannot be written right now; please try again later.")
			return false, errLoginOver
		}
		s.g.log.Info("gate: a new character", logev.ID(2105), logev.Player(name), logev.Session(s.id), logev.Remote(s.c.remote()), "front", s.front)
		return true, nil
	}
	s.Close("Too many tries; goodbye.")
	return false, errLoginOver
}

// authenticate asks for an existing account's password. A wrong password
// costs a growing delay; too many end the connection.
func (s *Session) authenticate(acct *world.Account) error {
	for bad := 0; bad < s.g.cfg.MaxBadPasswords; bad++ {
		pw, err := s.askSecret("Enter your password: ")
		if err != nil {
			return err
		}
		switch v, why := s.g.checkLogin(acct, pw, s.remoteAddr(), s.front); v {
		case passwordRight:
			s.loggedIn(acct.Name)
			return nil
		case passwordRefused:
			s.Close(why)
			return errLoginOver
		case passwordUnreadable:
			s.Close("This account cannot be checked right now; the admin has been told.")
			return errLoginOver
		}
		s.Write([]byte("Wrong password.\n"), false)
	}
	s.g.log.Info("gate: too many wrong passwords; closed", logev.ID(2106), logev.Player(acct.Name), logev.Session(s.id), logev.Remote(s.c.remote()))
	s.Close("Too many wrong passwords; goodbye.")
	return errLoginOver
}

// loggedIn records a login to an existing account, and tells its owner of
// the tries at it that failed since their last one.
func (s *Session) loggedIn(name string) {
	s.touchLogin(name)
	if line := s.g.failedLoginsLine(name); line != "" {
		s.Write([]byte(line+"\n"), false)
	}
}

// verdict is what checkLogin decided.
type verdict uint8

const (
	passwordRight      verdict = iota
	passwordWrong              // checked, and wrong
	passwordRefused            // not checked: startTry refused the try
	passwordUnreadable         // the stored hash cannot be read (logged)
)

// checkLogin checks a password for an existing account under the login
// limits, one policy for telnet, TLS and SSH: startTry decides first, so
// a refused try costs no hash; then the address's own failures, or the
// account's cap on a clean address past its allowance, may delay the
// answer (never an attack on the account from elsewhere, and never a
// refusal: the right password from a clean address always logs in); a
// wrong password costs the connection half a second more. why is the line
// for a refused try.
func (g *Gate) checkLogin(acct *world.Account, pw string, remote net.Addr, front string) (v verdict, why string) {
	t, why := g.startTry(remote, acct.Name, true)
	if t == nil {
		g.met.failures.WithLabelValues(front, failLocked).Inc()
		return passwordRefused, why
	}
	// This try is already counted against its address: the delay is for
	// the failures before it.
	if d := max(delayFor(g.ipFails.count(t.ip)-1), t.wait); d > 0 {
		time.Sleep(d)
	}
	ok, err := g.check(pw, acct.Hash)
	switch {
	case err != nil:
		g.log.Error("gate: a stored password hash does not read", logev.ID(2107), logev.Player(acct.Name), "err", err)
		t.finish(false)
		return passwordUnreadable, ""
	case ok:
		t.finish(false)
		return passwordRight, ""
	}
	t.finish(true)
	g.met.failures.WithLabelValues(front, failPassword).Inc()
	time.Sleep(500 * time.Millisecond)
	return passwordWrong, ""
}

// hash hashes a new password, at most HashConcurrency at a time.
func (g *Gate) hash(pw string) (string, error) {
	g.hashSem <- struct{}{}
	defer func() { <-g.hashSem }()
	return hashPassword(pw, uint32(g.cfg.ArgonMemoryKiB), uint32(g.cfg.ArgonTime))
}

// check checks a password, at most HashConcurrency at a time.
func (g *Gate) check(pw, hash string) (bool, error) {
	g.checks.Add(1)
	g.hashSem <- struct{}{}
	defer func() { <-g.hashSem }()
	return checkPassword(pw, hash)
}

// nameTaken reports whether a lower-case name would collide with a mob's
// keyword, which would make targeting ambiguous.
func (g *Gate) nameTaken(lower string) bool {
	return g.w.NameTaken(lower)
}
