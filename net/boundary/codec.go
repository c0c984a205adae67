package boundary

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ErrTooBig is a frame whose body would pass MaxFrame.
var ErrTooBig = errors.New("boundary: frame over the size bound")

// Append appends f, framed, to dst. A frame whose body would pass
// MaxFrame is refused with ErrTooBig and dst is returned as it was.
func Append(dst []byte, f Frame) ([]byte, error) {
	start := len(dst)
	e := enc{b: append(dst, 0, 0, 0, 0, byte(f.Kind()))}
	f.put(&e)
	n := len(e.b) - start - 4
	if n > MaxFrame {
		return dst[:start], fmt.Errorf("%w: %d bytes of %T", ErrTooBig, n, f)
	}
	binary.BigEndian.PutUint32(e.b[start:], uint32(n))
	return e.b, nil
}

// Decode reads one frame from the front of b: the frame and the bytes it
// took. If b holds only part of a frame it returns io.ErrUnexpectedEOF
// (io.EOF if b is empty); a frame that does not decode is ErrMalformed.
// The frame shares no memory with b.
func Decode(b []byte) (Frame, int, error) {
	if len(b) == 0 {
		return nil, 0, io.EOF
	}
	if len(b) < 4 {
		return nil, 0, io.ErrUnexpectedEOF
	}
	n := binary.BigEndian.Uint32(b)
	if err := checkLen(n); err != nil {
		return nil, 0, err
	}
	if uint64(len(b)-4) < uint64(n) {
		return nil, 0, io.ErrUnexpectedEOF
	}
	f, err := decodeBody(b[4 : 4+n])
	if err != nil {
		return nil, 0, err
	}
	return f, 4 + int(n), nil
}

func checkLen(n uint32) error {
	if n == 0 || n > MaxFrame {
		return fmt.Errorf("%w: a body of %d bytes", ErrMalformed, n)
	}
	return nil
}

// decodeBody decodes a frame's kind and fields, all of body and no more.
func decodeBody(body []byte) (Frame, error) {
	f := newFrame(Kind(body[0]))
	if f == nil {
		return nil, fmt.Errorf("%w: unknown kind %d", ErrMalformed, body[0])
	}
	d := dec{b: body[1:]}
	f.get(&d)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes after the fields of kind %d", len(d.b), body[0])
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// Reader reads frames from a stream. One goroutine only.
type Reader struct {
	r   *bufio.Reader
	buf []byte
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Read returns the next frame: io.EOF at a clean end of the stream,
// io.ErrUnexpectedEOF if it ends inside a frame, ErrMalformed for a frame
// that does not decode (the stream cannot be trusted after it).
func (r *Reader) Read() (Frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if err := checkLen(n); err != nil {
		return nil, err
	}
	r.buf = slices.Grow(r.buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	f, err := decodeBody(r.buf)
	if cap(r.buf) > 256<<10 {
		r.buf = nil // one big frame does not pin its buffer
	}
	return f, err
}

// Writer writes frames to a stream, buffered: Flush sends them. One
// goroutine at a time.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write queues f; a frame past the bound is refused (ErrTooBig) and
// nothing is queued.
func (w *Writer) Write(f Frame) error {
	b, err := Append(w.buf, f)
	w.buf = b
	return err
}

// Buffered is the number of bytes queued.
func (w *Writer) Buffered() int { return len(w.buf) }

// Flush writes every queued frame.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > 256<<10 {
		w.buf = nil
	} else {
		w.buf = w.buf[:0]
	}
	return err
}

// Take returns the queued bytes and forgets them, for a caller that writes
// them itself outside the lock that guards the Writer (so that queueing a
// frame never waits on the socket); Reuse hands the slice back after.
func (w *Writer) Take() []byte {
	b := w.buf
	w.buf = nil
	return b
}

// Reuse gives the Writer b's storage for its next frames, if it has none
// yet and b is not too big to keep.
func (w *Writer) Reuse(b []byte) {
	if w.buf == nil && cap(b) <= 256<<10 {
		w.buf = b[:0]
	}
}

// WriteFlush writes f and flushes.
func (w *Writer) WriteFlush(f Frame) error {
	if err := w.Write(f); err != nil {
		return err
	}
	return w.Flush()
}
