package gate

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
	"zonemud/internal/run"
)

// The writer: the only code that writes a session's connection. It runs
// while output is queued and leaves the session when the queue is empty,
// so an idle session has no writer goroutine and holds no output buffer.
// A writer that left a session waits up to writerIdle for the next session
// that needs one (at most idleWriters wait), instead of a new goroutine
// being started for every burst: in a busy world that saves a goroutine's
// start and the growth of its stack to the depth a write needs, per
// burst. Each run
// takes everything queued at once and writes it as one burst: the text of
// every frame, rendered for this client's colour level, and at the end the
// one prompt the burst owes, in one write to the socket. A burst that
// cannot be written within the write timeout (a client that stopped
// reading) ends the connection.

// writerState is the writer's view of the client's screen. Only the running
// writer touches it; the writing flag hands it from one run to the next.
type writerState struct {
	atPrompt  bool      // the last thing written was a prompt, the cursor after it
	textSince bool      // text was written since the last prompt
	deadline  time.Time // the write deadline last set on the connection
	counted   [3]uint64 // the connection's counts as of the last burst (conn.counts)
}

// writerLabels marks writer goroutines in profiles.
var writerLabels = run.NewLabels("session", "writer")

// Idle writers: how many may wait for work, and for how long.
const (
	idleWriters = 1024
	writerIdle  = time.Second
)

// startWriter hands s to a waiting writer, or runs its writer on a
// goroutine of its own, tracked for shutdown.
func (g *Gate) startWriter(s *Session) {
	select {
	case g.idleW <- s:
	default:
		g.writersStarted.Add(1)
		g.gr.GoWith(writerLabels, func() { g.writer(s) })
	}
}

// writer drains s, then waits for another session to drain, until none
// comes within writerIdle, idleWriters others already wait, or the gate
// is waited for at shutdown. A write that blocks on a slow client holds
// only its own writer: the others, and new goroutines, serve the rest.
func (g *Gate) writer(s *Session) {
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		s.drain()
		select {
		case <-g.stopIdle:
			return
		default:
		}
		if g.idleN.Add(1) > idleWriters {
			g.idleN.Add(-1)
			return
		}
		if t == nil {
			t = time.NewTimer(writerIdle)
		} else {
			t.Reset(writerIdle)
		}
		select {
		case s = <-g.idleW:
			g.idleN.Add(-1)
		case <-t.C:
			g.idleN.Add(-1)
			return
		case <-g.stopIdle:
			g.idleN.Add(-1)
			return
		}
	}
}

// drain writes bursts until the queue is empty, then lets the next Write
// start a writer again. After the last frame (Close) or a failed write it
// closes the connection, and no writer starts again.
func (s *Session) drain() {
	in, inline := s.c.(inliner)
	inline = inline && in.inlines()
	if inline {
		s.refreshDeadline() // the leftover gets the whole write timeout, as a burst does
		if err := in.writePending(); err != nil {
			s.burstEnded(err)
			return
		}
	}
	for {
		frames := s.out.Pop()
		if len(frames) == 0 {
			if inline {
				s.clearDeadline()
			}
			s.writing.Store(false)
			// A Write between the Pop and the Store saw a writer running
			// and started none: look again.
			if s.out.Len() == 0 || !s.writing.CompareAndSwap(false, true) {
				return
			}
			continue
		}
		s.refreshDeadline()
		closing, err := s.writeBurst(frames)
		s.out.Recycle(frames)
		if closing || err != nil {
			s.burstEnded(err)
			return
		}
	}
}

// burstEnded closes the connection after the last frame or a failed write.
func (s *Session) burstEnded(err error) {
	if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
		s.g.log.Debug("gate: a write failed; closing", logev.ID(2007), logev.Session(s.id), logev.Remote(s.c.remote()), "err", err)
	}
	s.finish()
}

// finish closes the connection for good: nothing more is queued or
// written, and whatever was still queued is dropped.
func (s *Session) finish() {
	s.closed.Store(true)
	s.out.Close()
	s.out.Recycle(s.out.Pop())
	_ = s.c.close()
	s.gone.Store(true)
	close(s.done)
}

// renderPool holds the buffers colour markup is rendered into.
var renderPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// writeBurst writes one take of frames and flushes them. It reports
// whether the burst held the last frame.
func (s *Session) writeBurst(frames []byte) (closing bool, err error) {
	level := s.colorLevel()
	bp := renderPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 64<<10 {
			*bp = (*bp)[:0]
			renderPool.Put(bp)
		}
	}()
	// owed is the prompt the burst ends with: the last prompt queued,
	// unless text came after it. A prompt with more output right behind it
	// is not written at all.
	var owed []byte
	var owedKind byte
	lines := 0
	for b := frames; len(b) > 0 && err == nil && !closing; {
		kind, data, rest, ok := nextFrame(b)
		if !ok {
			break
		}
		b = rest
		switch kind {
		case frameText, framePrompt, frameQuestion, frameClose:
			body, prompt := data, []byte(nil)
			if kind == framePrompt || kind == frameQuestion {
				i := bytes.LastIndexByte(data, '\n')
				body, prompt = data[:i+1], data[i+1:]
			}
			if len(body) > 0 {
				err = s.writeText(bp, body, level)
				lines += bytes.Count(body, newline)
				owed = nil
			}
			if prompt != nil {
				owed, owedKind = prompt, kind
			}
			closing = kind == frameClose
		case frameRaw:
			err = s.c.writeRaw(data)
		case frameCompress:
			if err = s.c.flush(); err == nil {
				err = s.c.startCompress()
			}
		case frameDecompress:
			err = s.c.stopCompress()
		}
	}
	if err == nil && owed != nil && !closing {
		err = s.writePrompt(bp, owed, owedKind == framePrompt, level)
	}
	if err == nil {
		if closing {
			err = s.c.stopCompress()
		}
		if ferr := s.c.flush(); err == nil {
			err = ferr
		}
	}
	s.g.bursts.Add(1)
	s.g.lines.Add(uint64(lines))
	s.g.met.burst(s, lines)
	return closing, err
}

// leavePrompt starts a fresh line if the cursor sits after a prompt, unless
// the player has pressed Enter since. SSH's line editor redraws its prompt
// around output itself.
func (s *Session) leavePrompt() error {
	if !s.w.atPrompt {
		return nil
	}
	s.w.atPrompt = false
	if s.typed.Swap(false) || s.c.kind() == "ssh" {
		return nil
	}
	return s.c.writeText(newline)
}

var newline = []byte("\n")

func (s *Session) writeText(bp *[]byte, body []byte, level markup.Level) error {
	if err := s.leavePrompt(); err != nil {
		return err
	}
	*bp = markup.Render((*bp)[:0], body, level)
	s.w.textSince = true
	return s.c.writeText(*bp)
}

// writePrompt writes the burst's prompt: after a blank line if text came
// since the last one (a game prompt), marked for the client (EOR or GA).
func (s *Session) writePrompt(bp *[]byte, prompt []byte, blank bool, level markup.Level) error {
	if err := s.leavePrompt(); err != nil {
		return err
	}
	*bp = (*bp)[:0]
	if blank && s.w.textSince {
		*bp = append(*bp, '\n')
	}
	*bp = markup.Render(*bp, prompt, level)
	s.typed.Store(false) // a line from here on was typed at this prompt
	s.w.atPrompt, s.w.textSince = true, false
	return s.c.writePrompt(*bp)
}

// The write deadline of a connection that can be written inline (direct.go)
// is armed only while a writer goroutine writes it: an inline write never
// waits, so it needs none, and a deadline left armed on each of 10,000 idle
// connections is 10,000 timers in the runtime's heaps, which every timer
// change near the present makes it walk (runtime.(*timers).adjust was 3 %
// of the server in spread, docs/PERFORMANCE.md). It is cleared before the
// writer lets the session go, also because an armed deadline that passed
// would fail the next inline write.

// refreshDeadline keeps the write deadline between half the write timeout
// and the whole of it ahead: a burst that cannot be written within that
// ends the connection, and a steady stream of bursts costs a deadline
// change only every half timeout rather than one per burst.
func (s *Session) refreshDeadline() {
	timeout := time.Duration(s.g.cfg.WriteTimeoutSecs) * time.Second
	now := time.Now()
	if s.w.deadline.Sub(now) >= timeout/2 {
		return
	}
	s.w.deadline = now.Add(timeout)
	_ = s.c.setWriteDeadline(s.w.deadline)
}

// clearDeadline disarms the write deadline, if one is armed. Only the
// holder of the writing flag calls it.
func (s *Session) clearDeadline() {
	if s.w.deadline.IsZero() {
		return
	}
	s.w.deadline = time.Time{}
	_ = s.c.setWriteDeadline(time.Time{})
}
