package telnet

import "compress/zlib"

// MCCP2, the MUD Client Compression Protocol v2
// (tintin.mudhalla.net/protocols/mccp). The server offers WILL MCCP2; after
// DO MCCP2 it sends IAC SB MCCP2 IAC SE uncompressed and everything after it
// as one zlib stream (RFC 1950, not raw deflate), sync-flushed after each
// burst. Z_FINISH ends the stream and the connection goes on uncompressed.
//
// The decoder returns CompressRequested on DO MCCP2 and CompressStopped on
// DONT MCCP2 after it was on; the gate makes the writer call
// StartCompression and StopCompression in the order the events came.

// mccpLevel trades CPU for bandwidth; zlib's default level keeps most of the
// 75 to 90 percent that MUD text compresses by.
const mccpLevel = zlib.DefaultCompression

// mccpChangedLocked tells the gate to start or stop compressing.
func (o *Options) mccpChangedLocked(wasOn, isOn bool, out *outbox) {
	o.mccp2.Store(isOn)
	switch {
	case isOn && !wasOn:
		out.emit(CompressRequested{})
	case wasOn && !isOn:
		out.emit(CompressStopped{})
	}
}

// StartCompression writes IAC SB MCCP2 IAC SE uncompressed and compresses
// everything written after it. It does nothing if output is compressed
// already, or if MCCP2 is not agreed (any more): a DONT MCCP2 that raced the
// request wins.
func (e *Encoder) StartCompression() error {
	if e.compressing.Load() || !e.o.MCCP2() {
		return nil
	}
	if _, err := (*plain)(e).Write([]byte{IAC, SB, OptMCCP2, IAC, SE}); err != nil {
		return err
	}
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel((*plain)(e), mccpLevel)
		if err != nil {
			return err
		}
		e.zw = zw
	} else {
		e.zw.Reset((*plain)(e))
	}
	e.compressing.Store(true)
	return nil
}

// StopCompression ends the compressed stream (zlib Close, Z_FINISH) and goes
// on uncompressed. It does nothing if output is not compressed.
func (e *Encoder) StopCompression() error {
	if !e.compressing.Load() {
		return nil
	}
	e.compressing.Store(false)
	e.scratch = nil
	return e.zw.Close()
}

// Compressing reports whether output is compressed now. It is safe from any
// goroutine.
func (e *Encoder) Compressing() bool { return e.compressing.Load() }
