package circle

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// maxSourceFile bounds one source file. tbaMUD's largest world file is a
// few hundred kilobytes; a file past this is not a world file.
const maxSourceFile = 64 << 20

// kinds are the source file kinds, in the order they are read.
var kinds = []struct {
	ext  string
	read func(w *World, file string, data []byte)
}{
	{"zon", (*World).readZone},
	{"wld", (*World).readRooms},
	{"mob", (*World).readMobs},
	{"obj", (*World).readObjs},
	{"trg", (*World).readTriggers},
	{"shp", (*World).readShops},
	{"qst", (*World).readQuests},
}

// ErrNoWorld is returned for a folder with no Circle world files in it.
var ErrNoWorld = errors.New("circle: no CircleMUD world files (.wld, .zon, ...) found")

// Read reads a world from fsys: either a lib/world folder (with wld, mob,
// obj, zon, shp, trg and qst folders, each with its index file) or a
// folder holding one zone's files (30.wld, 30.zon, ...). What does not
// read is noted in the World's Notes; the error is for a folder that
// cannot be read at all.
func Read(fsys fs.FS) (*World, error) {
	w := newWorld()
	found := 0
	for _, k := range kinds {
		files, err := w.filesOf(fsys, k.ext)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := readFile(fsys, f)
			if err != nil {
				w.note(f, 0, KindError, "%v; the file is skipped", err)
				continue
			}
			found++
			k.read(w, f, data)
		}
	}
	if found == 0 {
		return nil, ErrNoWorld
	}
	return w, nil
}

func readFile(fsys fs.FS, name string) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("is a folder")
	}
	if fi.Size() > maxSourceFile {
		return nil, fmt.Errorf("is %d bytes, more than any world file (%d)", fi.Size(), maxSourceFile)
	}
	return fs.ReadFile(fsys, name)
}

// filesOf lists the files of one kind: from <ext>/index in a lib/world
// folder (every <ext> file there if the index is missing), else every
// *.<ext> at the top.
func (w *World) filesOf(fsys fs.FS, ext string) ([]string, error) {
	if fi, err := fs.Stat(fsys, ext); err == nil && fi.IsDir() {
		idx := path.Join(ext, "index")
		data, err := readFile(fsys, idx)
		if err == nil {
			return w.index(fsys, idx, ext, data), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			w.note(idx, 0, KindError, "%v", err)
		} else {
			w.note(idx, 0, KindApproximated, "no index file: every *.%s in %s/ is read, in name order", ext, ext)
		}
		return glob(fsys, ext, ext)
	}
	return glob(fsys, ".", ext)
}

func glob(fsys fs.FS, dir, ext string) ([]string, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("circle: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), "."+ext) {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	sort.Slice(out, func(i, j int) bool { return fileOrder(out[i], out[j]) })
	return out, nil
}

// fileOrder sorts 9.wld before 10.wld, as the index files list them.
func fileOrder(a, b string) bool {
	na, nb := leadingNumber(path.Base(a)), leadingNumber(path.Base(b))
	if na != nb {
		return na < nb
	}
	return a < b
}

func leadingNumber(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// index reads an index file: one file name a line, up to "$".
func (w *World) index(fsys fs.FS, idx, dir string, data []byte) []string {
	r := newReader(idx, data)
	var out []string
	ended := false
	for i, l := range r.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if t == "$" {
			ended = true
			break
		}
		if strings.ContainsAny(t, "/\\") || t == ".." || !fs.ValidPath(t) {
			w.note(idx, i+1, KindError, "%q is not a file name in %s/; skipped", clip(t), dir)
			continue
		}
		name := path.Join(dir, t)
		if _, err := fs.Stat(fsys, name); err != nil {
			w.note(idx, i+1, KindBroken, "lists %s, which is not there; skipped", t)
			continue
		}
		out = append(out, name)
	}
	if !ended {
		w.note(idx, len(r.lines), KindApproximated, "the index has no $ at its end; read to the end of the file")
	}
	return out
}

// readQuests notes the quests of a .qst file: quests are listed in the
// report, not converted.
func (w *World) readQuests(file string, data []byte) {
	r := newReader(file, data)
	for i, l := range r.lines {
		t := strings.TrimSpace(l)
		if len(t) > 1 && t[0] == '#' && t[1] >= '0' && t[1] <= '9' {
			w.Quests = append(w.Quests, at{file, i + 1})
		}
	}
}
