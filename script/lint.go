package script

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"zonemud/internal/typo"
)

// Triggers are the functions a script defines for the zone to call.
var Triggers = []string{"on_spawn", "on_enter", "on_leave", "on_greet", "on_speech", "on_command", "on_death", "on_tick"}

// The linter. Compile runs it on every script, so `zonemud check` (and a
// server's start-up log) names what would only fail at run time, or never
// run at all:
//
//   - a call of, or a field read from, a global the sandbox does not have
//     and the script never sets (os.execute, io.open);
//   - a field of a built-in library that does not exist (string.sprintf);
//   - a global function named like a trigger that is not one (on_tik);
//   - a method call whose name no handle, string or table of the script
//     has (a:sned).
//
// It errs on the side of silence: a bare read of an unset global is an
// ordinary nil in Lua, and any field name the script itself sets or builds
// a table with counts as a method it may call.

// sandboxNames are what scripts can reach, read from a real VM so the
// linter and the sandbox never disagree.
type sandboxNames struct {
	globals map[string]bool            // the builtins every env falls back to
	libs    map[string]map[string]bool // a library's members, by library
	methods map[string]bool            // handle methods and string methods
}

var sandbox = sync.OnceValue(func() *sandboxNames {
	vm := New(nil, DefaultConfig())
	defer vm.Close()
	n := &sandboxNames{globals: map[string]bool{"self": true, "_G": true}, libs: map[string]map[string]bool{}, methods: map[string]bool{"state": true}}
	vm.builtins.ForEach(func(k, v lua.LValue) {
		name := k.String()
		n.globals[name] = true
		proxy, ok := v.(*lua.LTable)
		if !ok || proxy.Metatable == nil {
			return
		}
		real, ok := proxy.Metatable.(*lua.LTable).RawGetString("__index").(*lua.LTable)
		if !ok {
			return
		}
		members := map[string]bool{}
		real.ForEach(func(k, _ lua.LValue) { members[k.String()] = true })
		n.libs[name] = members
	})
	vm.methods.ForEach(func(k, _ lua.LValue) { n.methods[k.String()] = true })
	for m := range n.libs["string"] {
		n.methods[m] = true // ("x"):upper()
	}
	return n
})

// linter walks one compiled chunk.
type linter struct {
	sb       *sandboxNames
	file     string
	scopes   []map[string]bool
	defined  map[string]bool // globals the script sets somewhere
	fields   map[string]bool // field names the script sets or builds
	problems []lintProblem
}

type lintProblem struct {
	line int
	msg  string
}

// lint returns the problems of a parsed, rewritten chunk as
// "file:line: message", in order of line.
func lint(chunk []ast.Stmt, file string) []string {
	l := &linter{sb: sandbox(), file: file, defined: map[string]bool{}, fields: map[string]bool{}}
	l.collect(chunk)
	l.scopes = []map[string]bool{{concatName: true}}
	l.block(chunk)
	sort.SliceStable(l.problems, func(i, j int) bool { return l.problems[i].line < l.problems[j].line })
	out := make([]string, len(l.problems))
	for i, p := range l.problems {
		out[i] = fmt.Sprintf("%s:%d: %s", file, p.line, p.msg)
	}
	return out
}

func (l *linter) report(line int, format string, args ...any) {
	l.problems = append(l.problems, lintProblem{line, fmt.Sprintf(format, args...)})
}

// collect notes every global the script assigns and every field name it
// sets or builds, wherever they are.
func (l *linter) collect(stmts []ast.Stmt) {
	walk(stmts, func(n any) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				switch e := e.(type) {
				case *ast.IdentExpr:
					l.defined[e.Value] = true
				case *ast.AttrGetExpr:
					if k, ok := e.Key.(*ast.StringExpr); ok {
						l.fields[k.Value] = true
					}
				}
			}
		case *ast.FuncDefStmt:
			switch {
			case n.Name.Method != "":
				l.fields[n.Name.Method] = true
			case n.Name.Func != nil:
				switch f := n.Name.Func.(type) {
				case *ast.IdentExpr:
					l.defined[f.Value] = true
				case *ast.AttrGetExpr:
					if k, ok := f.Key.(*ast.StringExpr); ok {
						l.fields[k.Value] = true
					}
				}
			}
		case *ast.TableExpr:
			for _, f := range n.Fields {
				if k, ok := f.Key.(*ast.StringExpr); ok {
					l.fields[k.Value] = true
				}
			}
		}
	})
}

func (l *linter) push()          { l.scopes = append(l.scopes, map[string]bool{}) }
func (l *linter) pop()           { l.scopes = l.scopes[:len(l.scopes)-1] }
func (l *linter) local(n string) { l.scopes[len(l.scopes)-1][n] = true }

func (l *linter) isLocal(n string) bool {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if l.scopes[i][n] {
			return true
		}
	}
	return false
}

// known reports whether a global name means something: a builtin, or a
// global the script sets.
func (l *linter) known(n string) bool { return l.isLocal(n) || l.sb.globals[n] || l.defined[n] }

func (l *linter) block(stmts []ast.Stmt) {
	l.push()
	for _, s := range stmts {
		l.stmt(s)
	}
	l.pop()
}

func (l *linter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, e := range s.Lhs {
			if _, ok := e.(*ast.IdentExpr); !ok {
				l.expr(e)
			}
		}
		for i, e := range s.Rhs {
			if id, ok := s.Lhs[min(i, len(s.Lhs)-1)].(*ast.IdentExpr); ok && !l.isLocal(id.Value) {
				if _, ok := e.(*ast.FunctionExpr); ok {
					l.trigger(id.Value, s.Line())
				}
			}
			l.expr(e)
		}
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok { // local function f: f is in scope in its body
				l.local(s.Names[0])
			}
		}
		for _, e := range s.Exprs {
			l.expr(e)
		}
		for _, n := range s.Names {
			l.local(n)
		}
	case *ast.FuncCallStmt:
		l.expr(s.Expr)
	case *ast.DoBlockStmt:
		l.block(s.Stmts)
	case *ast.WhileStmt:
		l.expr(s.Condition)
		l.block(s.Stmts)
	case *ast.RepeatStmt:
		l.push() // the condition sees the body's locals
		for _, st := range s.Stmts {
			l.stmt(st)
		}
		l.expr(s.Condition)
		l.pop()
	case *ast.IfStmt:
		l.expr(s.Condition)
		l.block(s.Then)
		l.block(s.Else)
	case *ast.NumberForStmt:
		l.expr(s.Init)
		l.expr(s.Limit)
		l.expr(s.Step)
		l.push()
		l.local(s.Name)
		l.block(s.Stmts)
		l.pop()
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			l.expr(e)
		}
		l.push()
		for _, n := range s.Names {
			l.local(n)
		}
		l.block(s.Stmts)
		l.pop()
	case *ast.FuncDefStmt:
		if s.Name.Method == "" {
			if id, ok := s.Name.Func.(*ast.IdentExpr); ok && !l.isLocal(id.Value) {
				l.trigger(id.Value, s.Line())
			} else {
				l.expr(s.Name.Func)
			}
		} else {
			l.expr(s.Name.Receiver)
		}
		l.function(s.Func, s.Name.Method != "")
	case *ast.ReturnStmt:
		for _, e := range s.Exprs {
			l.expr(e)
		}
	}
}

func (l *linter) function(f *ast.FunctionExpr, method bool) {
	l.push()
	if method {
		l.local("self")
	}
	if f.ParList != nil {
		for _, n := range f.ParList.Names {
			l.local(n)
		}
	}
	l.block(f.Stmts)
	l.pop()
}

func (l *linter) expr(e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.AttrGetExpr:
		if id, ok := e.Object.(*ast.IdentExpr); ok && !l.isLocal(id.Value) {
			key, _ := e.Key.(*ast.StringExpr)
			switch members, lib := l.sb.libs[id.Value]; {
			case !l.known(id.Value):
				if key != nil {
					l.report(e.Line(), "%s.%s: scripts have no %s%s", id.Value, key.Value, id.Value, l.didYouMean(id.Value, l.globalNames()))
				} else {
					l.report(e.Line(), "scripts have no %s%s", id.Value, l.didYouMean(id.Value, l.globalNames()))
				}
			case lib && !l.defined[id.Value] && key != nil && !members[key.Value]:
				l.report(e.Line(), "%s.%s does not exist%s", id.Value, key.Value, l.didYouMean(key.Value, keys(members), id.Value+"."))
			}
		} else {
			l.expr(e.Object)
		}
		l.expr(e.Key)
	case *ast.FuncCallExpr:
		switch {
		case e.Receiver != nil:
			l.expr(e.Receiver)
			if !l.sb.methods[e.Method] && !l.fields[e.Method] {
				l.report(e.Line(), ":%s(): no handle or string has a method %s%s", e.Method, e.Method, l.didYouMean(e.Method, keys(l.sb.methods)))
			}
		default:
			if id, ok := e.Func.(*ast.IdentExpr); ok && !l.known(id.Value) {
				l.report(e.Line(), "calls %s, which scripts do not have%s", id.Value, l.didYouMean(id.Value, l.globalNames()))
			} else {
				l.expr(e.Func)
			}
		}
		for _, a := range e.Args {
			l.expr(a)
		}
	case *ast.TableExpr:
		for _, f := range e.Fields {
			l.expr(f.Key)
			l.expr(f.Value)
		}
	case *ast.LogicalOpExpr:
		l.expr(e.Lhs)
		l.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		l.expr(e.Lhs)
		l.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		l.expr(e.Lhs)
		l.expr(e.Rhs)
	case *ast.StringConcatOpExpr:
		l.expr(e.Lhs)
		l.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		l.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		l.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		l.expr(e.Expr)
	case *ast.FunctionExpr:
		l.function(e, false)
	}
}

// trigger checks a global function's name: one that looks like a trigger
// but is not one is a trigger that will never fire.
func (l *linter) trigger(name string, line int) {
	for _, t := range Triggers {
		if name == t {
			return
		}
	}
	guess := closest(strings.ToLower(name), Triggers)
	if strings.HasPrefix(strings.ToLower(name), "on_") || guess != "" {
		l.report(line, "%s is not a trigger, so nothing will call it%s (the triggers: %s)", name, didYouMean(guess, ""), strings.Join(Triggers, ", "))
	}
}

func (l *linter) globalNames() []string {
	out := keys(l.sb.globals)
	for n := range l.defined {
		out = append(out, n)
	}
	return out
}

func (l *linter) didYouMean(s string, candidates []string, prefix ...string) string {
	p := ""
	if len(prefix) > 0 {
		p = prefix[0]
	}
	return didYouMean(closest(s, candidates), p)
}

func didYouMean(guess, prefix string) string {
	if guess == "" {
		return ""
	}
	return " (did you mean " + prefix + guess + "?)"
}

// closest returns the candidate nearest s by edit distance, if it is near
// enough to be a likely typo (two edits, and one for a word under six
// letters), else "". Candidates in parentheses are descriptions, not names.
func closest(s string, candidates []string) string {
	names := make([]string, 0, len(candidates))
	for _, c := range candidates {
		if !strings.HasPrefix(c, "(") {
			names = append(names, c)
		}
	}
	return typo.Closest(s, names, min(2, max(1, len(s)/3)))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// walk calls f for every statement, expression and table node under stmts.
func walk(stmts []ast.Stmt, f func(any)) {
	var stmt func(ast.Stmt)
	var expr func(ast.Expr)
	exprs := func(list []ast.Expr) {
		for _, e := range list {
			expr(e)
		}
	}
	block := func(list []ast.Stmt) {
		for _, s := range list {
			stmt(s)
		}
	}
	stmt = func(s ast.Stmt) {
		f(s)
		switch s := s.(type) {
		case *ast.AssignStmt:
			exprs(s.Lhs)
			exprs(s.Rhs)
		case *ast.LocalAssignStmt:
			exprs(s.Exprs)
		case *ast.FuncCallStmt:
			expr(s.Expr)
		case *ast.DoBlockStmt:
			block(s.Stmts)
		case *ast.WhileStmt:
			expr(s.Condition)
			block(s.Stmts)
		case *ast.RepeatStmt:
			block(s.Stmts)
			expr(s.Condition)
		case *ast.IfStmt:
			expr(s.Condition)
			block(s.Then)
			block(s.Else)
		case *ast.NumberForStmt:
			expr(s.Init)
			expr(s.Limit)
			expr(s.Step)
			block(s.Stmts)
		case *ast.GenericForStmt:
			exprs(s.Exprs)
			block(s.Stmts)
		case *ast.FuncDefStmt:
			expr(s.Name.Func)
			expr(s.Name.Receiver)
			expr(s.Func)
		case *ast.ReturnStmt:
			exprs(s.Exprs)
		}
	}
	expr = func(e ast.Expr) {
		if e == nil {
			return
		}
		f(e)
		switch e := e.(type) {
		case *ast.AttrGetExpr:
			expr(e.Object)
			expr(e.Key)
		case *ast.FuncCallExpr:
			expr(e.Func)
			expr(e.Receiver)
			exprs(e.Args)
		case *ast.TableExpr:
			for _, fl := range e.Fields {
				expr(fl.Key)
				expr(fl.Value)
			}
		case *ast.LogicalOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.RelationalOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.ArithmeticOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.StringConcatOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.UnaryMinusOpExpr:
			expr(e.Expr)
		case *ast.UnaryNotOpExpr:
			expr(e.Expr)
		case *ast.UnaryLenOpExpr:
			expr(e.Expr)
		case *ast.FunctionExpr:
			block(e.Stmts)
		}
	}
	block(stmts)
}
