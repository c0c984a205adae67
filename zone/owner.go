package zone

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// ownerCheck is a goroutine lock in the manner of x/net/http2's
// goroutineLock: check panics when zone state is touched from a goroutine
// that is not the zone's. Every path Run drives (handle, tick, tasks,
// flush, the mailbox drain, stop) checks. It is on in every test binary and
// when MUD_DEBUG_GOROUTINES=1, and costs one atomic load otherwise.
type ownerCheck struct {
	id atomic.Uint64 // atomic: set by Run, read by check on any goroutine
}

// debugOwner switches the check on. Test binaries have it on from the
// start (testing.Testing), so every test that runs a zone, through the
// world or an end-to-end server, is checked; benchmarks turn it off to
// measure what production runs.
var debugOwner atomic.Bool

func init() {
	debugOwner.Store(testing.Testing() || os.Getenv("MUD_DEBUG_GOROUTINES") == "1")
}

// SetOwnerCheck turns the owner check on or off for every zone from now
// on; benchmarks (here and in the world) turn it off to measure what
// production runs.
func SetOwnerCheck(on bool) { debugOwner.Store(on) }

func (o *ownerCheck) claim() {
	if debugOwner.Load() {
		o.id.Store(curGoroutineID())
	}
}

func (o *ownerCheck) check() {
	if !debugOwner.Load() {
		return
	}
	if id := o.id.Load(); id != 0 && id != curGoroutineID() {
		panic("zone: state touched from a goroutine that is not the zone's")
	}
}

var goroutineSpace = []byte("goroutine ")

// stackBufs holds the buffers curGoroutineID reads its stack header into,
// so a check allocates nothing and the pulse stays allocation-free in tests.
var stackBufs = sync.Pool{New: func() any { return new([64]byte) }}

func curGoroutineID() uint64 {
	buf := stackBufs.Get().(*[64]byte)
	defer stackBufs.Put(buf)
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, goroutineSpace)
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}
