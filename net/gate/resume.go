package gate

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"zonemud/internal/logev"
)

// Resume tokens: a page reloaded within the link-dead window goes back into
// its character without the password. After every login on the
// gmcp.mudstandards.org subprotocol (a resume too) the session is sent
// Client.Resume {"token":"..."}; a new connection that sends
// Client.Resume with that token before anything typed logs into the same
// account without the password, as a reconnect (or a takeover, if the old
// connection is not yet seen to be gone).
//
// A token is 32 random bytes, bound to one account and one session; an
// account holds at most one. It is good while its session is open, and for
// the link-dead window after its connection drops; it is used once (the
// session it opens gets a new one); it dies when its session is closed on
// purpose (quit, a takeover, idling out, an admin's kick), since there is
// then no link-dead character to go back to. Tokens live in memory only (a
// restart forgets them), are never logged, and travel only in WebSocket
// messages, never in a URL.

// errResume ends an ask: the client asked to resume (the token is in
// s.resumeTok).
var errResume = errors.New("gate: resume asked")

// defaultLinkDead is the token's life after a drop until the wiring says
// the world's link-dead window.
const defaultLinkDead = 60 * time.Second

// resumes holds the live tokens.
type resumes struct {
	mu     sync.Mutex
	byTok  map[string]*resumeTok // guarded by mu
	byName map[string]string     // guarded by mu: lower-case account name -> its token
	issued int                   // guarded by mu: since the last sweep
	life   time.Duration         // guarded by mu: the link-dead window
}

type resumeTok struct {
	name  string    // the account, as it is spelled
	s     *Session  // the session it was issued to
	until time.Time // zero while s is open; then the end of its link-dead window
}

// SetLinkDead tells the gate the world's link-dead window: how long a
// resume token outlives its dropped connection.
func (g *Gate) SetLinkDead(d time.Duration) {
	g.resume.mu.Lock()
	g.resume.life = d
	g.resume.mu.Unlock()
}

func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on the systems Go supports
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// issue makes a token for s's account, replacing the account's last one.
func (r *resumes) issue(name string, s *Session) string {
	tok := newToken()
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byTok == nil {
		r.byTok, r.byName = map[string]*resumeTok{}, map[string]string{}
	}
	key := strings.ToLower(name)
	if old, ok := r.byName[key]; ok {
		delete(r.byTok, old)
	}
	r.byTok[tok] = &resumeTok{name: name, s: s}
	r.byName[key] = tok
	if r.issued++; r.issued >= 256 {
		r.issued = 0
		for t, rt := range r.byTok {
			if !rt.until.IsZero() && now.After(rt.until) {
				r.dropLocked(t, rt)
			}
		}
	}
	return tok
}

func (r *resumes) dropLocked(tok string, rt *resumeTok) {
	delete(r.byTok, tok)
	if key := strings.ToLower(rt.name); r.byName[key] == tok {
		delete(r.byName, key)
	}
}

// ended is told that s is over: its token, if it still holds one, dies if
// the session was closed on purpose and lasts the link-dead window if its
// connection dropped.
func (r *resumes) ended(s *Session, dropped bool) {
	n := s.name.Load()
	if n == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	tok, ok := r.byName[strings.ToLower(*n)]
	if !ok {
		return
	}
	rt := r.byTok[tok]
	if rt == nil || rt.s != s {
		return // the account's token is a later session's
	}
	if !dropped {
		r.dropLocked(tok, rt)
		return
	}
	life := r.life
	if life <= 0 {
		life = defaultLinkDead
	}
	rt.until = time.Now().Add(life)
}

// take uses a token: it returns the account it opens, or the line that
// says why not. A token is used once, whatever comes of it.
func (r *resumes) take(tok, asked string) (name, why string) {
	const gone = "That session cannot be resumed (it ended, or it has been too long); please log in."
	if tok == "" || len(tok) > 128 {
		return "", gone
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.byTok[tok]
	if rt == nil {
		return "", gone
	}
	r.dropLocked(tok, rt)
	if !rt.until.IsZero() && time.Now().After(rt.until) {
		return "", gone
	}
	if asked != "" && !strings.EqualFold(asked, rt.name) {
		return "", "That resume token belongs to another character; please log in."
	}
	return rt.name, ""
}

// resumeLogin finishes a login by resume token: the name of the account it
// opens, or "" after telling the player why not. A ban is checked after,
// as for every login (serve).
func (s *Session) resumeLogin() string {
	tok, asked := s.resumeTok, s.resumeName
	s.resumeTok, s.resumeName = "", ""
	name, why := s.g.resume.take(tok, asked)
	if why == "" {
		if _, err := s.g.w.Account(name); err != nil {
			why = "That character cannot be resumed; please log in."
		}
	}
	if why != "" {
		s.g.log.Info("gate: a resume token was refused", logev.ID(2109), logev.Session(s.id), logev.Remote(s.c.remote()))
		s.Write([]byte(why+"\n"), false)
		return ""
	}
	s.loggedIn(name)
	s.resumed = true
	return name
}

// sendResume gives a web session a fresh token once its character is in
// the world: on gmcp.mudstandards.org, here or behind a copyover holder
// (whose page is told the new game's token as it is put back, so a reload
// after a swap resumes too).
func (s *Session) sendResume(name string) {
	switch c := s.c.(type) {
	case *webConn:
	case *linkConn:
		if cl := c.cl.Load(); c.front != frontWeb || cl.Name != "web" || !cl.GMCP {
			return
		}
	default:
		return
	}
	tok := s.g.resume.issue(name, s)
	b, _ := json.Marshal(struct {
		Token string `json:"token"`
	}{tok})
	s.raw(s.c.gmcpFrame(gmcpResume, b))
}
