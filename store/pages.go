package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The checks in this file read the bbolt file with ReadAt, not through
// bbolt's memory map. A damaged page that points past the end of the file
// makes a read through the map fault (SIGBUS), and a branch page that points
// back at its ancestor makes bbolt's own walks loop until the stack runs
// out; ReadAt returns an error instead, and the walk here refuses a page it
// has reached before. They prove what bbolt's reads rely on: a valid meta
// page, a file as long as the meta page says, a freelist inside it, and a
// page tree in which every page, key and value lies inside the file and no
// page is reached twice. Only then do bbolt's check and the census read the
// file through the map.

// The bbolt file format (version 2), as go.etcd.io/bbolt writes it, in the
// byte order of the machine that wrote it.
const (
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	elemSize         = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	inBucketSize     = 16 // root pgid u64, sequence u64
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	noFreelist       = ^uint64(0)
	metaSize         = 64 // magic .. checksum, after the page header
)

var ne = binary.NativeEndian

// boltMeta is one meta page: the root of one committed transaction.
type boltMeta struct {
	valid    bool
	why      string // why it is not valid
	pageSize uint32
	root     uint64 // page of the root bucket
	freelist uint64 // page of the freelist, or noFreelist
	hwm      uint64 // pages in use: every page id is below it
	txid     uint64
}

// parseMeta reads a meta page from the start of b, checking it as bbolt
// does: magic, version and checksum.
func parseMeta(b []byte) boltMeta {
	if len(b) < pageHeaderSize+metaSize {
		return boltMeta{why: "cut short"}
	}
	m := b[pageHeaderSize:]
	bm := boltMeta{
		pageSize: ne.Uint32(m[8:]),
		root:     ne.Uint64(m[16:]),
		freelist: ne.Uint64(m[32:]),
		hwm:      ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
	}
	h := fnv.New64a()
	h.Write(m[:56])
	switch {
	case ne.Uint32(m[0:]) != boltMagic:
		bm.why = "not a bbolt meta page (bad magic number)"
	case ne.Uint32(m[4:]) != boltVersion:
		bm.why = fmt.Sprintf("bbolt format version %d, not %d", ne.Uint32(m[4:]), boltVersion)
	case ne.Uint64(m[56:]) != h.Sum64():
		bm.why = "checksum mismatch"
	default:
		bm.valid = true
	}
	return bm
}

// layout is what the meta pages say about a file.
type layout struct {
	size     int64
	pageSize int
	meta     boltMeta // the meta page bbolt uses
	note     string   // set when one meta page is damaged and the other is used
}

// readLayout finds the page size and the meta page bbolt will use, and
// checks that the file holds every page that meta page counts and that its
// freelist lies inside the file.
func readLayout(f *os.File, size int64) (layout, error) {
	l := layout{size: size}
	buf := make([]byte, 4096)
	// The page size is in the first meta page, or failing that in the
	// second, which bbolt looks for at each power of two from 1 KiB.
	if n, _ := f.ReadAt(buf, 0); n >= pageHeaderSize+metaSize {
		if m := parseMeta(buf[:n]); m.valid {
			l.pageSize = int(m.pageSize)
		}
	}
	for i := 0; l.pageSize == 0 && i <= 14; i++ {
		pos := int64(1024) << i
		if pos >= size-1024 {
			break
		}
		if n, _ := f.ReadAt(buf, pos); n >= pageHeaderSize+metaSize {
			if m := parseMeta(buf[:n]); m.valid {
				l.pageSize = int(m.pageSize)
			}
		}
	}
	if l.pageSize == 0 {
		return l, damagef("both meta pages are damaged: neither is a valid bbolt meta page, so nothing in it can be found")
	}
	if l.pageSize < pageHeaderSize+metaSize || l.pageSize&(l.pageSize-1) != 0 {
		return l, damagef("its meta page gives a page size of %d bytes", l.pageSize)
	}
	if size < 2*int64(l.pageSize) {
		return l, damagef("it is %d bytes, shorter than its two meta pages", size)
	}
	var metas [2]boltMeta
	for i := range metas {
		n, err := f.ReadAt(buf[:pageHeaderSize+metaSize], int64(i*l.pageSize))
		if err != nil && err != io.EOF {
			return l, fmt.Errorf("read meta page %d: %w", i, err)
		}
		metas[i] = parseMeta(buf[:n])
	}
	// bbolt uses the meta page of the later transaction if it is valid,
	// else the other one.
	a, b := 0, 1
	if metas[1].txid > metas[0].txid {
		a, b = 1, 0
	}
	switch {
	case metas[a].valid:
		l.meta = metas[a]
		if !metas[b].valid {
			l.note = fmt.Sprintf("meta page %d is damaged (%s); the other one, of the later transaction %d, is used", b, metas[b].why, metas[a].txid)
		}
	case metas[b].valid:
		l.meta = metas[b]
		l.note = fmt.Sprintf("meta page %d is damaged (%s); bbolt falls back to meta page %d, of transaction %d: the last transaction written before the damage, if it was later, is lost", a, metas[a].why, b, metas[b].txid)
	default:
		return l, damagef("both meta pages are damaged (page 0: %s; page 1: %s)", metas[0].why, metas[1].why)
	}
	m := l.meta
	ps := uint64(l.pageSize)
	if m.hwm < 3 || m.hwm > uint64(size)/ps {
		if m.hwm >= 3 && m.hwm <= 1<<48 {
			return l, damagef("it is %d bytes, but its meta page counts %d pages of %d bytes (%d bytes): the end of the file is missing", size, m.hwm, ps, m.hwm*ps)
		}
		return l, damagef("its meta page counts %d pages, which cannot be", m.hwm)
	}
	if m.root < 2 || m.root >= m.hwm {
		return l, damagef("its meta page puts the root at page %d, outside its %d pages", m.root, m.hwm)
	}
	if m.freelist != noFreelist {
		if err := checkFreelist(f, l); err != nil {
			return l, err
		}
	}
	return l, nil
}

// checkFreelist checks that the freelist page, and every page id in it,
// lies inside the file.
func checkFreelist(f *os.File, l layout) error {
	m, ps := l.meta, uint64(l.pageSize)
	if m.freelist < 2 || m.freelist >= m.hwm {
		return damagef("its meta page puts the freelist at page %d, outside its %d pages", m.freelist, m.hwm)
	}
	hdr := make([]byte, pageHeaderSize+8)
	if _, err := f.ReadAt(hdr, int64(m.freelist*ps)); err != nil {
		return fmt.Errorf("read freelist page %d: %w", m.freelist, err)
	}
	id, flags, count, overflow := ne.Uint64(hdr), ne.Uint16(hdr[8:]), uint64(ne.Uint16(hdr[10:])), uint64(ne.Uint32(hdr[12:]))
	if id != m.freelist || flags != freelistPageFlag {
		return damagef("page %d should be the freelist but is not (id %d, flags %#x)", m.freelist, id, flags)
	}
	if m.freelist+overflow >= m.hwm {
		return damagef("the freelist at page %d runs %d pages past the end of the file", m.freelist, m.freelist+overflow+1-m.hwm)
	}
	skip := uint64(0)
	if count == 0xFFFF { // the real count is the first element
		count, skip = ne.Uint64(hdr[pageHeaderSize:]), 1
	}
	extent := (overflow + 1) * ps
	if count > m.hwm || pageHeaderSize+(skip+count)*8 > extent {
		return damagef("the freelist at page %d claims %d free pages, more than it can hold", m.freelist, count)
	}
	ids := make([]byte, count*8)
	if _, err := f.ReadAt(ids, int64(m.freelist*ps+pageHeaderSize+skip*8)); err != nil {
		return fmt.Errorf("read freelist: %w", err)
	}
	for i := uint64(0); i < count; i++ {
		if p := ne.Uint64(ids[i*8:]); p < 2 || p >= m.hwm {
			return damagef("the freelist names page %d, outside the file's %d pages", p, m.hwm)
		}
	}
	return nil
}

// pageWalk walks every bucket's page tree from the root, reading pages
// with ReadAt.
type pageWalk struct {
	f     *os.File
	ps    uint64
	hwm   uint64
	seen  []uint64 // bit per page reached
	pages uint64   // pages reached, overflow included
	buf   []byte   // the page being read
	err   error    // the read error behind a nil from read
	// shallow walks only the root bucket's tree and the meta bucket: the
	// pages a schema check reads.
	shallow bool
}

// walkPages checks the page tree of a file whose layout is known good,
// and returns the pages it reached.
func walkPages(f *os.File, l layout, shallow bool) (uint64, error) {
	w := &pageWalk{f: f, ps: uint64(l.pageSize), hwm: l.meta.hwm, seen: make([]uint64, (l.meta.hwm+63)/64), shallow: shallow}
	err := w.tree(l.meta.root, rootWhere)
	return w.pages, err
}

const rootWhere = "the root bucket"

// tree checks the page tree rooted at pgid, and the buckets in it.
func (w *pageWalk) tree(pgid uint64, where string) error {
	if pgid < 2 || pgid >= w.hwm {
		return damagef("%s points at page %d, outside the file's %d pages", where, pgid, w.hwm)
	}
	page := w.read(nil, pgid, w.ps)
	if page == nil {
		return w.err
	}
	id, overflow := ne.Uint64(page), uint64(ne.Uint32(page[12:]))
	if id != pgid {
		return damagef("page %d (in %s) calls itself page %d", pgid, where, id)
	}
	if pgid+overflow >= w.hwm {
		return damagef("page %d (in %s) runs %d pages past the end of the file", pgid, where, pgid+overflow+1-w.hwm)
	}
	for p := pgid; p <= pgid+overflow; p++ {
		if w.seen[p/64]&(1<<(p%64)) != 0 {
			return damagef("page %d (in %s) is reached twice", p, where)
		}
		w.seen[p/64] |= 1 << (p % 64)
	}
	w.pages += overflow + 1
	if overflow > 0 {
		if page = w.read(page, pgid, (overflow+1)*w.ps); page == nil {
			return w.err
		}
	}
	return w.page(page, pgid, where)
}

// read reads n bytes of the file from page pgid into the walk's buffer,
// keeping the bytes of have (a prefix already read). The buffer is reused:
// page copies what it needs before it walks further down.
func (w *pageWalk) read(have []byte, pgid, n uint64) []byte {
	if uint64(cap(w.buf)) < n {
		nb := make([]byte, n)
		copy(nb, have)
		w.buf = nb
	}
	b := w.buf[:n]
	if _, err := w.f.ReadAt(b[len(have):], int64(pgid*w.ps)+int64(len(have))); err != nil {
		w.err = fmt.Errorf("read page %d: %w", pgid, err)
		return nil
	}
	return b
}

// page checks one page (or an inline bucket's page, pgid 0) and walks down
// from it.
func (w *pageWalk) page(page []byte, pgid uint64, where string) error {
	flags, count := ne.Uint16(page[8:]), uint64(ne.Uint16(page[10:]))
	extent := uint64(len(page))
	if pageHeaderSize+count*elemSize > extent {
		return damagef("page %d (in %s) claims %d elements, more than it can hold", pgid, where, count)
	}
	inside := func(i, pos, n uint64) bool {
		start := pageHeaderSize + i*elemSize + pos
		return start >= pageHeaderSize && start+n <= extent
	}
	switch flags {
	case branchPageFlag:
		if pgid == 0 {
			return damagef("an inline bucket in %s holds a branch page", where)
		}
		if count == 0 {
			return damagef("branch page %d (in %s) is empty", pgid, where)
		}
		children := make([]uint64, 0, count)
		for i := uint64(0); i < count; i++ {
			e := page[pageHeaderSize+i*elemSize:]
			pos, ksize, child := uint64(ne.Uint32(e)), uint64(ne.Uint32(e[4:])), ne.Uint64(e[8:])
			if !inside(i, pos, ksize) {
				return damagef("element %d of page %d (in %s) lies outside the page", i, pgid, where)
			}
			children = append(children, child)
		}
		for _, c := range children {
			if err := w.tree(c, where); err != nil {
				return err
			}
		}
	case leafPageFlag:
		type sub struct {
			name  string
			value []byte
		}
		var subs []sub
		for i := uint64(0); i < count; i++ {
			e := page[pageHeaderSize+i*elemSize:]
			eflags, pos, ksize, vsize := ne.Uint32(e), uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
			if !inside(i, pos, ksize+vsize) {
				return damagef("element %d of page %d (in %s) lies outside the page", i, pgid, where)
			}
			if eflags&^bucketLeafFlag != 0 {
				return damagef("element %d of page %d (in %s) has unknown flags %#x", i, pgid, where, eflags)
			}
			if eflags&bucketLeafFlag != 0 {
				start := pageHeaderSize + i*elemSize + pos
				if w.shallow && where == rootWhere && string(page[start:start+ksize]) != string(bucketMeta) {
					continue
				}
				subs = append(subs, sub{
					name:  fmt.Sprintf("bucket %q", page[start:start+ksize]),
					value: append([]byte(nil), page[start+ksize:start+ksize+vsize]...),
				})
			}
		}
		for _, s := range subs {
			if err := w.bucket(s.value, s.name); err != nil {
				return err
			}
		}
	default:
		return damagef("page %d (in %s) is neither a branch nor a leaf (flags %#x)", pgid, where, flags)
	}
	return nil
}

// bucket checks a bucket from its value in its parent: a root page, or an
// inline page inside the value itself.
func (w *pageWalk) bucket(v []byte, where string) error {
	if len(v) < inBucketSize {
		return damagef("%s has a header of %d bytes", where, len(v))
	}
	if root := ne.Uint64(v); root != 0 {
		return w.tree(root, where)
	}
	inline := v[inBucketSize:]
	if len(inline) < pageHeaderSize {
		return damagef("%s is inline but has no page", where)
	}
	if ne.Uint16(inline[8:]) != leafPageFlag {
		return damagef("%s is inline but its page is not a leaf", where)
	}
	return w.page(inline, 0, where)
}
