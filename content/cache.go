package content

import (
	"reflect"
	"sync"
)

// Cache keeps the decoded form of each area file between loads (see
// LoadCached). A decoded file is never written to once decoded, so two
// sets loaded through one cache may share parts of it: they are read
// only, like every prototype.
type Cache struct {
	mu    sync.Mutex
	files map[string]*cached // guarded by mu: by file name
}

// cached is one file as last decoded.
type cached struct {
	sum   [32]byte
	v     any       // a pointer to what it decoded into
	probs []Problem // what decoding it found wrong
	ok    bool      // it decoded
	used  bool      // asked for since the last prune
	lines lineIndex // where its keys are written, once a load needed it
}

// get copies the cached decoding of name into v, if the file's bytes and
// v's type are those it was decoded from.
func (c *Cache) get(name string, sum [32]byte, v any) (*cached, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.files[name]
	if e == nil || e.sum != sum || reflect.TypeOf(e.v) != reflect.TypeOf(v) {
		return nil, false
	}
	e.used = true
	reflect.ValueOf(v).Elem().Set(reflect.ValueOf(e.v).Elem())
	return e, true
}

// index is the line index of a file with these bytes.
func (c *Cache) index(name string, sum [32]byte, data []byte) lineIndex {
	if c == nil {
		return scanLines(string(data))
	}
	c.mu.Lock()
	e := c.files[name]
	if e != nil && e.sum == sum && e.lines != nil {
		c.mu.Unlock()
		return e.lines
	}
	c.mu.Unlock()
	idx := scanLines(string(data))
	c.mu.Lock()
	if e := c.files[name]; e != nil && e.sum == sum {
		e.lines = idx
	}
	c.mu.Unlock()
	return idx
}

// put keeps a copy of what name decoded into.
func (c *Cache) put(name string, sum [32]byte, v any, probs []Problem, ok bool) {
	if c == nil {
		return
	}
	cp := reflect.New(reflect.TypeOf(v).Elem())
	cp.Elem().Set(reflect.ValueOf(v).Elem())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]*cached{}
	}
	c.files[name] = &cached{sum: sum, v: cp.Interface(), probs: probs, ok: ok, used: true}
}

// prune forgets the files no load asked for since the last prune: files
// that are gone.
func (c *Cache) prune() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, e := range c.files {
		if !e.used {
			delete(c.files, name)
		}
		e.used = false
	}
}
