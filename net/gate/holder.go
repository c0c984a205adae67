package gate

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/internal/run"
	"zonemud/net/boundary"
	"zonemud/net/telnet"
)

// The holder's side of a copyover link: it keeps the players' connections
// (telnet so far) and relays them to whichever game is linked: events in
// as frames, each burst of output back as ops it applies to the
// connection's own encoder. It never touches the world. Between two games
// it keeps every connection open, numbers the lines typed meanwhile, and
// hands them to the next game after the Attach.

// maxHeldPending bounds the frames one connection keeps while no game is
// linked; lines past it are dropped, with a word to the player.
const maxHeldPending = 256

// linkWindow bounds the events the holder sends a game's session ahead of
// what the session's reader has taken (Took, protocol version 3): with
// that many outstanding it reads the client no further, so a client that
// types faster than its session reads (its rate limit, a busy zone) is
// held back by TCP, as a connection of the game's own is, rather than
// read at once and its lines dropped in the game. It must be more than
// boundary.TookEvery.
const linkWindow = 4 * boundary.TookEvery

// Holder keeps connections open across game restarts.
type Holder struct {
	cfg   Config       // immutable
	log   *slog.Logger // immutable
	build string       // immutable

	nextID   atomic.Uint64
	nextAsk  atomic.Uint64 // AuthAsk numbers
	gr       run.Group
	stopping atomic.Bool
	conns    atomic.Int64 // connections kept or being handshaken
	byIP     AddrCount    // the same per-address counts as a gate's
	outCap   int          // immutable: the output one connection may have waiting, in bytes
	cuts     atomic.Uint64

	bans       atomic.Pointer[[]holderBan] // the game's address bans (holder_bans.go)
	gameWait   atomic.Int64                // SetGameWait's, 0 for GameWait
	sshWaiting atomic.Int64                // SSH logins waiting for a game
	stop       chan struct{}               // closed by Shutdown
	stopOnce   sync.Once

	mu        sync.Mutex
	held      map[uint64]*held // guarded by mu
	link      *holderLink      // guarded by mu: the game linked now, nil between games
	listeners []net.Listener   // guarded by mu
	linked    chan struct{}    // guarded by mu: closed when a game links; replaced when it goes
	unlinked  chan struct{}    // guarded by mu: closed when the linked game goes
}

// NewHolder makes a holder; cfg limits its connections as a gate's.
func NewHolder(cfg Config, build string, log *slog.Logger) *Holder {
	if log == nil {
		log = slog.Default()
	}
	// The game's own output queue for a session behind the holder
	// empties into the link as fast as it fills, so the holder's queue is
	// the one a slow client fills: it has the gate's limit, and a client
	// is cut at the same point whether the holder keeps it or not.
	return &Holder{cfg: cfg, log: log, build: build, held: map[uint64]*held{}, outCap: cfg.OutputLimitKiB << 10,
		linked: make(chan struct{}), unlinked: make(chan struct{}), stop: make(chan struct{})}
}

// Cuts is the number of connections the holder closed because their
// client did not take its output: more waiting than gate.output_limit_kib,
// or a write that failed or passed gate.write_timeout_secs.
func (h *Holder) Cuts() uint64 { return h.cuts.Load() }

// Linked is closed once a game is linked (the channel of the moment).
func (h *Holder) Linked() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.linked
}

// LinkedNow reports whether a game is linked at this moment.
func (h *Holder) LinkedNow() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.link != nil
}

// GameBuild is the build the linked game named in its Welcome, "" if none
// is linked.
func (h *Holder) GameBuild() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.link == nil {
		return ""
	}
	return h.link.build
}

// LoggedIn is the number of connections whose player the linked game has
// put in a character (0 between games).
func (h *Holder) LoggedIn() int {
	return h.count(func(hd *held, lk *holderLink) bool {
		return lk != nil && hd.inGame == lk && hd.account != ""
	})
}

// count is the number of connections still open for which in holds, asked
// of each under its own lock with the link of the moment.
func (h *Holder) count(in func(hd *held, lk *holderLink) bool) int {
	h.mu.Lock()
	lk := h.link
	hs := make([]*held, 0, len(h.held))
	for _, hd := range h.held {
		hs = append(hs, hd)
	}
	h.mu.Unlock()
	n := 0
	for _, hd := range hs {
		hd.mu.Lock()
		if !hd.gone && in(hd, lk) {
			n++
		}
		hd.mu.Unlock()
	}
	return n
}

// Waiting is the number of connections whose player was in a character
// under an earlier game and is not yet back in it under the linked one
// (all of them between games): after a swap, those still to be put back.
// A connection that closed meanwhile is not counted: it left, it was not
// lost.
func (h *Holder) Waiting() int {
	return h.count(func(hd *held, lk *holderLink) bool {
		return hd.account != "" && (lk == nil || hd.inGame != lk)
	})
}

// Connections is the number of connections the holder keeps.
func (h *Holder) Connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.held)
}

func (h *Holder) addListener(l net.Listener) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping.Load() {
		_ = l.Close()
		return false
	}
	h.listeners = append(h.listeners, l)
	return true
}

// ServeGames accepts game links on l (one game at a time: a game that
// links while another is linked is turned away, and its dial tries
// again).
func (h *Holder) ServeGames(l net.Listener) error {
	if !h.addListener(l) {
		return nil
	}
	return acceptLoop(l, &h.stopping, h.log, "copyover link", func(c net.Conn) {
		h.gr.GoWith(linkLabels, func() { h.serveLink(c) })
	})
}

// ServeTelnet accepts telnet connections on l and keeps them.
func (h *Holder) ServeTelnet(l net.Listener) error {
	if !h.addListener(l) {
		return nil
	}
	tc := h.cfg.telnetConfig()
	return acceptLoop(l, &h.stopping, h.log, frontTelnet, func(c net.Conn) {
		if key, ok := h.admit(c, true); ok {
			h.keep(c, key, frontTelnet, tc)
		}
	})
}

// admit refuses a banned address and counts a new connection against
// max_connections and max_conns_per_ip, as a gate does, and returns its
// address key; a connection refused is told why (a plain one: TLS has not
// begun) and closed.
func (h *Holder) admit(c net.Conn, tell bool) (string, bool) {
	key, why := h.admitAddr(c.RemoteAddr())
	if why == "" {
		return key, true
	}
	if tell {
		_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
		_, _ = c.Write([]byte(why + "\r\n"))
	}
	_ = c.Close()
	return "", false
}

// admitAddr counts a connection from addr, or says why it may not open:
// a ban first, as a gate's admission does.
func (h *Holder) admitAddr(addr net.Addr) (key, why string) {
	if why := h.AddressRefused(addr); why != "" {
		return "", why
	}
	key = ipKey(h.cfg, addr)
	if n := h.conns.Add(1); n > int64(h.cfg.MaxConnections) {
		h.conns.Add(-1)
		return "", "The world is full right now; please try again later."
	}
	if !h.byIP.Add(key, h.cfg.MaxConnsPerIP) {
		h.conns.Add(-1)
		return "", "Too many connections from your address; please close one and try again."
	}
	return key, ""
}

// release gives back what admit counted.
func (h *Holder) release(key string) {
	h.conns.Add(-1)
	h.byIP.Done(key)
}

// ServeTelnetTLS accepts telnet over TLS on l and keeps the connections:
// the holder terminates TLS, so a session keeps its TLS state through a
// game's restart. A plain client on this port gets one line saying so.
func (h *Holder) ServeTelnetTLS(l net.Listener, cfg *tls.Config, plainPort string) error {
	if !h.addListener(l) {
		return nil
	}
	tc := h.cfg.telnetConfig()
	return acceptLoop(l, &h.stopping, h.log, frontTLS, func(raw net.Conn) {
		key, ok := h.admit(raw, false)
		if !ok {
			return
		}
		h.gr.GoWith(tlsLabels, func() {
			if c, ok := startTLS(raw, cfg, plainPort, h.log); ok {
				h.keep(c, key, frontTLS, tc)
			} else {
				h.release(key)
			}
		})
	})
}

// keep starts keeping a telnet connection (plain or inside TLS): it is
// attached to the linked game, if any, and read from now on.
func (h *Holder) keep(c net.Conn, key, front string, tc telnet.Config) {
	hd := &held{h: h, id: h.nextID.Add(1), front: front, key: key}
	tconn := newTelnetConn(c, tc, func(p []byte) { hd.post([]boundary.Op{{Kind: boundary.OpRaw, Data: append([]byte(nil), p...)}}, false) })
	hd.c = tconn
	h.take(hd, tconn.opening)
}

// take starts keeping hd's connection: registered, sent its opening (if
// any), attached to the linked game, if any, and read from now on. A
// connection that comes as the holder stops is closed.
func (h *Holder) take(hd *held, opening func() []byte) {
	h.mu.Lock()
	if h.stopping.Load() {
		h.mu.Unlock()
		_ = hd.c.close()
		h.release(hd.key)
		return
	}
	h.held[hd.id] = hd
	lk := h.link
	h.mu.Unlock()
	if opening != nil {
		hd.post([]boundary.Op{{Kind: boundary.OpRaw, Data: opening()}}, false)
	}
	if lk != nil {
		lk.attach(hd)
	}
	h.gr.GoWith(readerLabels, hd.read)
}

// Swap asks the linked game to let every session go, and returns a
// channel closed when it has (Bye) or its link ended; nil if no game is
// linked. Lines typed from now on wait for the next game.
func (h *Holder) Swap(reason string) <-chan struct{} {
	h.mu.Lock()
	lk, done := h.link, h.unlinked
	h.mu.Unlock()
	if lk == nil {
		return nil
	}
	lk.wmu.Lock()
	lk.swapping = true
	err := lk.w.WriteFlush(&boundary.Swap{Reason: reason})
	lk.wmu.Unlock()
	if err != nil {
		_ = lk.c.Close()
	}
	return done
}

// Snapshot asks the linked game to save everyone and copy its database
// to path, and waits for the answer, at most wait.
func (h *Holder) Snapshot(path string, wait time.Duration) error {
	h.mu.Lock()
	lk, gone := h.link, h.unlinked
	h.mu.Unlock()
	if lk == nil {
		return errors.New("no game is linked")
	}
	select {
	case <-lk.snap: // a stale answer
	default:
	}
	if !lk.send(false, &boundary.Snapshot{Path: path}) {
		return errors.New("the game's link failed")
	}
	select {
	case why := <-lk.snap:
		if why != "" {
			return errors.New(why)
		}
		return nil
	case <-gone:
		return errors.New("the game went away")
	case <-time.After(wait):
		return fmt.Errorf("the game did not answer within %s", wait)
	}
}

// Shutdown closes the listeners and every connection.
func (h *Holder) Shutdown() {
	h.stopping.Store(true)
	h.stopOnce.Do(func() { close(h.stop) })
	h.mu.Lock()
	for _, l := range h.listeners {
		_ = l.Close()
	}
	lk := h.link
	var hs []*held
	for _, hd := range h.held {
		hs = append(hs, hd)
	}
	h.mu.Unlock()
	if lk != nil {
		_ = lk.c.Close()
	}
	for _, hd := range hs {
		_ = hd.c.close()
	}
	h.gr.Close()
}

// Wait waits for every goroutine of the holder, or for ctx.
func (h *Holder) Wait(ctx context.Context) error { return h.gr.Wait(ctx) }

// holderLink is the link to one game.
type holderLink struct {
	h       *Holder
	c       net.Conn
	r       *boundary.Reader
	build   string      // immutable: the game's, from its Welcome
	version uint32      // immutable: the protocol version agreed
	snap    chan string // Snapped answers, to Snapshot
	holderAsks
	banParts []boundary.AddressBan // link reader only: a Bans list's frames so far

	wmu      sync.Mutex // guards w, swapping and the writes on c
	w        *boundary.Writer
	swapping bool // guarded by wmu: a Swap was sent; input waits for the next game
}

// send writes frames to the game. With input set it refuses (false) once
// a Swap was sent: the game no longer reads, and the caller keeps them.
func (lk *holderLink) send(input bool, fs ...boundary.Frame) bool {
	lk.wmu.Lock()
	defer lk.wmu.Unlock()
	if input && lk.swapping {
		return false
	}
	for _, f := range fs {
		if _, ok := f.(*boundary.Resume); ok && lk.version < boundary.SSHVersion {
			continue // a game too old to take it: the page logs in
		}
		_ = lk.w.Write(f)
	}
	_ = lk.c.SetWriteDeadline(time.Now().Add(swapWait))
	if err := lk.w.Flush(); err != nil {
		_ = lk.c.Close()
		return false
	}
	return true
}

func (h *Holder) serveLink(c net.Conn) {
	defer c.Close()
	lk := &holderLink{h: h, c: c, r: boundary.NewReader(c), w: boundary.NewWriter(c), snap: make(chan string, 1)}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	v, gb, err := boundary.Greet(lk.r, lk.w, h.build)
	if err != nil {
		h.log.Warn("holder: a game's link was refused", logev.ID(2410), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	h.mu.Lock()
	if h.link != nil || h.stopping.Load() {
		h.mu.Unlock()
		return // one game at a time
	}
	lk.build, lk.version = gb, v
	h.link = lk
	if v < boundary.BansVersion {
		h.bans.Store(nil) // it sends none, so would not keep a list current
	}
	var hs []*held
	for _, hd := range h.held {
		hs = append(hs, hd)
	}
	close(h.linked)
	h.mu.Unlock()
	h.log.Info("holder: a game linked", logev.ID(2411), "version", v, "game", gb, "sessions", len(hs))
	for _, hd := range hs {
		lk.attach(hd)
	}
	bye := lk.read()
	h.mu.Lock()
	h.link = nil
	h.linked = make(chan struct{})
	close(h.unlinked)
	h.unlinked = make(chan struct{})
	hs = hs[:0]
	for _, hd := range h.held {
		hs = append(hs, hd)
	}
	h.mu.Unlock()
	for _, hd := range hs {
		if hd.unlink(lk) && !bye {
			// The game died under the player (a Swap ends in Bye).
			hd.post([]boundary.Op{{Kind: boundary.OpText, Data: []byte(crashLine)}}, false)
		}
	}
	h.log.Info("holder: the game's link ended", logev.ID(2412), "bye", bye)
}

// read takes the game's frames until Bye or the link's end; it reports
// whether the game said Bye.
func (lk *holderLink) read() bool {
	for {
		f, err := lk.r.Read()
		if err != nil {
			return false
		}
		switch f := f.(type) {
		case *boundary.Output:
			if hd := lk.h.get(f.Session); hd != nil {
				hd.post(f.Ops, false)
			}
		case *boundary.Close:
			if hd := lk.h.get(f.Session); hd != nil {
				hd.post(nil, true)
			}
		case *boundary.State:
			if hd := lk.h.get(f.Session); hd != nil {
				hd.mu.Lock()
				hd.account, hd.color, hd.colorSet, hd.gmcp = f.Account, f.Color, f.ColorSet, f.GMCP
				hd.inGame = lk
				if f.Account != "" {
					hd.ssh.inCharacter()
				}
				hd.mu.Unlock()
			}
		case *boundary.Detached:
			if hd := lk.h.get(f.Session); hd != nil {
				hd.detached(lk, f.Seq)
			}
		case *boundary.Took:
			if hd := lk.h.get(f.Session); hd != nil {
				hd.took(lk, f.N)
			}
		case *boundary.AuthAnswer:
			lk.answered(f)
		case *boundary.Bans:
			lk.gotBans(f)
		case *boundary.Snapped:
			select {
			case lk.snap <- f.Err:
			default: // nobody asked
			}
		case *boundary.Bye:
			return true
		}
	}
}

func (h *Holder) get(id uint64) *held {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[id]
}

// attach hands hd to the game with what the last game left, then the
// frames that waited for it.
func (lk *holderLink) attach(hd *held) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.gone || hd.link == lk {
		return
	}
	if hd.front == frontSSH && hd.account == "" {
		hd.loginAgain()
		return
	}
	if hd.served && hd.account == "" {
		hd.restartLogin()
	}
	a := &boundary.Attach{
		Session: hd.id, Front: hd.front, Remote: hd.c.remote(), Account: hd.account,
		Authenticated: hd.account != "", Client: hd.client(), GMCP: hd.gmcp,
		Color: hd.color, ColorSet: hd.colorSet, Seq: hd.applied,
	}
	fs := append([]boundary.Frame{a}, hd.pending...)
	if !lk.send(false, fs...) {
		return
	}
	hd.credLink, hd.sent, hd.taken = lk, uint64(len(hd.pending)), 0
	hd.pending = nil
	hd.link = lk
	hd.served = true
	hd.wake()
}

// loginRestartLine tells a player who was between login questions when
// their game went that the new game starts the dialogue again.
const loginRestartLine = "\n(The world restarted while you were logging in, so it starts again: what you typed meanwhile was not used. Please give your name again.)\n"

// restartLogin is a re-attach of a session that was not yet in a
// character: the dialogue does not survive its game (the answers so far,
// a password among them, were the old game's, and the holder keeps none
// of them), so the next game asks from the name on. The lines typed in
// between are dropped, not handed to it as answers: a password typed
// during the swap would be taken for a name, and shown. Echo goes back on
// (the old game may have turned it off for a password), and the player is
// told. Called with hd.mu held.
func (hd *held) restartLogin() {
	kept := hd.pending[:0]
	for _, f := range hd.pending {
		if in, ok := f.(*boundary.Input); ok {
			hd.applied = max(hd.applied, in.Seq)
			continue
		}
		kept = append(kept, f)
	}
	hd.pending = kept
	hd.dropped = false
	hd.post([]boundary.Op{{Kind: boundary.OpEchoOn}, {Kind: boundary.OpText, Data: []byte(loginRestartLine)}}, false)
}

// held is one connection the holder keeps.
type held struct {
	h     *Holder // immutable
	id    uint64  // immutable
	front string  // immutable
	key   string  // immutable: its per-address key
	c     conn    // immutable

	ssh *heldSSH // immutable: an SSH session's login (holder_ssh.go), nil for other fronts

	mu       sync.Mutex
	link     *holderLink      // guarded by mu: the game it is attached to, nil while waiting
	seq      uint64           // guarded by mu: lines numbered
	applied  uint64           // guarded by mu: the last line a game said it took
	pending  []boundary.Frame // guarded by mu: frames waiting for a game
	dropped  bool             // guarded by mu: a pending line was dropped
	served   bool             // guarded by mu: a game has had the session
	gone     bool             // guarded by mu: the connection is over
	account  string           // guarded by mu: from State
	inGame   *holderLink      // guarded by mu: the game whose State named the account
	color    markup.Level     // guarded by mu: the game's override, from State
	colorSet bool             // guarded by mu: there is one
	gmcp     []string         // guarded by mu
	credLink *holderLink      // guarded by mu: the game sent and taken are counted with
	sent     uint64           // guarded by mu: events sent to credLink since the session's Attach or Login
	taken    uint64           // guarded by mu: of those, the ones its session took, by its last Took

	wakeOnce sync.Once
	woken    chan struct{} // wake's: a Took came, the link changed, or the connection is closing

	omu     sync.Mutex
	out     [][]boundary.Op // guarded by omu: bursts for the writer
	outN    int             // guarded by omu: their bytes
	closing bool            // guarded by omu: close after out
	writing bool            // guarded by omu: a writer runs
	cutDone bool            // guarded by omu: the connection was cut (and that logged)
}

func (hd *held) client() boundary.Client {
	inf := hd.c.info()
	return boundary.Client{
		Width: uint32(max(inf.width, 0)), Height: uint32(max(inf.height, 0)), Name: inf.name, Terminal: inf.terminal,
		Color: inf.color, ScreenReader: inf.screenReader, UTF8: inf.utf8, MCCP: inf.mccp,
		GMCP: hd.c.gmcpFrame("", nil) != nil,
	}
}

// read is the connection's reader: every event to the game, or kept for
// the next one.
func (hd *held) read() {
	for {
		hd.hold()
		ev, err := hd.c.next()
		if err != nil {
			break
		}
		var f boundary.Frame
		switch ev.kind {
		case evLine:
			f = &boundary.Input{Session: hd.id, Line: ev.text}
		case evTooLong:
			f = &boundary.TooLong{Session: hd.id, Limit: uint32(ev.n)}
		case evResize, evClient:
			f = &boundary.ClientChanged{Session: hd.id, Client: hd.client()}
		case evGMCP:
			f = &boundary.GMCPIn{Session: hd.id, Package: ev.pkg, Data: ev.data}
			if strings.EqualFold(ev.pkg, "Core.Hello") {
				// A page's Core.Hello says whether a screen reader is
				// on, which the web conn keeps: the game renders by it.
				hd.forward(f)
				f = &boundary.ClientChanged{Session: hd.id, Client: hd.client()}
			}
		case evMSSP:
			f = &boundary.MSSPAsk{Session: hd.id}
		case evResume:
			f = resumeFrame(hd.id, ev)
		case evCompress, evDecompress:
			f = &boundary.Compress{Session: hd.id, On: ev.kind == evCompress}
		default:
			continue
		}
		hd.forward(f)
	}
	hd.mu.Lock()
	hd.gone = true
	lk := hd.link
	hd.mu.Unlock()
	if lk != nil {
		lk.send(false, &boundary.LinkLost{Session: hd.id})
	}
	hd.h.mu.Lock()
	delete(hd.h.held, hd.id)
	hd.h.mu.Unlock()
	hd.h.release(hd.key)
	hd.post(nil, true)
}

// forward sends f to the game, or keeps it while there is none (or the
// game is letting go).
func (hd *held) forward(f boundary.Frame) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	in, isLine := f.(*boundary.Input)
	if isLine {
		hd.seq++
		in.Seq = hd.seq
	}
	if lk := hd.link; lk != nil && len(hd.pending) == 0 && lk.send(true, f) {
		if hd.credLink != lk { // an SSH session's Login: no Attach counted
			hd.credLink, hd.sent, hd.taken = lk, 0, 0
		}
		hd.sent++
		return
	}
	if len(hd.pending) >= maxHeldPending {
		if isLine && !hd.dropped {
			hd.dropped = true
			hd.post([]boundary.Op{{Kind: boundary.OpText, Data: []byte("(The world is restarting; lines typed past this one are dropped until it is back.)\n")}}, false)
		}
		return
	}
	hd.pending = append(hd.pending, f)
}

// hold waits while the game's session has linkWindow events it has not
// taken (a game that says Took): the client's next line stays in its TCP
// stream meanwhile. Between games, or with a game too old to say Took,
// it does not wait: lines typed then are kept as far as maxHeldPending.
func (hd *held) hold() {
	for hd.full() {
		<-hd.wakeup()
	}
}

// full reports whether the session's game has linkWindow events of it
// outstanding and the connection is still open.
func (hd *held) full() bool {
	hd.omu.Lock()
	closing := hd.closing
	hd.omu.Unlock()
	hd.mu.Lock()
	defer hd.mu.Unlock()
	lk := hd.link
	return !closing && !hd.gone && lk != nil && lk.version >= boundary.TookVersion &&
		hd.credLink == lk && hd.sent-hd.taken >= linkWindow
}

// took is told that the session's reader in lk has taken n of the events
// sent it.
func (hd *held) took(lk *holderLink, n uint64) {
	hd.mu.Lock()
	if hd.credLink == lk && n > hd.taken {
		hd.taken = min(n, hd.sent)
	}
	hd.mu.Unlock()
	hd.wake()
}

// wake tells hold that what it waits for may have changed. It takes no
// lock of hd's, so a caller may hold any.
func (hd *held) wake() {
	select {
	case hd.wakeup() <- struct{}{}:
	default: // a wake waits already
	}
}

// wakeup is the channel wake pokes (made on first use: a held is made in
// more than one place).
func (hd *held) wakeup() chan struct{} {
	hd.wakeOnce.Do(func() { hd.woken = make(chan struct{}, 1) })
	return hd.woken
}

// detached is told that the game let go of the session, having taken its
// lines up to seq.
func (hd *held) detached(lk *holderLink, seq uint64) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.link == lk {
		hd.link = nil
	}
	hd.applied = seq
	hd.dropped = false
	hd.wake()
}

// crashLine tells a player the game died under them.
const crashLine = "\n(The world stumbled and is starting again; stay connected. What you did in the last few moments may be undone.)\n"

// unlink is told that lk ended: the session waits for the next game.
// Lines it sent to a game that died are not sent again. It reports whether
// the session was attached to lk.
func (hd *held) unlink(lk *holderLink) bool {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.link != lk {
		return false
	}
	hd.link = nil
	hd.applied = hd.seq - uint64(len(hd.pendingLines()))
	hd.wake()
	return true
}

func (hd *held) pendingLines() []*boundary.Input {
	var l []*boundary.Input
	for _, f := range hd.pending {
		if in, ok := f.(*boundary.Input); ok {
			l = append(l, in)
		}
	}
	return l
}

// post queues a burst for the client (or, with closing, the end of the
// connection after what is queued) and makes sure a writer runs. Output
// past the holder's cap drops what waits and cuts the connection at once,
// as the gate cuts one of its own: the client has stopped reading, so the
// writer waits on it.
func (hd *held) post(ops []boundary.Op, closing bool) {
	hd.omu.Lock()
	if hd.closing {
		hd.omu.Unlock()
		return
	}
	if len(ops) > 0 {
		hd.out = append(hd.out, ops)
		for _, op := range ops {
			hd.outN += len(op.Data)
		}
	}
	over, waiting := hd.outN > hd.h.outCap, hd.outN
	if over {
		hd.out, hd.outN = nil, 0
		hd.cutDone = true
		closing = true
	}
	hd.closing = closing
	start := !hd.writing
	hd.writing = true
	hd.omu.Unlock()
	if closing {
		hd.wake() // a reader held back stops holding
	}
	if over {
		// Off the caller's goroutine (the link's reader): closing an SSH
		// channel sends a message and may wait.
		hd.h.gr.GoWith(cutLabelsHeld, func() {
			_ = hd.c.close()
			hd.cut(fmt.Sprintf("its output passed gate.output_limit_kib: %d bytes waiting, over %d", waiting, hd.h.outCap), nil)
		})
	}
	if start {
		hd.h.gr.GoWith(writerLabelsHeld, hd.drain)
	}
}

var (
	writerLabelsHeld = run.NewLabels("session", "holder-writer")
	cutLabelsHeld    = run.NewLabels("session", "holder-cut")
	linkLabels       = run.NewLabels("holder", "link")
)

// drain writes what is queued, then leaves; it closes the connection after
// a Close.
func (hd *held) drain() {
	for {
		hd.omu.Lock()
		bursts, closing := hd.out, hd.closing
		hd.out, hd.outN = nil, 0
		if len(bursts) == 0 && !closing {
			hd.writing = false
			hd.omu.Unlock()
			return
		}
		hd.omu.Unlock()
		_ = hd.c.setWriteDeadline(time.Now().Add(time.Duration(hd.h.cfg.WriteTimeoutSecs) * time.Second))
		var err error
		for _, ops := range bursts {
			for _, op := range ops {
				if err = hd.apply(op); err != nil {
					break
				}
			}
		}
		if err == nil {
			err = hd.c.flush()
		}
		if err != nil || closing && len(bursts) == 0 {
			left := err != nil && hd.left() // asked before the close, which ends the reader
			_ = hd.c.close()
			if err != nil {
				hd.omu.Lock()
				hd.closing = true
				hd.out = nil
				cut := !hd.cutDone
				hd.cutDone = true
				hd.omu.Unlock()
				if cut && !left {
					why := "a write to it failed"
					if errors.Is(err, os.ErrDeadlineExceeded) {
						why = "a write to it passed gate.write_timeout_secs"
					}
					hd.cut(why, err)
				}
				hd.wake()
			}
			return
		}
	}
}

// left reports whether the connection's reader has seen it end: a write
// that fails then is no cut, the client went.
func (hd *held) left() bool {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	return hd.gone
}

// cut logs and counts a connection the holder closed because its client
// did not take its output.
func (hd *held) cut(why string, err error) {
	hd.mu.Lock()
	account := hd.account
	hd.mu.Unlock()
	hd.h.cuts.Add(1)
	hd.h.log.Info("holder: a connection was cut", logev.ID(2413), logev.Session(hd.id), logev.Player(account),
		logev.Remote(hd.c.remote()), "front", hd.front, "why", why, "err", err)
}

func (hd *held) apply(op boundary.Op) error {
	c := hd.c
	switch op.Kind {
	case boundary.OpText:
		return c.writeText(op.Data)
	case boundary.OpPrompt:
		return c.writePrompt(op.Data)
	case boundary.OpRaw:
		return c.writeRaw(op.Data)
	case boundary.OpGMCP:
		if f := c.gmcpFrame(op.Pkg, op.Data); f != nil {
			return c.writeRaw(f)
		}
	case boundary.OpEchoOff:
		if secretInput(c, true) {
			return nil
		}
		return c.writeRaw(c.echoOff())
	case boundary.OpEchoOn:
		if secretInput(c, false) {
			return nil
		}
		return c.writeRaw(c.echoOn())
	case boundary.OpCompress:
		if err := c.flush(); err != nil {
			return err
		}
		return c.startCompress()
	case boundary.OpDecompress:
		return c.stopCompress()
	}
	return nil
}

// DialHolder connects a game to a holder's unix socket at path, trying for
// up to wait while the holder is not there yet.
func DialHolder(path string, wait time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("gate: the holder at %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
