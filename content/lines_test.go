package content

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// The line index finds keys where a builder wrote them, and never takes the
// text of a description or the items of an array for a key.
func TestLines_KeysWhereWritten(t *testing.T) {
	text := `# a comment = 1
[zone]
name = "Z"

[rooms.a]
name = "A"
description = """
[rooms.fake]
name = "not a key"
"""
exits = { north = "b", doors = { south = { key = "k" } } }
flags = [
  "dark",
  "indoors",
]
'literal key' = 1
[rooms.a.extra]
"roots roof" = '''
text = no'''
[[resets]]
mob = "m"
[[resets]]
item = "i"
[resets.extra]
x = 1
`
	idx := scanLines(text)
	for key, want := range map[string]int{
		"zone":                               2,
		"zone.name":                          3,
		"rooms.a":                            5,
		"rooms.a.name":                       6,
		"rooms.a.description":                7,
		"rooms.a.exits":                      11,
		"rooms.a.exits.north":                11,
		"rooms.a.exits.doors.south.key":      11,
		"rooms.a.flags":                      12,
		`rooms.a."literal key"`:              16,
		`rooms.a.extra."roots roof"`:         18,
		"resets[0].mob":                      21,
		"resets[1]":                          22,
		"resets[1].item":                     23,
		"resets[1].extra.x":                  25,
		"rooms.a.exits.west":                 11, // not written: its parent's line
		"rooms.a.nothing.at.all":             5,
		"nowhere":                            0,
		"rooms.fake":                         0,
		"rooms.a.extra.\"roots roof\".other": 18,
	} {
		if got := idx.line(key); got != want {
			t.Errorf("line of %s: got %d, want %d", key, got, want)
		}
	}
	if _, ok := idx["text"]; ok {
		t.Error("text inside a multi-line literal string was taken for a key")
	}
}

// A file that cannot be read well is one problem naming it, with the line
// where it can tell: too large (never read whole), a symlink that loops, a
// named pipe (never opened, so never blocks), not UTF-8.
func TestLoad_FilesThatDoNotRead(t *testing.T) {
	dir := t.TempDir()
	for name, f := range minimalWorld() {
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big, err := os.Create(filepath.Join(dir, "big.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(100 << 20); err != nil { // 100 MB, sparse
		t.Fatal(err)
	}
	big.Close()
	if err := os.Symlink("loop.toml", filepath.Join(dir, "loop.toml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "latin.toml"), []byte("[zone]\nname = \"Z\"\n# caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(os.DirFS(dir))
	assertProblems(t, err,
		"big.toml: file is too large (104857600 bytes); the limit is",
		"loop.toml: cannot read: a symbolic link that loops",
		"pipe.toml: not a regular file",
		"latin.toml:3: file is not valid UTF-8",
	)
}

// Every part of a load sees a file as it was first read, even if it
// changes meanwhile (an editor still writing it).
func TestLoad_ReadsEachFileOnce(t *testing.T) {
	fsys := minimalWorld()
	counting := &countFS{MapFS: fsys, reads: map[string]int{}}
	fsys["town.toml"].Data = []byte(strings.Replace(string(fsys["town.toml"].Data), `name = "The Square"`, "name = \"The Square\"\nscript = \"x = 1\"", 1))
	if _, err := Load(counting); err != nil {
		t.Fatal(err)
	}
	if counting.reads["town.toml"] == 0 {
		t.Fatal("the count saw no reads")
	}
	for name, n := range counting.reads {
		if n > 1 {
			t.Errorf("%s read %d times", name, n)
		}
	}
}

type countFS struct {
	fstest.MapFS
	reads map[string]int
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.reads[name]++
	return c.MapFS.Open(name)
}
