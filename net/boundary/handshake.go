package boundary

import (
	"errors"
	"fmt"
)

// ErrRefused is a handshake the game turned down, or one with no version
// both sides speak.
var ErrRefused = errors.New("boundary: handshake refused")

// Greet is the holder's side of the handshake: it sends Hello and reads
// the game's answer. It returns the version chosen and the game's build.
func Greet(r *Reader, w *Writer, build string) (version uint32, gameBuild string, err error) {
	if err := w.WriteFlush(&Hello{Min: MinVersion, Max: Version, Build: build}); err != nil {
		return 0, "", err
	}
	f, err := r.Read()
	if err != nil {
		return 0, "", err
	}
	switch a := f.(type) {
	case *Welcome:
		if a.Version < MinVersion || a.Version > Version {
			return 0, "", fmt.Errorf("%w: the game chose version %d, outside %d..%d", ErrRefused, a.Version, MinVersion, Version)
		}
		return a.Version, a.Build, nil
	case *Refuse:
		return 0, "", fmt.Errorf("%w: %s", ErrRefused, a.Reason)
	}
	return 0, "", fmt.Errorf("%w: %T before the handshake's answer", ErrMalformed, f)
}

// Answer is the game's side of the handshake: it reads Hello and answers
// Welcome with the highest version both speak, or Refuse. It returns the
// version and the holder's build.
func Answer(r *Reader, w *Writer, build string) (version uint32, holderBuild string, err error) {
	f, err := r.Read()
	if err != nil {
		return 0, "", err
	}
	h, ok := f.(*Hello)
	if !ok {
		_ = w.WriteFlush(&Refuse{Reason: "the link must open with Hello"})
		return 0, "", fmt.Errorf("%w: %T before Hello", ErrMalformed, f)
	}
	v := min(h.Max, Version)
	if v < h.Min || v < MinVersion {
		why := fmt.Sprintf("the holder speaks versions %d..%d, this game %d..%d", h.Min, h.Max, MinVersion, Version)
		_ = w.WriteFlush(&Refuse{Reason: why})
		return 0, h.Build, fmt.Errorf("%w: %s", ErrRefused, why)
	}
	if err := w.WriteFlush(&Welcome{Version: v, Build: build}); err != nil {
		return 0, h.Build, err
	}
	return v, h.Build, nil
}
