package gate

import (
	"encoding/binary"
	"errors"

	"zonemud/internal/queue"
)

// Output frames, as queued for a session's writer goroutine.
const (
	frameText       byte = iota + 1 // text with colour markup
	framePrompt                     // text ending in a prompt
	frameRaw                        // protocol bytes, written as they are
	frameClose                      // last text; then the connection closes
	frameCompress                   // start MCCP2
	frameDecompress                 // end MCCP2
	frameQuestion                   // a login question: a prompt shown as it is
)

// outQueue is a session's bounded output queue. Zones and the reader put
// frames in; only the writer goroutine takes them out. A put never blocks:
// when the queue would pass its limit the put fails, and the session closes
// the connection rather than let a client that does not read stall anyone.
// Frames are packed into one byte slice ([kind][len u32][data]) that the
// writer takes whole, so steady traffic allocates nothing.
type outQueue struct {
	*queue.Queue[byte]
}

// outPool holds the drained output buffers of every session: an idle
// session holds none, and a burst's big one is let go.
var outPool = queue.Pool[byte]{MaxCap: 16 << 10}

func newOutQueue(limit int) outQueue {
	return outQueue{queue.New(queue.Options[byte]{Limit: limit, Pool: &outPool})}
}

// put queues one frame. It reports false if the session is closing, or if
// the frame would pass the limit (overflow is then true). A close frame
// goes in whatever the limit, and nothing goes in after it.
func (q outQueue) put(kind byte, p []byte) (ok, overflow bool) {
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if kind == frameClose {
		return q.Close(h[:], p), false
	}
	err := q.Append(h[:], p)
	return err == nil, errors.Is(err, queue.ErrFull)
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
