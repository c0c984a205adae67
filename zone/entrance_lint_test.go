package zone

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"testing"
)

// entranceCallers are the only functions that may ask a room for its
// instance entrances: the move a player types (the one way into a copy:
// the mover is the one who asked), and the views that show the way
// (exits, look, a builder's rstat, the count of ways out a script may
// refuse). Every path that pushes a player (flee, a script's h:move, an
// area effect, the zone-to-zone router) resolves through exits and must
// never see an entrance: with one, a third party could send someone into
// a private copy where nobody can see or help them.
var entranceCallers = []string{"walk", "cmdExits", "lookDir", "waysOut", "roomStat"}

// TestEntranceLint pins the single reader of a room's instance entrances:
// the field is read in (*Room).entrance alone, and entrance is called only
// from entranceCallers. Its anti-rot guard fails if it finds the reader
// gone or the typed move no longer asking it.
func TestEntranceLint(t *testing.T) {
	fset := token.NewFileSet()
	readers, callers, bad := entranceUses(fset, packageFiles(t, fset))
	for _, b := range bad {
		t.Error(b)
	}
	if !slices.Equal(readers, []string{"entrance"}) {
		t.Errorf("anti-rot: the functions reading a room's Entrances are %v, want (*Room).entrance alone", readers)
	}
	if !slices.Contains(callers, "walk") {
		t.Errorf("anti-rot: the typed move (walk) no longer asks entrance; callers found: %v", callers)
	}
}

// TestEntranceLint_CatchesViolations feeds the lint a push-the-player
// path that reads an entrance, both ways.
func TestEntranceLint_CatchesViolations(t *testing.T) {
	src := `package zone
func (r *Room) entrance(d int) string { return r.proto.Entrances[d] }
func (z *Zone) cmdFlee(c *Char) { _ = c.room.entrance(0) }
func (z *Zone) push(c *Char) { _ = c.room.proto.Entrances[0] }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _, bad := entranceUses(fset, []*ast.File{f})
	if len(bad) != 2 {
		t.Fatalf("the lint found %d violations in a source with 2: %v", len(bad), bad)
	}
}

// entranceUses lists the functions that read the Entrances field, those
// that call entrance, and every use outside the rules.
func entranceUses(fset *token.FileSet, files []*ast.File) (readers, callers, bad []string) {
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if x.Sel.Name == "Entrances" {
						if !slices.Contains(readers, name) {
							readers = append(readers, name)
						}
						if name != "entrance" {
							bad = append(bad, fset.Position(x.Pos()).String()+": "+name+" reads a room's Entrances; ask (*Room).entrance, from a typed move or a view")
						}
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "entrance" {
						if !slices.Contains(callers, name) {
							callers = append(callers, name)
						}
						if !slices.Contains(entranceCallers, name) {
							bad = append(bad, fset.Position(x.Pos()).String()+": "+name+" asks for a room's instance entrance; only a move the player types, and views, may")
						}
					}
				}
				return true
			})
		}
	}
	sort.Strings(readers)
	sort.Strings(callers)
	return readers, callers, bad
}
