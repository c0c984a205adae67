package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/internal/run"
	"zonemud/net/boundary"
)

// The game's side of a copyover link (net/boundary): sessions whose
// connection a holder keeps (holder.go) arrive as Attach frames and are
// served here exactly as the gate's own connections are (the same login,
// output queue, writer and route), each over a linkConn, the conn whose
// client is behind the holder. When the holder asks for a Swap, the gate
// lets every session go (Detached), says Bye, and the game may stop: the
// holder keeps the players and attaches them to the next game.

// maxLinkQueue bounds the events waiting for one session's reader. A
// holder on protocol version 3 or later keeps at most linkWindow (or the
// lines it kept between games) outstanding, counting the Tooks, so never
// fills it; an older holder that sends faster than the session's rate
// limit lets the session read does, and a line past it is dropped, the
// player told once per overflow.
const maxLinkQueue = 2 * maxHeldPending

// swapWait bounds each step of a Swap: the readers taking what arrived,
// the save, the writers writing what was queued.
const swapWait = 15 * time.Second

// gameLink is one link to a holder.
type gameLink struct {
	g       *Gate
	version uint32 // the protocol version agreed; set before any session starts
	c       net.Conn
	r       *boundary.Reader
	wmu     sync.Mutex // guards w: the frames queued for the holder
	w       *boundary.Writer
	// fmu orders the writes on c: a flush takes what is queued under wmu
	// and writes it holding fmu only, so a session queueing its output
	// never waits on the socket. The flusher goroutine writes what
	// sessions queue (kick wakes it); frames that must be out before the
	// caller goes on (State, Detached, Bye) are flushed by the caller.
	fmu  sync.Mutex
	kick chan struct{}
	done chan struct{} // closed when the link ends

	mu    sync.Mutex
	conns map[uint64]*linkConn // guarded by mu: by the holder's session id
	gone  bool                 // guarded by mu: the link is over
}

// ServeLink serves the sessions a holder attaches over c until the link
// ends: the holder closes it, a frame does not decode, or a Swap has let
// every session go (swapped is then true). It closes c.
func (g *Gate) ServeLink(c net.Conn, build string) (swapped bool, err error) {
	l := &gameLink{g: g, c: c, r: boundary.NewReader(c), w: boundary.NewWriter(c), conns: map[uint64]*linkConn{},
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	defer l.end()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	v, hb, err := boundary.Answer(l.r, l.w, build)
	if err != nil {
		return false, fmt.Errorf("gate: link handshake: %w", err)
	}
	_ = c.SetDeadline(time.Time{})
	l.version = v
	g.gr.GoWith(flusherLabels, l.flusher)
	defer l.watchBans(v)()
	g.log.Info("gate: a holder linked", logev.ID(2401), "version", v, "holder", hb)
	for {
		f, err := l.r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return false, nil
			}
			return false, fmt.Errorf("gate: link: %w", err)
		}
		if sw, ok := f.(*boundary.Swap); ok {
			return true, l.swap(sw.Reason)
		}
		if sn, ok := f.(*boundary.Snapshot); ok {
			g.gr.GoWith(snapshotLabels, func() { l.snapshot(sn.Path) })
			continue
		}
		if a, ok := f.(*boundary.AuthAsk); ok {
			// A password costs a hash: the link reads on meanwhile.
			g.gr.GoWith(authLabels, func() { l.answer(a) })
			continue
		}
		l.handle(f)
	}
}

// handle routes one frame from the holder to its session.
func (l *gameLink) handle(f boundary.Frame) {
	if a, ok := f.(*boundary.Attach); ok {
		l.attach(a)
		return
	}
	if lg, ok := f.(*boundary.Login); ok {
		l.login(lg)
		return
	}
	var id uint64
	var ev event
	switch f := f.(type) {
	case *boundary.Input:
		id, ev = f.Session, event{kind: evLine, text: f.Line, seq: f.Seq}
	case *boundary.TooLong:
		id, ev = f.Session, event{kind: evTooLong, n: int(f.Limit)}
	case *boundary.ClientChanged:
		id, ev = f.Session, event{kind: evClient}
		if lc := l.conn(id); lc != nil {
			cl := f.Client
			lc.cl.Store(&cl)
		}
	case *boundary.GMCPIn:
		id, ev = f.Session, event{kind: evGMCP, pkg: f.Package, data: f.Data}
	case *boundary.MSSPAsk:
		id, ev = f.Session, event{kind: evMSSP}
	case *boundary.Resume:
		id, ev = f.Session, event{kind: evResume, text: f.Token, pkg: f.Name}
	case *boundary.Compress:
		id, ev = f.Session, event{kind: evDecompress}
		if f.On {
			ev.kind = evCompress
		}
	case *boundary.LinkLost:
		if lc := l.conn(f.Session); lc != nil {
			lc.lose()
		}
		return
	default:
		l.g.log.Warn("gate: a link frame the game does not take", logev.ID(2402), "kind", f.Kind())
		return
	}
	if lc := l.conn(id); lc != nil {
		lc.push(ev)
	}
}

func (l *gameLink) conn(id uint64) *linkConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[id]
}

// attach starts a session for a connection the holder keeps: a new one
// logs in; one the holder says is logged in goes straight into its
// character, with the state the last game left. The game takes the
// holder's word for that: the holder names an account only for a session
// a game (this one or one before it) put in that character and told it
// so (State).
func (l *gameLink) attach(a *boundary.Attach) {
	var pre *preAuth
	if a.Account != "" {
		pre = &preAuth{name: a.Account, authenticated: a.Authenticated, reattach: true}
	}
	if l.start(a.Session, a.Front, a.Remote, a.Client, pre, func(s *Session) {
		if a.ColorSet {
			s.SetColor(a.Color)
		}
		if len(a.GMCP) > 0 {
			s.handleGMCP("Core.Supports.Set", gmcpList(a.GMCP))
		}
	}) && pre != nil {
		l.g.reattached.Add(1)
	}
}

// login starts a new SSH session the holder's front let in on this game's
// answer: only with a grant this game gave, for that name, once.
func (l *gameLink) login(lg *boundary.Login) {
	ok, opens := l.g.grants.take(lg.Grant, lg.User)
	if !ok {
		l.g.log.Warn("gate: a holder's login without a grant of this game was refused", logev.ID(2406), "user", lg.User, logev.Remote(lg.Remote))
		// Queued for the flusher, not written here: the link's reader
		// never waits on the holder, whose own reader may be waiting on
		// a session that is writing to this game.
		l.queue(&boundary.Output{Session: lg.Session, Ops: []boundary.Op{{Kind: boundary.OpText,
			Data: []byte("The world restarted while you logged in; please connect again.\n")}}})
		l.queue(&boundary.Close{Session: lg.Session, Why: "grant"})
		return
	}
	l.start(lg.Session, frontSSH, lg.Remote, lg.Client, &preAuth{name: lg.User, authenticated: opens}, nil)
}

// start runs a session for a connection the holder keeps; set, if not
// nil, prepares the session before it serves. It reports false if the
// link is over or has the session already.
func (l *gameLink) start(id uint64, front, remoteS string, cl boundary.Client, pre *preAuth, set func(*Session)) bool {
	lc := &linkConn{l: l, id: id, front: front, remoteS: remoteS, wake: make(chan struct{}, 1)}
	lc.cl.Store(&cl)
	l.mu.Lock()
	if l.gone || l.conns[id] != nil {
		l.mu.Unlock()
		return false
	}
	l.conns[id] = lc
	l.mu.Unlock()
	remote := linkAddr(remoteS)
	g := l.g
	switch front {
	case frontTelnet, frontTLS, frontSSH, frontWeb:
	default:
		front = frontTelnet
	}
	g.conns.Add(1)
	g.byIP.Add(g.ipKey(remote), int(^uint(0)>>1)) // the holder admitted it; end releases both
	g.gr.GoWith(readerLabels, func() {
		g.run(remote, front, func(s *Session) conn {
			lc.s = s
			if set != nil {
				set(s)
			}
			return lc
		}, pre, true)
	})
	return true
}

var authLabels = run.NewLabels("gate", "link-auth")

// answer answers the holder's SSH front's question about a credential;
// an answer that lets the client in carries a grant for its Login.
func (l *gameLink) answer(a *boundary.AuthAsk) {
	c := SSHCheck{User: a.User, Remote: linkAddr(a.Remote)}
	switch a.Method {
	case boundary.AuthExists:
		c.Exists = true
	case boundary.AuthKey:
		c.Key = a.Secret
		if c.Key == nil {
			c.Key = []byte{}
		}
	default:
		c.Password = string(a.Secret)
	}
	ans := &boundary.AuthAnswer{Ask: a.Ask, Verdict: boundary.Denied}
	res, err := l.g.CheckSSH(c)
	switch {
	case err != nil:
		l.g.log.Error("gate: an account lookup failed", logev.ID(2101), logev.Player(a.User), "err", err)
		ans.Why = "Accounts cannot be read right now; please try again later."
	case res.Opens:
		ans.Verdict, ans.Account, ans.Grant = boundary.Opens, res.Account, l.g.grants.give(a.User, true)
	case res.New:
		ans.Verdict, ans.Grant = boundary.NoAccount, l.g.grants.give(a.User, false)
	default:
		ans.Why = res.Why
	}
	l.send(ans)
}

// gmcpList is a Core.Supports.Set payload naming pkgs.
func gmcpList(pkgs []string) []byte {
	b := []byte{'['}
	for i, p := range pkgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%q", p+" 1")
	}
	return append(b, ']')
}

// linkAddr is the client's address as the holder gave it.
func linkAddr(s string) net.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return net.TCPAddrFromAddrPort(ap)
	}
	return &net.TCPAddr{}
}

// send writes frames to the holder, after everything queued before them,
// and returns once they are written. A write that fails ends the link.
func (l *gameLink) send(fs ...boundary.Frame) bool {
	l.wmu.Lock()
	for _, f := range fs {
		if err := l.w.Write(f); err != nil {
			l.g.log.Warn("gate: a link frame was refused", logev.ID(2403), "err", err)
		}
	}
	l.wmu.Unlock()
	return l.flush() == nil
}

// queue queues a frame for the holder and wakes the flusher, without
// waiting for the write (unless the queue is past its bound).
func (l *gameLink) queue(f boundary.Frame) {
	l.wmu.Lock()
	err := l.w.Write(f)
	n := l.w.Buffered()
	l.wmu.Unlock()
	if err == nil {
		_ = l.queued(n)
	}
}

// maxLinkQueued bounds the bytes queued for the holder: past it a session
// writes its own burst out rather than queue more (the holder is slow).
const maxLinkQueued = 4 << 20

var flusherLabels = run.NewLabels("gate", "link-flusher")

// flusher writes what sessions queued, each time one kicks it, until the
// link ends.
func (l *gameLink) flusher() {
	for {
		select {
		case <-l.kick:
		case <-l.done:
			return
		}
		if l.flush() != nil {
			return
		}
	}
}

// flush writes everything queued so far, in order with every other flush.
func (l *gameLink) flush() error {
	l.fmu.Lock()
	defer l.fmu.Unlock()
	l.wmu.Lock()
	b := l.w.Take()
	l.wmu.Unlock()
	if len(b) == 0 {
		return nil
	}
	_ = l.c.SetWriteDeadline(time.Now().Add(swapWait))
	_, err := l.c.Write(b)
	l.wmu.Lock()
	l.w.Reuse(b)
	l.wmu.Unlock()
	if err != nil {
		_ = l.c.Close()
	}
	return err
}

// queued wakes the flusher for what was just queued; a queue past its
// bound is written by the caller.
func (l *gameLink) queued(n int) error {
	if n > maxLinkQueued {
		return l.flush()
	}
	select {
	case l.kick <- struct{}{}:
	default: // awake already: it takes this too
	}
	return nil
}

// swap lets every session go for a restart: each reader takes what
// arrived before the Swap and posts it; every zone saves, which it does
// after the lines already in its inbox; each session's queued output is
// written; then Detached for each, with the last line it took, and Bye.
// The sessions then end here as dropped connections, their characters
// saved again as the world shuts down; the holder keeps the players.
func (l *gameLink) swap(reason string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*swapWait)
	defer cancel()
	l.mu.Lock()
	conns := slices.Collect(maps.Values(l.conns))
	l.mu.Unlock()
	for _, lc := range conns {
		if lc.s != nil && lc.s.route.Load() != nil {
			lc.s.Write([]byte("{Y}The world is being rebuilt around you; hold on.{x}\n"), false)
		}
	}
	waitFor(ctx, func() bool {
		for _, lc := range conns {
			if !lc.idle() {
				return false
			}
		}
		return true
	})
	// Twice: a zone takes its mail (the save) before its inbox, so the
	// second save comes after every line the first found waiting.
	for range 2 {
		if err := l.g.w.SaveAll(ctx); err != nil {
			l.g.log.Warn("gate: a swap's save did not finish", logev.ID(2404), "err", err)
		}
	}
	waitFor(ctx, func() bool {
		for _, lc := range conns {
			if s := lc.s; s != nil && !s.Closed() && (s.out.Len() > 0 || s.writing.Load()) {
				return false
			}
		}
		return true
	})
	var fs []boundary.Frame
	l.wmu.Lock()
	for _, lc := range conns {
		st, seq, ok := lc.detach()
		if ok {
			fs = append(fs, st, &boundary.Detached{Session: lc.id, Seq: seq})
		}
	}
	l.wmu.Unlock()
	fs = append(fs, &boundary.Bye{Reason: reason})
	l.send(fs...)
	l.g.log.Info("gate: a swap let every session go", logev.ID(2405), "sessions", len(fs)/2, "reason", reason)
	return nil
}

var snapshotLabels = run.NewLabels("gate", "snapshot")

// snapshot saves everyone and copies the database to path for the next
// binary's pre-flight, and answers the holder.
func (l *gameLink) snapshot(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*swapWait)
	defer cancel()
	why := ""
	if l.g.w.CountdownPending() {
		// A reboot now would drop the admin's countdown with the old game.
		why = "a shutdown or reboot is counting down in the game; cancel it first (shutdown cancel)"
	} else if err := l.g.w.CopyDatabase(ctx, path); err != nil {
		why = err.Error()
	}
	l.send(&boundary.Snapped{Err: why})
}

// waitFor polls done until it holds or ctx ends.
func waitFor(ctx context.Context, done func() bool) {
	for !done() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// end closes the link and every session on it: their readers see the
// connection gone.
func (l *gameLink) end() {
	_ = l.flush() // the frames queued last (a Close) go out, if they can
	_ = l.c.Close()
	close(l.done)
	l.mu.Lock()
	l.gone = true
	conns := slices.Collect(maps.Values(l.conns))
	l.mu.Unlock()
	for _, lc := range conns {
		lc.lose()
	}
}

// forget removes a session that ended.
func (l *gameLink) forget(lc *linkConn) {
	l.mu.Lock()
	if l.conns[lc.id] == lc {
		delete(l.conns, lc.id)
	}
	l.mu.Unlock()
}

// linkConn is a conn whose client is behind the holder: events arrive as
// frames, output leaves as one Output frame per burst.
type linkConn struct {
	l       *gameLink // immutable
	id      uint64    // immutable: the holder's session id
	front   string    // immutable
	remoteS string    // immutable
	s       *Session  // immutable once the session is made
	cl      atomic.Pointer[boundary.Client]

	mu       sync.Mutex
	q        []event   // guarded by mu
	taken    uint64    // guarded by mu: the holder's number of the last line next returned
	done     uint64    // guarded by mu: events the reader took or push dropped, for Took
	told     uint64    // guarded by mu: done as the last Took said it
	refused  bool      // guarded by mu: a line was dropped since the queue was last empty
	waiting  bool      // guarded by mu: the reader waits in next with q empty
	lost     bool      // guarded by mu: no more events: the connection or the link is gone
	detached bool      // guarded by mu and l.wmu: output no longer goes to the holder
	deadline time.Time // guarded by mu
	wake     chan struct{}

	ops []boundary.Op // writer goroutine only: the burst being built
}

// typingFastLine tells a player behind a holder too old to wait for Took
// that the game's queue for them overflowed.
const typingFastLine = "You are typing faster than the world reads; what you type is dropped until it catches up.\n"

// push queues an event for the reader. An event past the queue's bound is
// dropped (counted as done: the holder is not to wait for it) and the
// player told, once for each overflow: a holder that sent a flood on
// would otherwise have a line of refusal written back for every line
// dropped, which is output the client did not ask for and, behind the
// holder's output cap, gets it cut.
func (c *linkConn) push(ev event) {
	c.mu.Lock()
	if c.lost {
		c.mu.Unlock()
		return
	}
	if len(c.q) >= maxLinkQueue {
		c.done++
		tell := ev.kind == evLine && c.s != nil && !c.refused
		if tell {
			c.refused = true
		}
		c.mu.Unlock()
		if tell {
			c.s.Write([]byte(typingFastLine), false)
		}
		return
	}
	c.q = append(c.q, ev)
	c.mu.Unlock()
	c.poke()
}

func (c *linkConn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// lose ends the events: the reader's next reports the connection gone
// once it has taken what was queued.
func (c *linkConn) lose() {
	c.mu.Lock()
	c.lost = true
	c.mu.Unlock()
	c.poke()
}

// idle reports whether the reader has taken every event and waits for
// the next (or will read no more).
func (c *linkConn) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost || (len(c.q) == 0 && c.waiting)
}

// detach stops output to the holder and returns what the holder is to
// hand the next game. Called with l.wmu held.
func (c *linkConn) detach() (*boundary.State, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached || c.s == nil {
		return nil, 0, false
	}
	c.detached = true
	c.lost = true
	st := c.s.linkState(c.id)
	return st, c.taken, true
}

// linkState is what a session leaves the next game.
func (s *Session) linkState(id uint64) *boundary.State {
	st := &boundary.State{Session: id}
	if l := s.colorSet.Load(); l != nil {
		st.Color, st.ColorSet = *l, true
	}
	if n := s.name.Load(); n != nil && s.route.Load() != nil {
		st.Account = *n
	}
	s.mu.Lock()
	st.GMCP = slices.Sorted(maps.Keys(s.gmcpPkgs))
	s.mu.Unlock()
	return st
}

// loggedIn tells the holder the session is in its character, so a later
// game attaches it as logged in.
func (c *linkConn) loggedIn() {
	c.l.send(c.s.linkState(c.id))
}

func (c *linkConn) next() (event, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		if len(c.q) > 0 {
			ev := c.q[0]
			c.q = c.q[1:]
			if ev.kind == evLine {
				c.taken = ev.seq
			}
			if len(c.q) == 0 {
				c.refused = false // the overflow is over
			}
			c.done++
			var took *boundary.Took
			if c.l.version >= boundary.TookVersion && c.done-c.told >= boundary.TookEvery && !c.detached {
				c.told = c.done
				took = &boundary.Took{Session: c.id, N: c.done}
			}
			c.waiting = false
			c.mu.Unlock()
			if took != nil {
				c.l.queue(took)
			}
			return ev, nil
		}
		if c.lost {
			c.mu.Unlock()
			return event{}, io.EOF
		}
		dl := c.deadline
		c.waiting = true
		c.mu.Unlock()
		var tc <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return event{}, errLinkTimeout
			}
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			tc = timer.C
		}
		select {
		case <-c.wake:
		case <-tc:
		}
	}
}

// errLinkTimeout is a read deadline passed on a linkConn (os.IsTimeout
// knows it).
var errLinkTimeout error = errDeadline{}

type errDeadline struct{}

func (errDeadline) Error() string { return "i/o timeout" }
func (errDeadline) Timeout() bool { return true }

func (c *linkConn) setReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	c.poke()
	return nil
}

func (c *linkConn) op(k boundary.OpKind, p []byte) {
	c.ops = append(c.ops, boundary.Op{Kind: k, Data: append([]byte(nil), p...)})
}

func (c *linkConn) writeText(p []byte) error   { c.op(boundary.OpText, p); return nil }
func (c *linkConn) writePrompt(p []byte) error { c.op(boundary.OpPrompt, p); return nil }
func (c *linkConn) startCompress() error       { c.op(boundary.OpCompress, nil); return nil }
func (c *linkConn) stopCompress() error        { c.op(boundary.OpDecompress, nil); return nil }

// Raw bytes a linkConn made itself (echoOff, echoOn, gmcpFrame) start with
// linkMark, which no telnet or web protocol bytes start with, and say
// which op they are; writeRaw turns them back into that op.
const linkMark = 0

func (c *linkConn) writeRaw(p []byte) error {
	if len(p) < 2 || p[0] != linkMark {
		c.op(boundary.OpRaw, p)
		return nil
	}
	switch p[1] {
	case 'E':
		c.op(boundary.OpEchoOff, nil)
	case 'e':
		c.op(boundary.OpEchoOn, nil)
	case 'G':
		pkg, data, _ := bytesCut(p[2:], 0)
		c.ops = append(c.ops, boundary.Op{Kind: boundary.OpGMCP, Pkg: string(pkg), Data: append([]byte(nil), data...)})
	}
	return nil
}

func bytesCut(p []byte, sep byte) (before, after []byte, found bool) {
	for i, b := range p {
		if b == sep {
			return p[:i], p[i+1:], true
		}
	}
	return p, nil, false
}

func (c *linkConn) echoOff() []byte { return []byte{linkMark, 'E'} }
func (c *linkConn) echoOn() []byte  { return []byte{linkMark, 'e'} }
func (c *linkConn) opening() []byte { return nil } // the holder negotiated

func (c *linkConn) gmcpFrame(pkg string, json []byte) []byte {
	if !c.cl.Load().GMCP {
		return nil
	}
	b := append([]byte{linkMark, 'G'}, pkg...)
	return append(append(b, 0), json...)
}

// flush sends the burst. Output after a detach is dropped: the next game
// speaks to the player.
func (c *linkConn) flush() error {
	if len(c.ops) == 0 {
		return nil
	}
	ops := c.ops
	c.ops = nil
	c.l.wmu.Lock()
	c.mu.Lock()
	detached := c.detached
	c.mu.Unlock()
	var err error
	n := 0
	if !detached {
		err = c.l.w.Write(&boundary.Output{Session: c.id, Ops: ops})
		n = c.l.w.Buffered()
	}
	c.l.wmu.Unlock()
	if err != nil {
		return err // too big: this burst is refused, the link goes on
	}
	if !detached {
		return c.l.queued(n)
	}
	return nil
}

func (c *linkConn) setWriteDeadline(time.Time) error { return nil }

// close ends the session: the holder closes the player's connection,
// unless the session was detached, when the holder keeps it.
func (c *linkConn) close() error {
	c.l.wmu.Lock()
	c.mu.Lock()
	detached := c.detached
	c.lost = true
	c.detached = true
	c.mu.Unlock()
	n := -1
	if !detached && c.l.w.Write(&boundary.Close{Session: c.id}) == nil {
		n = c.l.w.Buffered()
	}
	c.l.wmu.Unlock()
	if n >= 0 {
		_ = c.l.queued(n)
	}
	c.poke()
	c.l.forget(c)
	return nil
}

func (c *linkConn) columns() int { return int(c.cl.Load().Width) }

func (c *linkConn) info() clientInfo {
	cl := c.cl.Load()
	name := cl.Name
	if name == "" {
		name = c.kind()
	}
	return clientInfo{
		width: int(cl.Width), height: int(cl.Height), color: cl.Color,
		screenReader: cl.ScreenReader, utf8: cl.UTF8, name: name, terminal: cl.Terminal, mccp: cl.MCCP,
	}
}

func (c *linkConn) colorDepth() (markup.Level, bool) {
	cl := c.cl.Load()
	return cl.Color, cl.ScreenReader
}

func (c *linkConn) remote() string { return c.remoteS }

func (c *linkConn) kind() string {
	switch c.front {
	case frontSSH, frontWeb:
		return c.front
	}
	return "telnet"
}

func (c *linkConn) counts() (uint64, uint64, uint64) { return 0, 0, 0 }

// Reattached is the number of sessions a holder attached already in their
// character: put back after a copyover without a login.
func (g *Gate) Reattached() uint64 { return g.reattached.Load() }
