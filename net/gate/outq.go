package gate

import (
	"encoding/binary"
	"sync"
)

// Output frames, as queued for a session's writer goroutine.
const (
	frameText       byte = iota + 1 // text with colour markup
	framePrompt                     // text ending in a prompt
	frameRaw                        // protocol bytes, written as they are
	frameClose                      // last text; then the connection closes
	frameCompress                   // start MCCP2
	frameDecompress                 // end MCCP2
)

// outQueue is a session's bounded output queue. Zones and the reader put
// frames in; only the writer goroutine takes them out. A put never blocks:
// when the queue would pass its limit the put fails, and the session closes
// the connection rather than let a client that does not read stall anyone.
// Frames are packed into one byte slice ([kind][len u32][data]) that the
// writer swaps for an empty one, so steady traffic allocates nothing.
type outQueue struct {
	mu      sync.Mutex
	buf     []byte // guarded by mu
	spare   []byte // guarded by mu
	limit   int    // immutable
	closing bool   // guarded by mu: a close frame is queued
	signal  chan struct{}
}

func newOutQueue(limit int) *outQueue {
	return &outQueue{limit: limit, signal: make(chan struct{}, 1)}
}

// put queues one frame. It reports false if the session is closing, or if
// the frame would pass the limit (overflow is then true).
func (q *outQueue) put(kind byte, p []byte) (ok, overflow bool) {
	q.mu.Lock()
	if q.closing {
		q.mu.Unlock()
		return false, false
	}
	if kind == frameClose {
		q.closing = true
	} else if len(q.buf)+5+len(p) > q.limit {
		q.mu.Unlock()
		return false, true
	}
	q.buf = append(q.buf, kind)
	q.buf = binary.BigEndian.AppendUint32(q.buf, uint32(len(p)))
	q.buf = append(q.buf, p...)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return true, false
}

// take returns the queued frames; hand the slice back with recycle.
func (q *outQueue) take() []byte {
	q.mu.Lock()
	b := q.buf
	q.buf = q.spare[:0]
	q.spare = nil
	q.mu.Unlock()
	return b
}

func (q *outQueue) recycle(b []byte) {
	if cap(b) > 2048 {
		return // keep idle sessions small
	}
	q.mu.Lock()
	if q.spare == nil {
		q.spare = b[:0]
	}
	q.mu.Unlock()
}

// nextFrame splits the first frame off b.
func nextFrame(b []byte) (kind byte, data, rest []byte, ok bool) {
	if len(b) < 5 {
		return 0, nil, nil, false
	}
	n := int(binary.BigEndian.Uint32(b[1:5]))
	if len(b) < 5+n {
		return 0, nil, nil, false
	}
	return b[0], b[5 : 5+n], b[5+n:], true
}
