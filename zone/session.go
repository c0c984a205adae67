package zone

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/prompt"
)

// This file is how players come and go: arrival, a session attaching to a
// character, input, a dropped connection, quitting, and the hand-back.

// handleArrive puts a character into the world from a login.
func (z *Zone) handleArrive(m arriveMsg) {
	if m.rec == nil {
		return
	}
	z.catchUp()
	defer z.evacuateIfRetired()
	if old := z.players[m.rec.Name]; old != nil {
		// The world routes every login of a character to the zone that
		// holds it, so this is a broken invariant: never build a second
		// copy. Attach the session to the character we hold instead.
		z.log.Error("zone: asked to hold a character it already holds", logev.ID(7007), logev.Player(m.rec.Name))
		if m.sess != nil {
			z.attach(old, m.sess)
		}
		return
	}
	if m.sess != nil && m.sess.Closed() {
		// The player hung up while the login was in flight.
		z.handedBack(m.rec, "gone")
		return
	}
	if z.stopping {
		z.handedBack(m.rec, "stop")
		if m.sess != nil {
			m.sess.Close("The world is shutting down. Please come back in a moment.")
		}
		return
	}
	c := z.newPlayerChar(m.rec)
	c.rid = z.newRID()
	z.chars[c.rid] = c
	c.home = z
	z.injectedFault(false)
	for _, it := range c.carried() {
		z.adoptTree(it)
	}
	room := z.localRoom(m.room)
	note := m.note
	if room == nil {
		room = z.startRoom()
		if m.room != "" && note == "" {
			note = "The place where you last stood is gone; you find yourself somewhere familiar."
		}
	}
	z.players[c.name] = c
	z.rosterOld = true
	c.pl.arrival++
	z.dirty(c) // the new epoch and placement are worth saving
	if m.sess == nil || !m.sess.Client().Reattached {
		z.presence(room, nil, c, noticeEntered)
	}
	room.addChar(c)
	if m.sess != nil {
		z.bind(c, m.sess)
	} else {
		z.goLinkDead(c)
	}
	z.injectedFault(true)
	z.showRoom(c)
	if note != "" {
		z.sendLine(c, note)
	}
	if len(c.affects) > 0 || c.hp < c.maxHP || c.mana < c.maxM || c.mv < c.maxMv {
		z.wake(c)
	}
	z.afterArrival(c)
	z.arrived(c, room)
	if m.fresh {
		z.shard.Comm().Arrived(c.name)
	}
	z.log.Debug("zone: a character entered", logev.ID(7005), logev.Player(c.name), "how", "login", "room", room.ref())
}

// testHookArrival is nil except in a test binary, where testhooks.go sets
// it once at init to make chosen arrivals panic: before the character is
// taken in (late false) or once it is bound to its session (late true).
var testHookArrival func(z *Zone, late bool)

// injectedFault runs the test hook at a point of an arrival.
func (z *Zone) injectedFault(late bool) {
	if testHookArrival != nil {
		testHookArrival(z, late)
	}
}

// adoptTree gives an item tree rids already made by itemFromRecord a home
// in the index; itemFromRecord registered them, so this only fixes the
// worn-or-carried pointers' index entries if missing.
func (z *Zone) adoptTree(it *Item) {
	if _, ok := z.items[it.rid]; !ok {
		z.adoptItem(it)
	}
}

// afterArrival runs once a character is in a room here, whether it logged in
// or walked in: a waiting login takes over, and the character starts
// counting toward saves.
func (z *Zone) afterArrival(c *Char) {
	if s := z.shard.TakePending(c.name, z); s != nil {
		z.attach(c, s)
	}
}

// bind makes s the session of c.
func (z *Zone) bind(c *Char, s Session) {
	p := c.pl
	p.sess = s
	p.appliedSeq = 0
	p.pending = nil // lines typed on an earlier connection are not this one's
	p.chain = nil
	p.await = 0 // an answer still owed comes with a prompt of its own
	p.linkDead = false
	p.reap.cancel()
	p.lastInput = time.Now()
	z.bySess[s.ID()] = c
	z.rosterOld = true
	z.applySettings(c)
	z.gmcpChar(c)
}

// handleWake attaches a waiting login to a character held here.
func (z *Zone) handleWake(m wakeMsg) {
	c := z.players[m.name]
	if c == nil {
		return // not here (in flight to another zone, or gone): its next holder checks
	}
	if s := z.shard.TakePending(m.name, z); s != nil {
		z.attach(c, s)
	}
}

// attach gives a character held here a new session: a reconnect to a
// link-dead character, or a takeover of one that is online elsewhere.
func (z *Zone) attach(c *Char, s Session) {
	p := c.pl
	old := p.sess
	if old != nil && old.ID() == s.ID() {
		return
	}
	wasLinkDead := p.linkDead
	// A letter half written on the last connection is given up: lines
	// typed on this one are commands, as the player expects.
	lostDraft := p.draft
	p.draft = nil
	if old != nil {
		delete(z.bySess, old.ID())
		z.flushOne(c, flushOther)
		old.Close(fmt.Sprintf("%s has just logged in from another connection; this one is closed.", c.name))
	}
	z.bind(c, s)
	if s.Closed() {
		z.goLinkDead(c)
		return
	}
	switch {
	case wasLinkDead:
		z.presence(c.room, c, c, noticeReconnected)
		z.sendLine(c, "Reconnecting. You are where you left off.")
	case old != nil:
		z.sendLine(c, "You take over your character from your other connection.")
	}
	if lostDraft != nil {
		z.sendLine(c, "The letter you were writing to "+lostDraft.To()+" is given up.")
	}
	z.showRoom(c)
}

// handleDrop marks a character link-dead when its session's connection goes.
func (z *Zone) handleDrop(m dropMsg) {
	c := z.bySess[m.sess.ID()]
	if c == nil {
		// Not held here. If the connection ended while its character
		// walked into another zone, the reader told the zone it left:
		// pass the drop on, behind the transfer, as input is.
		z.forward(m, m.name)
		return
	}
	if c.pl.sess != m.sess {
		return // an old session of a character that has a new one
	}
	delete(z.bySess, m.sess.ID())
	c.pl.sess = nil
	z.goLinkDead(c)
}

// goLinkDead leaves c in the world without a connection, and hands it back
// if nobody reconnects within the grace window.
func (z *Zone) goLinkDead(c *Char) {
	p := c.pl
	if p.sess != nil {
		delete(z.bySess, p.sess.ID())
		p.sess = nil
	}
	p.linkDead = true
	z.freeOut(p)
	p.pending, p.chain = nil, nil // nobody is there to have typed them any more
	z.rosterOld = true
	if c.room != nil {
		z.presence(c.room, c, c, noticeLostLink)
	}
	p.reap.cancel()
	p.reap = z.pulses.after(uint64(time.Duration(z.cfg.LinkDeadSecs)*time.Second/PulseInterval), func() {
		if z.players[c.name] == c && c.pl.linkDead {
			if c.room != nil {
				z.presence(c.room, c, c, noticeFades)
			}
			z.handBack(c, "linkdead")
		}
	})
}

// handleInput runs one line a player typed, once.
func (z *Zone) handleInput(m inputMsg) {
	c := z.bySess[m.sess.ID()]
	if c == nil {
		// Not held here: the line was routed before its character moved.
		z.forward(m, m.name)
		return
	}
	p := c.pl
	if m.seq <= p.appliedSeq {
		z.dropped.Add(1)
		z.log.Debug("zone: dropped a line it had applied already", logev.ID(7012), logev.Player(c.name), logev.Session(m.sess.ID()), "seq", m.seq)
		return
	}
	p.appliedSeq = m.seq
	p.lastInput = time.Now()
	if p.inputAt.IsZero() {
		p.inputAt = m.at // the answer's flush ends the round trip
	}
	if p.logged || len(p.snoopers) > 0 {
		z.typed(c, m.sess, m.line)
	}
	p.commands++
	z.dirty(c)
	if z.pulses.now < c.lagUntil || p.backlog() || p.await != 0 {
		// Still recovering from an ability, or waiting for the answer to
		// the last command: the line waits its turn.
		if len(c.pl.pending) < maxPending {
			c.pl.pending = append(c.pl.pending, m.line)
		} else {
			z.sendLine(c, "You are still recovering; slow down.")
			z.prompt(c)
		}
		z.wake(c)
		return
	}
	z.runLine(c, m.line)
	if z.bySess[m.sess.ID()] == c {
		z.prompt(c) // unless the command took c out of this zone
	}
}

// forward passes a message for a character this zone does not hold to
// the zone the shard's residency index names, if that is another: the
// message was routed before the character moved. The mailbox keeps it
// behind the handoff that took the character there, so it finds them
// there (or follows them on, if they have moved again). Anything else (an
// old session of a character taken over, a character gone) is dropped:
// forward reports false, and a message that owes an answer gives it.
func (z *Zone) forward(m msg, name string) bool {
	if nz := z.shard.Where(name); nz != nil && nz != z {
		return nz.send(m)
	}
	return false
}

// quit takes the character out of the world now and closes its session.
func (z *Zone) quit(c *Char) {
	if c.fighting != nil {
		z.sendLine(c, "No way! You are fighting for your life. Flee first.")
		return
	}
	s := c.pl.sess
	z.flushOne(c, flushOther)
	z.presence(c.room, c, c, noticeLeft)
	z.handBack(c, "quit")
	if s != nil {
		s.Close("You step out of the world. Your character is saved. Farewell!")
	}
}

// handBack is the leaving order of seed 002: remove the character, cancel
// its timers, queue its save, post the return, and only then let the
// session go (the caller closes it).
func (z *Zone) handBack(c *Char, why string) {
	rec := z.record(c)
	if c.room != nil {
		c.room.removeChar(c)
	}
	z.forget(c)
	z.checkpoint([]*CharRecord{rec}, true)
	// The batch now belongs to the saver; the shard gets its own copy.
	z.handedBack(rec.Clone(), why)
}

// handedBack gives rec back to the shard and logs it: every hand-back
// goes through here, so each writes its one 7006 line.
func (z *Zone) handedBack(rec *CharRecord, why string) {
	z.log.Debug("zone: a character was handed back", logev.ID(7006), logev.Player(rec.Name), "why", why)
	z.shard.HandBack(rec, why)
}

// forget drops c and everything it carries from the zone's indexes, ends
// its fights and cancels its timers, without building a record.
func (z *Zone) forget(c *Char) {
	delete(z.chars, c.rid)
	delete(z.dirtyChars, c)
	delete(z.freshChars, c)
	c.home = nil
	c.ticker.cancel()
	c.wander.cancel()
	z.stopFighting(c)
	z.forgetScript(c)
	for _, it := range c.carried() {
		z.forgetItem(it)
	}
	if c.pl != nil {
		c.pl.reap.cancel()
		if c.pl.sess != nil {
			delete(z.bySess, c.pl.sess.ID())
			c.pl.sess = nil
		}
		delete(z.players, c.name)
		z.rosterOld = true
	}
}

// idleSweep logs out players who have typed nothing for too long.
func (z *Zone) idleSweep() {
	limit := time.Duration(z.cfg.IdleMins) * time.Minute
	for _, c := range z.sortedPlayers() {
		if c.pl.sess != nil && time.Since(c.pl.lastInput) > limit {
			z.flushOne(c, flushOther)
			z.presence(c.room, c, c, noticeDrifts)
			s := c.pl.sess
			z.handBack(c, "idle")
			s.Close(fmt.Sprintf("You have been idle for %d minutes and drift out of the world. Your character is saved.", z.cfg.IdleMins))
		}
	}
	z.rosterOld = true
}

func (z *Zone) sortedPlayers() []*Char {
	out := make([]*Char, 0, len(z.players))
	for _, c := range z.players {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// output

// sendLine queues a line of text for c.
func (z *Zone) sendLine(c *Char, text string) {
	if p := z.outOf(c); p != nil {
		p.out = append(p.out, text...)
		z.endLine(c)
	}
}

// sendBytes is sendLine for text the caller builds in a buffer it keeps
// for the next: the text is copied.
func (z *Zone) sendBytes(c *Char, text []byte) {
	if p := z.outOf(c); p != nil {
		p.out = append(p.out, text...)
		z.endLine(c)
	}
}

// outOf is c's player with an output buffer to append to, or nil if
// nobody is there to read it.
func (z *Zone) outOf(c *Char) *Player {
	if c == nil {
		return nil // no one to tell: damage over time, a room's script
	}
	p := c.pl
	if p == nil || p.sess == nil {
		return nil
	}
	if p.out == nil {
		p.out = z.outBuf()
	}
	return p
}

// endLine ends the line just appended to c's output and queues it.
func (z *Zone) endLine(c *Char) {
	p := c.pl
	p.out = append(p.out, '\n')
	if !p.queued {
		p.queued, p.lazy = true, z.lazyOut
		z.queue(c)
	} else if p.lazy && !z.lazyOut {
		// Comings and goings waited for newsGap; this goes at once in a
		// room that is not crowded, else waits for the gap alone, and
		// takes them along. The entry for newsGap, if one waits, is
		// passed over once this one has flushed.
		p.lazy = false
		at := p.lastFlush.Add(z.gap)
		if !z.crowded(c.room) {
			at = time.Now() // due at this batch's flush
		}
		z.waitUntil(at, c)
	}
}

// queue starts a wait: c has output and was not queued.
func (z *Zone) queue(c *Char) {
	z.episodes++
	c.pl.episode = z.episodes
	z.waiting++
	z.flushList = append(z.flushList, c)
}

// prompt makes sure c's output ends with a prompt.
func (z *Zone) prompt(c *Char) {
	p := c.pl
	if p.sess == nil {
		return
	}
	if !p.urgent { // an answer: it goes out with this batch
		p.urgent = true
		z.urgentList = append(z.urgentList, c)
	}
	if !p.queued {
		p.queued = true
		z.queue(c)
	}
}

// appendPrompt appends what c's prompt says to dst: the player's own
// (prompt), the vitals one, or the plain "> ". Each ends with "> ".
func (z *Zone) appendPrompt(dst []byte, c *Char) []byte {
	if f := c.pl.settings.Prompt; f != "" {
		return prompt.Render(dst, f, promptSource{z, c})
	}
	if c.pl.settings.Vitals {
		return fmt.Appendf(dst, "<%dhp %dm %dmv> ", c.hp, c.mana, c.mv)
	}
	return append(dst, "> "...)
}

// flushGap is the least time between two flushes of output a player in a
// crowded room did not ask for (other players' talk, comings and goings):
// once such output waits, it goes out a gap after the player's last flush
// (a quarter gap later at most). In a crowd such lines come faster than
// anyone reads; gathering them turns a write per line into a write per
// gap. A player's own answer (anything that asked for a prompt) goes out
// with its batch, carrying whatever waited; output after a quiet spell,
// and all output in a room that is not crowded, goes at once.
const flushGap = 100 * time.Millisecond

// newsGap is flushGap for output that is only comings and goings ("Aria
// arrives from the south.", a crowd's summaries) or channel lines, in any
// room: it waits until a second has passed since the player's last flush,
// or goes with whatever goes sooner (an answer, someone's talk). Walkers
// come and go far more often than anyone talks; told at once, each
// arrival and departure was a write to everyone in the room, and each
// line of a world-wide channel a write to every player.
const newsGap = time.Second

// flush hands waiting output, with a prompt, to players' sessions: those
// the batch answered, those whose output is new and need not wait, and
// those whose gap is over. Output that must wait out its gap is kept in a
// heap by when it falls due (flushWait), so a flush looks only at what is
// new since the last one and what fell due: a zone that holds a crowd's
// waiting output neither walks it every batch nor every time one of them
// falls due.
func (z *Zone) flush() {
	z.owner.check()
	if z.vm != nil && time.Since(z.luaAt) > time.Second {
		z.recordLua()
		z.luaAt = time.Now()
	}
	z.publishRoster()
	if len(z.urgentList) == 0 && len(z.flushList) == 0 && len(z.flushWait) == 0 {
		z.flushDue = time.Time{}
		return
	}
	now := time.Now()
	for i, c := range z.urgentList {
		z.urgentList[i] = nil
		if p := c.pl; p != nil && p.urgent {
			p.urgent = false
			if p.queued {
				p.lastFlush = now
				z.flushOne(c, flushAnswer)
			}
		}
	}
	z.urgentList = z.urgentList[:0]
	// What was queued since the last flush (and not taken by an answer):
	// at once, or a gap after the player's last flush.
	for i, c := range z.flushList {
		z.flushList[i] = nil
		p := c.pl
		if p == nil || !p.queued {
			continue
		}
		gap := z.gap
		if p.lazy {
			gap = newsGap
		}
		if at := p.lastFlush.Add(gap); now.Before(at) && (p.lazy || z.crowded(c.room)) {
			z.waitUntil(at, c)
			continue
		}
		p.lastFlush = now
		z.flushOne(c, z.causeOf(c))
	}
	z.flushList = z.flushList[:0]
	// What fell due.
	due := false
	for n := now.UnixNano(); len(z.flushWait) > 0; {
		w := &z.flushWait[0]
		live := w.c != nil && w.c.pl.queued && w.c.pl.episode == w.episode
		if live && w.at > n {
			break
		}
		// Due, or over: an entry whose wait ended (an answer took the
		// output, the player left) is dropped when it comes to the top,
		// so that the next flush is set for a wait that is still on.
		c := z.flushWait.pop().c
		if c != nil {
			c.pl.waits--
		}
		if live {
			due = true
			c.pl.lastFlush = now
			z.flushOne(c, z.causeOf(c))
		}
	}
	z.flushDue = time.Time{}
	if len(z.flushWait) > 0 {
		z.flushDue = time.Unix(0, z.flushWait[0].at)
		// Flushes of what fell due a quarter gap apart at most: a
		// player's waiting output may wait up to a quarter gap more, and
		// a crowd whose gaps end at scattered moments wakes the zone a
		// few times a gap, not once a player.
		if next := now.Add(z.gap / 4); due && z.flushDue.Before(next) {
			z.flushDue = next
		}
	}
}

// waitUntil keeps c's output until at (or until an answer or talk takes it
// sooner).
func (z *Zone) waitUntil(at time.Time, c *Char) {
	z.flushWait.push(waiting{at: at.UnixNano(), episode: c.pl.episode, c: c})
	c.pl.waits++
	if z.flushDue.IsZero() || at.Before(z.flushDue) {
		z.flushDue = at
	}
}

// waiting is one player's output waiting out its gap: due at at (Unix
// nanoseconds), for the wait numbered episode (Player.episode). An entry
// whose wait ended sooner (an answer took the output) stays until it is
// due and is passed over then; c is nil once the player left the zone.
type waiting struct {
	at      int64
	episode uint64
	c       *Char
}

// waitHeap is a min-heap of waits by when they fall due. Its entries are
// values, so ordering them reads no player's memory.
type waitHeap []waiting

func (h *waitHeap) push(w waiting) {
	*h = append(*h, w)
	q := *h
	for i := len(q) - 1; i > 0; {
		up := (i - 1) / 2
		if q[up].at <= q[i].at {
			break
		}
		q[up], q[i] = q[i], q[up]
		i = up
	}
}

func (h *waitHeap) pop() waiting {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = waiting{}
	q = q[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(q) {
			break
		}
		m := l
		if r := l + 1; r < len(q) && q[r].at < q[l].at {
			m = r
		}
		if q[i].at <= q[m].at {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// unqueue takes c off the flush list and out of the heap: c is leaving
// this zone's hands, and the zone must not read it again (another zone
// may own it next). Its heap entries stay in place, emptied, so that the
// heap's order holds.
func (z *Zone) unqueue(c *Char) {
	p := c.pl
	if p == nil {
		return
	}
	p.urgent = false // its urgentList entry is passed over
	if p.queued {
		p.queued, p.lazy = false, false
		z.waiting--
	}
	if i := slices.Index(z.flushList, c); i >= 0 {
		z.flushList = slices.Delete(z.flushList, i, i+1)
	}
	for i := range z.flushWait {
		if p.waits == 0 {
			break
		}
		if z.flushWait[i].c == c {
			z.flushWait[i].c = nil
			p.waits--
		}
	}
}

// causeOf is why c's waiting output goes now, for a flush of the batch's
// or of a gap that fell due (not an answer): news if all of it is news,
// else talk, or gathered if it is in a crowded room (where it waited out
// the gap, unless the gap was over already).
func (z *Zone) causeOf(c *Char) flushCause {
	switch {
	case c.pl.lazy:
		return flushNews
	case z.crowded(c.room):
		return flushGathered
	}
	return flushTalk
}

// flushOne hands c's waiting output to its session, ending it with a
// prompt unless cause is flushOther (the player is on their way
// elsewhere). The session decides how the prompt meets the text around it
// (a blank line before it, a fresh line after it), and merges what it has
// not written yet. A session that is closing drops it; its reader reports
// the drop.
func (z *Zone) flushOne(c *Char, cause flushCause) {
	p := c.pl
	if p == nil || !p.queued {
		return
	}
	prompt := cause != flushOther
	p.queued, p.lazy = false, false
	z.waiting--
	if p.await != 0 {
		prompt = false // the prompt waits for the answer (later)
	}
	if p.sess == nil || (!prompt && len(p.out) == 0) {
		if p.sess != nil {
			for _, h := range p.gmcpHeld {
				p.sess.GMCP(h.pkg, h.data)
			}
		}
		z.freeOut(p)
		return
	}
	// What GMCP says of this text, and the vitals at its prompt, go in the
	// burst of its Write.
	for _, h := range p.gmcpHeld {
		gmcpWithWrite(p.sess, h.pkg, h.data)
	}
	if prompt {
		p.out = z.appendPrompt(p.out, c)
		z.sendVitals(c, false, true)
		z.publishParty(c, false)
	}
	// The round trip is counted before the write: a burst may be written
	// on this goroutine, and a client that has its answer may look at the
	// count at once.
	if prompt && !p.inputAt.IsZero() {
		z.met.roundTrip.Observe(time.Since(p.inputAt).Seconds())
		p.inputAt = time.Time{}
	}
	z.met.flushes[cause].Inc()
	p.sess.Write(p.out, prompt)
	if len(p.snoopers) > 0 {
		z.snoopOut(c, p.out)
	}
	z.freeOut(p)
}

// Output buffers: a player holds one only while output waits for the
// flush; the session copies it, and it goes back to the zone's spares, so
// an idle player holds none.
const (
	outSpares   = 64   // spare buffers a zone keeps
	outSpareCap = 4096 // the largest kept
)

// outBuf is an empty output buffer, a spare if there is one.
func (z *Zone) outBuf() []byte {
	if n := len(z.outFree); n > 0 {
		b := z.outFree[n-1]
		z.outFree[n-1] = nil
		z.outFree = z.outFree[:n-1]
		return b
	}
	return make([]byte, 0, 256)
}

// freeOut takes p's buffer back for the zone's spares.
func (z *Zone) freeOut(p *Player) {
	clear(p.gmcpHeld)
	p.gmcpHeld = p.gmcpHeld[:0]
	b := p.out
	p.out = nil
	if b != nil && cap(b) <= outSpareCap && len(z.outFree) < outSpares {
		z.outFree = append(z.outFree, b[:0])
	}
}
