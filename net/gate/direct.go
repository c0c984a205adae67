package gate

import (
	"errors"
	"net"
	"syscall"
)

// Writing on the caller's goroutine. A burst for a session with no writer
// running is written by whoever queued it (most often the zone flushing
// its players) when the connection is a telnet one on a plain TCP socket:
// one non-blocking write, which the socket takes whole unless the client
// is behind. Whatever it does not take is kept and a writer goroutine
// writes it, first, with the write timeout, as it writes every burst of a
// connection that is not this kind. In a spread world nearly every burst
// is a lone answer or a lone line, and handing each to a writer goroutine
// cost a wake-up and a switch on top of the write itself
// (docs/PERFORMANCE.md, issue 25).

// inliner is a conn that can write a burst on the caller's goroutine.
// Only the goroutine that holds the session's writing flag calls it.
type inliner interface {
	// inlines reports whether the connection is ever written inline (a
	// plain TCP socket); its writes are otherwise all the writer's.
	inlines() bool
	// beginInline makes the writes until endInline non-blocking; false if
	// that cannot be done now (bytes of an earlier burst still wait).
	beginInline() bool
	// endInline ends it, reporting whether bytes wait for the writer.
	endInline() (pending bool)
	// writePending writes, blocking under the write deadline, what an
	// inline burst left.
	writePending() error
}

// directWriter is the telnet encoder's writer over a TCP socket.
type directWriter struct {
	c       net.Conn
	rc      syscall.RawConn
	inline  bool
	pending []byte // what the socket did not take of an inline burst
	// The raw write's state, kept here so that the function handed to
	// the RawConn is made once and a write allocates nothing.
	raw   func(fd uintptr) bool
	p     []byte
	n     int
	rawEr error
}

func newDirectWriter(c net.Conn) *directWriter {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &directWriter{c: c, rc: rc}
	w.raw = w.rawWrite
	return w
}

// pendingCap is the most kept between bursts for reuse.
const pendingCap = 16 << 10

func (w *directWriter) Write(p []byte) (int, error) {
	if !w.inline {
		if err := w.writePending(); err != nil {
			return 0, err
		}
		return w.c.Write(p)
	}
	if len(w.pending) > 0 {
		w.pending = append(w.pending, p...)
		return len(p), nil
	}
	n, err := w.tryWrite(p)
	if err != nil {
		return n, err
	}
	if n < len(p) {
		w.pending = append(w.pending, p[n:]...)
	}
	return len(p), nil
}

// tryWrite writes what the socket takes of p now, without waiting.
func (w *directWriter) tryWrite(p []byte) (int, error) {
	w.p, w.n, w.rawEr = p, 0, nil
	err := w.rc.Write(w.raw)
	n := w.n
	if err == nil {
		err = w.rawEr
	}
	w.p, w.rawEr = nil, nil
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		err = net.ErrClosed
	}
	return n, err
}

// rawWrite writes w.p from w.n on, until the socket takes no more.
func (w *directWriter) rawWrite(fd uintptr) bool {
	for w.n < len(w.p) {
		m, e := syscall.Write(int(fd), w.p[w.n:])
		if m > 0 {
			w.n += m
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
		case e != nil:
			w.rawEr = e
		case m > 0:
			continue
		}
		break
	}
	return true // never wait here: the writer goroutine does
}

func (w *directWriter) writePending() error {
	if len(w.pending) == 0 {
		return nil
	}
	_, err := w.c.Write(w.pending)
	if cap(w.pending) > pendingCap {
		w.pending = nil
	} else {
		w.pending = w.pending[:0]
	}
	return err
}

func (t *telnetConn) beginInline() bool {
	if t.dw == nil || len(t.dw.pending) > 0 {
		return false
	}
	t.dw.inline = true
	return true
}

func (t *telnetConn) inlines() bool { return t.dw != nil }

func (t *telnetConn) endInline() bool {
	t.dw.inline = false
	return len(t.dw.pending) > 0
}

func (t *telnetConn) writePending() error {
	if t.dw == nil {
		return nil
	}
	return t.dw.writePending()
}

// drainInline writes one burst on the caller's goroutine, which holds the
// writing flag (kick); what the socket did not take, and anything queued
// meanwhile, it leaves to a writer goroutine.
func (s *Session) drainInline(in inliner) {
	var closing bool
	var err error
	if frames := s.out.Pop(); len(frames) > 0 {
		closing, err = s.writeBurst(frames)
		s.out.Recycle(frames)
	}
	pending := in.endInline()
	if closing || err != nil {
		s.burstEnded(err)
		return
	}
	if pending || s.out.Len() > 0 {
		s.g.startWriter(s)
		return
	}
	s.writing.Store(false)
	// A Write between the Len and the Store saw a writer running and
	// started none: look again.
	if s.out.Len() > 0 && s.writing.CompareAndSwap(false, true) {
		s.g.startWriter(s)
	}
}
