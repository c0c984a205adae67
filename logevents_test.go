package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// logCall is one log call found in the code.
type logCall struct {
	pos   string
	level string // Debug, Info, Warn, Error
	id    int    // 0: none
	msg   bool   // passes a "msg" key
}

// logCalls finds every log call in the module's code (tests aside): a
// call of a method named Debug, Info, Warn or Error whose first argument
// is a string, as slog's are. An id is a logev.ID call with an integer
// literal.
func logCalls(t *testing.T) []logCall {
	t.Helper()
	var out []logCall
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "dist" || (strings.HasPrefix(name, ".") && path != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Debug", "Info", "Warn", "Error":
			default:
				return true
			}
			if !startsWithString(call.Args[0]) {
				return true
			}
			lc := logCall{pos: fset.Position(call.Pos()).String(), level: sel.Sel.Name}
			ast.Inspect(call, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if s, ok := n.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "ID" && isIdent(s.X, "logev") && len(n.Args) == 1 {
						if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.INT {
							v, _ := strconv.Atoi(lit.Value)
							if lc.id != 0 && lc.id != v {
								t.Errorf("%s: a log call with two event ids, %d and %d", lc.pos, lc.id, v)
							}
							lc.id = v
						} else {
							t.Errorf("%s: an event id that is not a literal number: ids are stable, and the table test reads them from the code", lc.pos)
						}
					}
				case *ast.BasicLit:
					if n.Kind == token.STRING && n.Value == `"msg"` {
						lc.msg = true
					}
				}
				return true
			})
			out = append(out, lc)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func startsWithString(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.BinaryExpr:
		return startsWithString(e.X)
	}
	return false
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// tableRow matches a row of the event table: | 7003 | Error | ... |
var tableRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|\s*(Debug|Info|Warn|Error)\s*\|`)

// eventTable reads docs/LOG_EVENTS.md: every id with its level.
func eventTable(t *testing.T) map[int]string {
	t.Helper()
	f, err := os.Open(filepath.Join("docs", "LOG_EVENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	table := map[int]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		if _, dup := table[id]; dup {
			t.Errorf("docs/LOG_EVENTS.md:%d: event %d is listed twice", n, id)
		}
		table[id] = m[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return table
}

// Every log line carries a stable event id that docs/LOG_EVENTS.md lists
// at the level it is written at; the table lists no id the code never
// writes; no call passes a second "msg" key.
func TestLogEvents_CodeAndTableAgree(t *testing.T) {
	calls := logCalls(t)
	table := eventTable(t)
	if len(calls) < 50 || len(table) < 50 {
		t.Fatalf("found %d log calls and %d table rows: the test no longer sees what it checks", len(calls), len(table))
	}
	seen := map[int]string{}
	for _, c := range calls {
		switch {
		case c.msg:
			t.Errorf("%s: a log call passes a \"msg\" key, which the handler writes already", c.pos)
		case c.id == 0:
			t.Errorf("%s: a log call without an event id (logev.ID)", c.pos)
			continue
		}
		want, ok := table[c.id]
		switch {
		case !ok:
			t.Errorf("%s: event %d is not in docs/LOG_EVENTS.md", c.pos, c.id)
		case want != c.level:
			t.Errorf("%s: event %d is written at %s, and docs/LOG_EVENTS.md says %s", c.pos, c.id, c.level, want)
		}
		if lvl, ok := seen[c.id]; ok && lvl != c.level {
			t.Errorf("%s: event %d is written at %s here and at %s elsewhere", c.pos, c.id, c.level, lvl)
		}
		seen[c.id] = c.level
	}
	var unused []string
	for id := range table {
		if _, ok := seen[id]; !ok {
			unused = append(unused, fmt.Sprint(id))
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("docs/LOG_EVENTS.md lists events the code never writes: %s", strings.Join(unused, ", "))
	}
}
