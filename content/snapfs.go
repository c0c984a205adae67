package content

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"unicode/utf8"
)

// errTooLarge refuses a file past maxFileBytes without reading the rest.
var errTooLarge = errors.New("content: file too large")

// errNotRegular refuses a named pipe, a device or a socket: reading one
// could block a load for ever.
var errNotRegular = errors.New("content: not a regular file")

// snapFS reads the areas folder for one load. Each file is read at most
// once and kept, so every part of a load (decoding, finding lines for
// messages) sees the same bytes even if an editor is writing the file
// meanwhile. Only regular files (symlinks followed) of at most
// maxFileBytes are read.
type snapFS struct {
	root fs.FS

	mu    sync.Mutex
	files map[string]snapFile // guarded by mu
}

type snapFile struct {
	data []byte
	err  error
}

func newSnapFS(root fs.FS) *snapFS {
	if s, ok := root.(*snapFS); ok {
		return s
	}
	return &snapFS{root: root, files: map[string]snapFile{}}
}

func (s *snapFS) Open(name string) (fs.File, error) { return s.root.Open(name) }

func (s *snapFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.root, name) }

// ReadFile returns the file's bytes as first read.
func (s *snapFS) ReadFile(name string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[name]; ok {
		return f.data, f.err
	}
	data, err := readLimited(s.root, name, maxFileBytes)
	s.files[name] = snapFile{data: data, err: err}
	return data, err
}

// readLimited reads a regular file of at most limit bytes. It stats the
// file before opening it, so a pipe is never opened, and reads at most
// limit+1 bytes, so a file that grows meanwhile is caught too.
func readLimited(root fs.FS, name string, limit int64) ([]byte, error) {
	fi, err := fs.Stat(root, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: %d bytes", errTooLarge, fi.Size())
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", errTooLarge, limit)
	}
	return data, nil
}

// readProblem says why a file could not be read, in a builder's words.
func readProblem(err error) string {
	switch {
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("file is too large (%s); the limit is %d bytes", strings.TrimPrefix(err.Error(), errTooLarge.Error()+": "), maxFileBytes)
	case errors.Is(err, errNotRegular):
		return "not a regular file; only plain files are read"
	case strings.Contains(err.Error(), "too many levels of symbolic links"):
		return "cannot read: a symbolic link that loops (too many levels of symbolic links)"
	}
	return "cannot read: " + err.Error()
}

// badUTF8Line is the line of the first byte that is not UTF-8.
func badUTF8Line(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if data[i] == '\n' {
			line++
		}
		i += n
	}
	return line
}
