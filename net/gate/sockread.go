package gate

import (
	"io"
	"net"
	"syscall"

	"zonemud/net/telnet"
)

// Reading in play without the read that finds nothing. Go's poller reads a
// socket until a read finds it empty, then waits: for a player who types a
// line every second or two that is two read system calls a line, one of
// them for nothing. A telnet session on a plain TCP socket in play is read
// instead inside one RawConn.Read for as long as it lasts: a read that
// returns less than it asked for emptied the socket, so the session waits
// for the poller's next word that the socket is readable rather than
// reading again to find out. The poller's word cannot be missed: it is
// only forgotten when a RawConn.Read begins (the runtime resets it then),
// and the one read here begins once, with a read. A word for bytes the
// session has already read costs one read that finds nothing, as before.

// sockReader is the telnet decoder's reader on a TCP socket. Outside play
// it reads through the net.Conn, blocking, under the login's read deadline.
// Inside readEach's callback it reads the descriptor without waiting and
// says telnet.ErrWouldBlock when there is nothing, or when its last read
// emptied the socket. The reader goroutine only.
type sockReader struct {
	c       net.Conn
	rc      syscall.RawConn
	fd      int  // the descriptor, while raw
	raw     bool // inside readEach's callback
	drained bool // the last raw read emptied the socket
}

func newSockReader(c net.Conn) *sockReader {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return &sockReader{c: c, rc: rc}
}

func (r *sockReader) Read(p []byte) (int, error) {
	if !r.raw {
		return r.c.Read(p)
	}
	if r.drained || len(p) == 0 {
		return 0, telnet.ErrWouldBlock
	}
	for {
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, telnet.ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		r.drained = n < len(p)
		return n, nil
	}
}

// readEach reads events until the connection ends or handle says to stop,
// handing each to handle. It reports whether handle stopped it; otherwise
// the connection ended (err says how). Only a telnet session on a TCP
// socket can (t.sr set); the reader goroutine only.
func (t *telnetConn) readEach(handle func(*event) bool) (stopped bool, err error) {
	r := t.sr
	var ended error
	rerr := r.rc.Read(func(fd uintptr) bool {
		// Called first as the read begins, then each time the poller says
		// the socket is readable: read at least once.
		r.fd, r.raw, r.drained = int(fd), true, false
		for {
			ev, err := t.next()
			if err == telnet.ErrWouldBlock {
				return false // wait for the poller
			}
			if err != nil {
				ended = err
				return true
			}
			if handle(&ev) {
				stopped = true
				return true
			}
		}
	})
	r.raw = false
	if ended == nil {
		ended = rerr
	}
	return stopped, ended
}

// eachReader is a conn that reads in play through readEach.
type eachReader interface {
	readsEach() bool
	readEach(handle func(*event) bool) (stopped bool, err error)
}

func (t *telnetConn) readsEach() bool { return t.sr != nil }
