package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The walls between packages, as DESIGN draws them: imports point one way,
// main -> net/* -> world -> zone -> script, world -> store, world and zone
// -> content. The gate reaches the game only through the world; zone never
// imports world, store or the network; store and content import nothing of
// the project. These tables hold those arrows package by package, so a
// wrong import fails the build's tests instead of waiting for a reviewer.

// module is the module path the tree is checked as.
const module = "zonemud"

// wiring may import anything: main and the packages that are part of its
// wiring (config, the server, and the test harness that starts it).
var wiring = []string{"", "server/config", "server", "server/servertest"}

// utilities are stdlib-level packages: they import nothing of the project
// (mayImport says so, and the test holds it), and any package may import
// them.
var utilities = []string{"internal/queue", "internal/logev", "internal/typo"}

// mayImport lists, for every other package, the project packages its
// files may import besides the utilities. A package missing from this
// table fails the test: a new package states where it sits.
var mayImport = map[string][]string{
	"cmd/loadbot":           {},
	"internal/genworld":     {},
	"internal/queue":        {},
	"internal/logev":        {},
	"internal/typo":         {},
	"net/telnet":            {},
	"net/telnet/telnettest": {"net/telnet"},
	"net/gate":              {"world", "net/telnet"},
	"net/sshd":              {"net/gate"},
	"world":                 {"zone", "script", "store", "content"},
	"world/dirtest":         {"world", "store"},
	"content":               {},
	"zone":                  {"script", "content"},
	"script":                {},
	"store":                 {},
}

// testMayImport is the written allow list for test files: the imports
// tests make across the walls, each with its reason. A test file may also
// import what its package may, its own package, and test helpers of the
// packages it may import (telnettest with telnet).
var testMayImport = map[string]map[string]string{
	"zone": {
		"world":             "zone tests drive zones with the real world as their shard",
		"store":             "the world they drive needs a real store",
		"server/servertest": "end-to-end tests of a zone run a whole server",
		"internal/genworld": "the reconcile benchmark takes a zone of the generated world",
	},
	"net/gate": {
		"server/servertest":     "end-to-end tests of the gate run a whole server",
		"net/telnet/telnettest": "scripted telnet clients",
	},
	"net/sshd": {
		"server/config":     "end-to-end tests start a server with an SSH front",
		"server":            "as above",
		"server/servertest": "as above",
		"store":             "a test registers a key in the account directly",
	},
	"net/telnet":        {"net/telnet/telnettest": "a telnet package's own test helpers"},
	"world":             {"world/dirtest": "the local directory runs the directory contract suite"},
	"internal/genworld": {"content": "a generated world must load"},
}

// violation is one import across a wall.
type violation struct{ file, pkg, imp string }

func (v violation) String() string {
	return v.file + ": " + show(v.pkg) + " imports " + show(v.imp)
}

func show(pkg string) string {
	if pkg == "" {
		return module
	}
	return module + "/" + pkg
}

// checkImports walks the tree under root as the module and returns every
// import against the tables, every package the tables do not know, and
// how many project imports it read.
func checkImports(t *testing.T, root string) (bad []violation, unknown []string, seen int) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			pkg = ""
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(path, "_test.go")
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			imp := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			seen++
			if slices.Contains(wiring, pkg) || imp == pkg {
				continue
			}
			ok, known := mayImport[pkg]
			if !known {
				if !slices.Contains(unknown, show(pkg)) {
					unknown = append(unknown, show(pkg))
				}
				continue
			}
			if slices.Contains(ok, imp) || (slices.Contains(utilities, imp) && !slices.Contains(utilities, pkg)) {
				continue
			}
			if isTest {
				if _, listed := testMayImport[pkg][imp]; listed {
					continue
				}
			}
			rp, _ := filepath.Rel(root, path)
			bad = append(bad, violation{filepath.ToSlash(rp), pkg, imp})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad, unknown, seen
}

// Every import in the repository, test files included, points the way
// DESIGN draws the arrows.
func TestImports_FollowTheDesign(t *testing.T) {
	bad, unknown, seen := checkImports(t, ".")
	for _, v := range bad {
		t.Errorf("%v: against the import direction (DESIGN.md); reach the game through the package above, or, for a test, add it to testMayImport with a reason", v)
	}
	for _, p := range unknown {
		t.Errorf("package %s is not in mayImport: say which project packages it may import", p)
	}
	// Anti-rot: a walk that reads nothing passes forever.
	if seen < 50 {
		t.Fatalf("read only %d project imports; the walk is not seeing the tree", seen)
	}
}

// The check catches a wrong import: a fixture tree with a gate that
// imports the zone, a zone that imports the world, a world test that
// reaches up into the gate without an allowance, a utility that imports
// the project, and a package nobody placed; the allowed imports beside
// them (a zone test using the world, a zone using a utility) pass.
func TestImports_CatchesViolations(t *testing.T) {
	root := filepath.Join("testdata", "imports")
	bad, unknown, _ := checkImports(t, root)
	var got []string
	for _, v := range bad {
		got = append(got, v.String())
	}
	want := []string{
		"internal/queue/bad.go: zonemud/internal/queue imports zonemud/store",
		"net/gate/bad.go: zonemud/net/gate imports zonemud/zone",
		"world/bad_test.go: zonemud/world imports zonemud/net/gate",
		"zone/bad.go: zonemud/zone imports zonemud/world",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("violations found in the fixture:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if !slices.Equal(unknown, []string{"zonemud/newpkg"}) {
		t.Errorf("unplaced packages found: %v, want [zonemud/newpkg]", unknown)
	}
	if _, err := os.Stat(filepath.Join(root, "zone", "ok_test.go")); err != nil {
		t.Fatalf("the fixture lost its allowed test import: %v", err)
	}
}
