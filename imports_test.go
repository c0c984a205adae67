package main

import (
	"fmt"
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
// main -> server -> net/* -> world -> zone -> script, world -> store, world
// and zone -> content, and everything -> internal. The gate reaches the
// game only through the world; zone never imports world, store or the
// network; store and content import nothing of the project. These tables
// hold those arrows package by package, so a wrong import fails the
// build's tests instead of waiting for a reviewer.

// module is the module path the tree is checked as.
const module = "zonemud"

// wiring may import anything: main and the packages that are part of its
// wiring (config, the server, and the test harness that starts it), all
// under server/.
var wiring = []string{"", "server/config", "server", "server/servertest", "server/leaktest"}

// folders ranks the top-level folders as layers, highest first: a file
// outside tests imports only from its own folder or a folder ranked below
// it, so the tree reads like the layers before one opens a file. Folders
// of equal rank (content and store) do not import each other. internal/
// holds only leaves that every layer may use.
var folders = map[string]int{
	"":         10, // main.go and the root tests
	"cmd":      10, // tools that stand beside the server
	"server":   9,
	"net":      8,
	"world":    7,
	"zone":     6,
	"script":   5,
	"content":  4,
	"store":    4,
	"internal": 1,
}

// folderOf is the top-level folder of a package path ("" for the root).
func folderOf(pkg string) string {
	top, _, _ := strings.Cut(pkg, "/")
	return top
}

// folderArrow says whether an import from pkg to imp points down the
// folder layers: nil if it does, the reason if it does not.
func folderArrow(pkg, imp string) error {
	from, to := folderOf(pkg), folderOf(imp)
	if from == to {
		return nil
	}
	rf, okf := folders[from]
	rt, okt := folders[to]
	switch {
	case !okf:
		return fmt.Errorf("folder %q is not ranked in folders", from)
	case !okt:
		return fmt.Errorf("folder %q is not ranked in folders", to)
	case rf <= rt:
		return fmt.Errorf("%s/ (rank %d) may not import from %s/ (rank %d)", from, rf, to, rt)
	}
	return nil
}

// utilities are stdlib-level packages: they import nothing of the project
// (mayImport says so, and the test holds it), and any package may import
// them.
var utilities = []string{"internal/queue", "internal/logev", "internal/typo", "internal/run", "internal/act", "internal/alias", "internal/prompt", "internal/mail", "internal/markup"}

// mayImport lists, for every other package, the project packages its
// files may import besides the utilities. A package missing from this
// table fails the test: a new package states where it sits.
var mayImport = map[string][]string{
	"cmd/loadbot":           {"internal/genworld"},
	"internal/genworld":     {},
	"internal/queue":        {},
	"internal/logev":        {},
	"internal/typo":         {},
	"internal/run":          {},
	"internal/act":          {},
	"internal/alias":        {},
	"internal/prompt":       {},
	"internal/mail":         {},
	"internal/markup":       {},
	"net/telnet":            {},
	"net/boundary":          {},
	"net/telnet/telnettest": {"net/telnet"},
	"net/gate":              {"world", "net/telnet", "net/boundary"},
	"net/sshd":              {"net/gate"},
	"net/web/page":          {},
	"net/web":               {"net/gate"},
	"world":                 {"zone", "script", "store", "content"},
	"world/dirtest":         {"world", "store"},
	"content":               {"content/social"},
	"content/social":        {},
	"content/contenttest":   {},
	"content/quest":         {"content"},
	"content/circle":        {"content"},
	"zone":                  {"script", "content", "content/social", "content/quest"},
	"script":                {},
	"store":                 {},
}

// testMayImport is the written allow list for test files: the imports
// tests make across the walls, each with its reason. A test file may also
// import what its package may, its own package, and test helpers of the
// packages it may import (telnettest with telnet).
var testMayImport = map[string]map[string]string{
	"zone": {
		"world":               "zone tests that need a real host drive zones with the real world as their shard (the rest run on the fakes of fakes_test.go)",
		"store":               "the world they drive needs a real store",
		"internal/genworld":   "the reconcile benchmark takes a zone of the generated world",
		"content/contenttest": "the starter world's files, found and copied as the whole-server harness finds them",
		// Not server/servertest: a test that starts a whole server is a
		// whole-server test, and lives in server/.
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
	"net/web": {
		"server/config":     "end-to-end tests start a server with a web front",
		"server":            "as above",
		"server/servertest": "as above",
	},
	"net/web/page": {
		"server/servertest": "the page's browser tests and the whole-server ones share one Chromium starter",
	},
	"net/telnet":        {"net/telnet/telnettest": "a telnet package's own test helpers"},
	"world":             {"world/dirtest": "the local directory runs the directory contract suite"},
	"internal/genworld": {"content": "a generated world must load"},
	"cmd/loadbot":       {"server/servertest": "a tiny gather run against a real server on a generated tree"},
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
			if imp == pkg {
				continue
			}
			if _, ranked := folders[folderOf(pkg)]; ranked && !isTest {
				if err := folderArrow(pkg, imp); err != nil {
					rp, _ := filepath.Rel(root, path)
					bad = append(bad, violation{filepath.ToSlash(rp), pkg, imp})
					continue
				}
			}
			if slices.Contains(wiring, pkg) {
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
// imports the zone, a piece of the wiring that reaches up a folder (the
// tables let the wiring import anything; the folders do not), a zone that
// imports the world, a world test that reaches up into the gate without an
// allowance, a zone test that starts a whole server, a utility that imports the project, and a package nobody
// placed; the allowed imports beside them (a zone test using the world, a
// zone using a utility) pass.
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
		"server/config/bad.go: zonemud/server/config imports zonemud",
		"world/bad_test.go: zonemud/world imports zonemud/net/gate",
		"zone/bad.go: zonemud/zone imports zonemud/world",
		"zone/server_test.go: zonemud/zone imports zonemud/server/servertest",
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

// The tables and the folders agree: every arrow mayImport allows points
// down the folder layers, every package the tables place sits in a ranked
// folder, and the wiring all lives at the root or under server/.
func TestImports_TablesFollowTheFolders(t *testing.T) {
	for pkg, imps := range mayImport {
		if _, ok := folders[folderOf(pkg)]; !ok {
			t.Errorf("%s: folder %q is not ranked", show(pkg), folderOf(pkg))
		}
		for _, imp := range imps {
			if err := folderArrow(pkg, imp); err != nil {
				t.Errorf("mayImport lets %s import %s: %v", show(pkg), show(imp), err)
			}
		}
	}
	for _, u := range utilities {
		if folderOf(u) != "internal" {
			t.Errorf("utility %s lives outside internal/", show(u))
		}
	}
	for _, w := range wiring {
		if f := folderOf(w); f != "" && f != "server" {
			t.Errorf("wiring package %s lives outside server/", show(w))
		}
	}
	// The rule itself catches what reads wrong in a tree.
	for _, c := range [][2]string{
		{"zone", "world"}, {"content", "zone"}, {"store", "content"},
		{"internal/queue", "store"}, {"net/gate", "server"}, {"world/dirtest", "net/gate"},
	} {
		if folderArrow(c[0], c[1]) == nil {
			t.Errorf("folderArrow(%q, %q) allowed an arrow up the folders", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"server", "net/gate"}, {"zone", "content"}, {"world/dirtest", "store"}, {"", "server"}} {
		if err := folderArrow(c[0], c[1]); err != nil {
			t.Errorf("folderArrow(%q, %q): %v", c[0], c[1], err)
		}
	}
}

// docs/ARCHITECTURE.md's layer list names every package the tables place,
// so the picture a new reader starts from is the whole tree.
func TestImports_ArchitectureListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "## Layers")
	layers, _, _ := strings.Cut(rest, "\n## ")
	listed := map[string]bool{}
	for _, line := range strings.Split(layers, "\n") {
		for _, f := range strings.Fields(line) {
			listed[strings.TrimSuffix(strings.Trim(f, "`"), "/")] = true
		}
	}
	pkgs := slices.Concat(wiring, utilities)
	for p := range mayImport {
		pkgs = append(pkgs, p)
	}
	for _, p := range pkgs {
		name := p
		if p == "" {
			name = "main.go"
		}
		if !listed[name] {
			t.Errorf("docs/ARCHITECTURE.md's layer list does not name %s", show(p))
		}
	}
}
