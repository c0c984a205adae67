package zone

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strings"
	"testing"
)

// TestIdentityLint fails on any comparison of a parsed ref's zone against a
// zone's id or template outside identity.go. Inside an instance, id is the
// wrong answer; for a plain zone, template alone is; ownsZoneRef is the only
// correct combination, so every locality question must go through it or
// localRoom. The receiver is resolved by type, so z.id, c.z.id and any
// other path to a Zone's fields are all caught.
//
// Its anti-rot guard fails if it finds no parseRef bindings at all: a lint
// that silently stopped seeing what it looks for would pass forever.
func TestIdentityLint(t *testing.T) {
	fset := token.NewFileSet()
	files := packageFiles(t, fset)
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Defs:  map[*ast.Ident]types.Object{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	// Imports are stubbed: the lint needs the types of this package's own
	// values, not of its dependencies, and stubs keep it fast. Errors about
	// the stubbed packages' members are expected and ignored.
	conf := types.Config{
		Importer: stubImporter{},
		Error:    func(error) {},
	}
	_, _ = conf.Check("zonemud/zone", fset, files, info)
	if len(info.Defs) == 0 {
		t.Fatal("type-check of package zone produced nothing")
	}
	violations, bindings := identityViolations(fset, files, info)
	for _, v := range violations {
		t.Errorf("%s: compares a parsed ref's zone with a Zone's id or template; use ownsZoneRef or localRoom", v)
	}
	if bindings == 0 {
		t.Fatal("anti-rot: found no parseRef bindings in package zone; the lint is not seeing what it guards")
	}
}

// packageFiles parses the package's non-test files, for the lints.
func packageFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// identityViolations returns the positions of offending comparisons outside
// identity.go, and how many parseRef bindings it saw.
func identityViolations(fset *token.FileSet, files []*ast.File, info *types.Info) ([]string, int) {
	var out []string
	bindings := 0
	for _, f := range files {
		name := fset.Position(f.Pos()).Filename
		refVars := map[types.Object]bool{}
		// Find every variable bound to a parseRef result.
		ast.Inspect(f, func(n ast.Node) bool {
			switch s := n.(type) {
			case *ast.AssignStmt:
				for i, rhs := range s.Rhs {
					if isParseRefCall(rhs) && i < len(s.Lhs) {
						if id, ok := s.Lhs[i].(*ast.Ident); ok {
							if obj := objectOf(info, id); obj != nil {
								refVars[obj] = true
								bindings++
							}
						}
					}
				}
			case *ast.ValueSpec:
				for i, v := range s.Values {
					if isParseRefCall(v) && i < len(s.Names) {
						if obj := info.Defs[s.Names[i]]; obj != nil {
							refVars[obj] = true
							bindings++
						}
					}
				}
			case *ast.SelectorExpr:
				if s.Sel.Name == "zone" && isParseRefCall(s.X) {
					bindings++
				}
			}
			return true
		})
		if strings.HasSuffix(name, "identity.go") {
			continue
		}
		isRefZone := func(e ast.Expr) bool {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "zone" {
				return false
			}
			if isParseRefCall(sel.X) {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok {
				return refVars[objectOf(info, id)]
			}
			return false
		}
		isZoneIdentity := func(e ast.Expr) bool {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "id" && sel.Sel.Name != "template") {
				return false
			}
			tv, ok := info.Types[sel.X]
			if !ok {
				return false
			}
			t := tv.Type
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			named, ok := t.(*types.Named)
			return ok && named.Obj().Name() == "Zone" && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "zonemud/zone"
		}
		ast.Inspect(f, func(n ast.Node) bool {
			be, ok := n.(*ast.BinaryExpr)
			if !ok || (be.Op != token.EQL && be.Op != token.NEQ) {
				return true
			}
			if (isRefZone(be.X) && isZoneIdentity(be.Y)) || (isRefZone(be.Y) && isZoneIdentity(be.X)) {
				out = append(out, fset.Position(be.Pos()).String())
			}
			return true
		})
	}
	return out, bindings
}

func isParseRefCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "parseRef"
}

func objectOf(info *types.Info, id *ast.Ident) types.Object {
	if obj := info.Defs[id]; obj != nil {
		return obj
	}
	return info.Uses[id]
}

// TestIdentityLint_CatchesViolations feeds the lint a file that does what
// it forbids, so the lint itself is known to work.
func TestIdentityLint_CatchesViolations(t *testing.T) {
	src := `package zone
type Zone struct{ id, template string }
type ref struct{ zone string }
func parseRef(s string) ref { return ref{} }
type holder struct{ z *Zone }
func bad(z *Zone, h holder, s string) bool {
	r := parseRef(s)
	if r.zone != z.id { return false }
	if h.z.template == r.zone { return false }
	return parseRef(s).zone == z.id
}
func fine(z *Zone, s string) bool {
	r := parseRef(s)
	return r.zone == "x" || z.id == "y"
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("zonemud/zone", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	v, bindings := identityViolations(fset, []*ast.File{f}, info)
	if len(v) != 3 {
		t.Fatalf("found %d violations %v, want 3", len(v), v)
	}
	if bindings < 2 {
		t.Fatalf("found %d bindings, want at least 2", bindings)
	}
}

// stubImporter gives every import an empty package.
type stubImporter struct{}

func (stubImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}
