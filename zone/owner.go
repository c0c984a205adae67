package zone

import (
	"bytes"
	"runtime"
	"strconv"
	"sync/atomic"
)

// ownerCheck is a goroutine lock in the manner of x/net/http2's
// goroutineLock: check panics when zone state is touched from a goroutine
// that is not the zone's. It is on in tests and when MUD_DEBUG_GOROUTINES=1,
// and costs nothing otherwise.
type ownerCheck struct {
	id atomic.Uint64 // atomic: set by Run, read by check on any goroutine
}

// debugOwner is set from export_test.go and from the environment at start.
var debugOwner = false

func (o *ownerCheck) claim() {
	if debugOwner {
		o.id.Store(curGoroutineID())
	}
}

func (o *ownerCheck) check() {
	if !debugOwner {
		return
	}
	if id := o.id.Load(); id != 0 && id != curGoroutineID() {
		panic("zone: state touched from a goroutine that is not the zone's")
	}
}

var goroutineSpace = []byte("goroutine ")

func curGoroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, goroutineSpace)
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	n, _ := strconv.ParseUint(string(b), 10, 64)
	return n
}
