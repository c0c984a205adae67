package script

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// MaxSourceBytes is the largest script source Compile accepts.
const MaxSourceBytes = 1 << 20

// maxNesting bounds how deeply statements and expressions may nest. The
// gopher-lua compiler walks the syntax tree recursively, so an absurdly
// deep expression would otherwise grow the Go stack without bound.
const maxNesting = 1000

// concatName is the hidden local every `..` is compiled into a call of.
// It is not a valid Lua identifier, so no script can name, shadow or
// reassign it.
const concatName = "(mud concat)"

// Compiled is a script parsed and compiled once. It is immutable and shared
// read-only by every VM (gopher-lua function prototypes are read-only at
// run time), so one Compiled may run in many zones at once.
type Compiled struct {
	proto      *lua.FunctionProto
	file       string // area file, for messages
	lineOffset int    // area-file line of the script's first line
	key        string // identity for the breaker and reports
	hash       [32]byte
	problems   []string // what the linter found (lint.go)
}

// Key is the script's identity ("emberfall:mob:priestess").
func (c *Compiled) Key() string { return c.key }

// File is the area file the script came from.
func (c *Compiled) File() string { return c.file }

// Problems are what the script does that cannot work in the sandbox, as
// "file:line: message": calls of globals scripts do not have, trigger
// names that are not triggers, method names nothing has. The script runs
// regardless; `zonemud check` refuses it.
func (c *Compiled) Problems() []string { return c.problems }

// Compile parses and compiles Lua source. file and lineOffset place the
// script in its area file: the script's line n is the file's line
// n+lineOffset-1, and compile errors, run-time errors and tracebacks all
// report file lines. key is the script's identity for the breaker and for
// Host.Report.
//
// Every `..` is compiled into a call of a hidden function that refuses to
// build a string longer than Config.MaxStringBytes: gopher-lua builds a
// whole concatenation in one VM instruction, between two checks of its budget.
func Compile(src, file string, lineOffset int, key string) (c *Compiled, err error) {
	if lineOffset < 1 {
		lineOffset = 1
	}
	if len(src) > MaxSourceBytes {
		return nil, fmt.Errorf("%w: %s:%d: script is %d bytes, more than %d", ErrCompile, file, lineOffset, len(src), MaxSourceBytes)
	}
	defer func() {
		// The parser recovers its own panics; the compiler re-panics
		// anything that is not a CompileError. A compiler bug must not
		// take the loading goroutine down.
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("%w: %s:%d: internal compiler error: %v", ErrCompile, file, lineOffset, r)
		}
	}()
	if line, deep := tooDeep(src, maxSyntaxLevels); deep {
		return nil, fmt.Errorf("%w: %s:%d: nested too deeply (more than %d levels)", ErrCompile, file, line+lineOffset-1, maxSyntaxLevels)
	}
	chunk, perr := parse.Parse(strings.NewReader(src), file)
	if perr != nil {
		return nil, parseError(perr, src, file, lineOffset)
	}
	rw := rewriter{offset: lineOffset - 1, seen: map[ast.PositionHolder]struct{}{}}
	if err := rw.block(chunk, 0); err != nil {
		return nil, fmt.Errorf("%w: %s:%d: %v", ErrCompile, file, rw.line, err)
	}
	problems := lint(chunk, file)
	decl := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.Comma3Expr{}}}
	decl.SetLine(lineOffset)
	decl.SetLastLine(lineOffset)
	chunk = append([]ast.Stmt{decl}, chunk...)
	proto, cerr := lua.Compile(chunk, file)
	if cerr != nil {
		var ce *lua.CompileError
		if errors.As(cerr, &ce) {
			return nil, fmt.Errorf("%w: %s:%d: %s", ErrCompile, file, ce.Line, ce.Message)
		}
		return nil, fmt.Errorf("%w: %s:%d: %v", ErrCompile, file, lineOffset, cerr)
	}
	return &Compiled{proto: proto, file: file, lineOffset: lineOffset, key: key, hash: sha256.Sum256([]byte(src)), problems: problems}, nil
}

// parseError turns a gopher-lua parse error into "file:line: message" with
// the area-file line.
func parseError(err error, src, file string, lineOffset int) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("%w: %s:%d: %v", ErrCompile, file, lineOffset, err)
	}
	line := pe.Pos.Line
	if line == parse.EOF || line < 1 {
		line = strings.Count(src, "\n") + 1
	}
	msg := strings.TrimSpace(pe.Message)
	if pe.Token != "" && pe.Pos.Line != parse.EOF {
		msg = fmt.Sprintf("%s near '%s'", msg, pe.Token)
	} else if pe.Pos.Line == parse.EOF {
		msg += " at end of script"
	}
	return fmt.Errorf("%w: %s:%d: %s", ErrCompile, file, line+lineOffset-1, msg)
}

// rewriter walks a parsed chunk once before it is compiled: it moves every
// line to its area-file line, replaces every `..` chain with a call of the
// hidden concatenation function, and rejects nesting deeper than
// maxNesting. A node type it does not know fails the compile, so a newer
// parser cannot slip a raw concatenation past it.
type rewriter struct {
	offset int
	line   int // area-file line of the last node seen, for errors
	seen   map[ast.PositionHolder]struct{}
}

func (rw *rewriter) pos(n ast.PositionHolder) {
	if _, ok := rw.seen[n]; ok {
		return
	}
	rw.seen[n] = struct{}{}
	if l := n.Line(); l > 0 {
		n.SetLine(l + rw.offset)
		rw.line = l + rw.offset
	}
	if l := n.LastLine(); l > 0 {
		n.SetLastLine(l + rw.offset)
	}
}

func (rw *rewriter) block(stmts []ast.Stmt, depth int) error {
	for _, s := range stmts {
		if err := rw.stmt(s, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (rw *rewriter) exprs(list []ast.Expr, depth int) error {
	for i, e := range list {
		ne, err := rw.expr(e, depth)
		if err != nil {
			return err
		}
		list[i] = ne
	}
	return nil
}

func (rw *rewriter) stmt(s ast.Stmt, depth int) error {
	if depth > maxNesting {
		return errors.New("statements nested too deeply")
	}
	rw.pos(s)
	switch st := s.(type) {
	case *ast.AssignStmt:
		if err := rw.exprs(st.Lhs, depth); err != nil {
			return err
		}
		return rw.exprs(st.Rhs, depth)
	case *ast.LocalAssignStmt:
		return rw.exprs(st.Exprs, depth)
	case *ast.FuncCallStmt:
		e, err := rw.expr(st.Expr, depth)
		st.Expr = e
		return err
	case *ast.DoBlockStmt:
		return rw.block(st.Stmts, depth)
	case *ast.WhileStmt:
		c, err := rw.expr(st.Condition, depth)
		if err != nil {
			return err
		}
		st.Condition = c
		return rw.block(st.Stmts, depth)
	case *ast.RepeatStmt:
		c, err := rw.expr(st.Condition, depth)
		if err != nil {
			return err
		}
		st.Condition = c
		return rw.block(st.Stmts, depth)
	case *ast.IfStmt:
		c, err := rw.expr(st.Condition, depth)
		if err != nil {
			return err
		}
		st.Condition = c
		if err := rw.block(st.Then, depth); err != nil {
			return err
		}
		return rw.block(st.Else, depth)
	case *ast.NumberForStmt:
		var err error
		if st.Init, err = rw.expr(st.Init, depth); err != nil {
			return err
		}
		if st.Limit, err = rw.expr(st.Limit, depth); err != nil {
			return err
		}
		if st.Step != nil {
			if st.Step, err = rw.expr(st.Step, depth); err != nil {
				return err
			}
		}
		return rw.block(st.Stmts, depth)
	case *ast.GenericForStmt:
		if err := rw.exprs(st.Exprs, depth); err != nil {
			return err
		}
		return rw.block(st.Stmts, depth)
	case *ast.FuncDefStmt:
		if st.Name != nil {
			var err error
			if st.Name.Func != nil {
				if st.Name.Func, err = rw.expr(st.Name.Func, depth); err != nil {
					return err
				}
			}
			if st.Name.Receiver != nil {
				if st.Name.Receiver, err = rw.expr(st.Name.Receiver, depth); err != nil {
					return err
				}
			}
		}
		_, err := rw.expr(st.Func, depth)
		return err
	case *ast.ReturnStmt:
		return rw.exprs(st.Exprs, depth)
	case *ast.BreakStmt, *ast.LabelStmt, *ast.GotoStmt:
		return nil
	default:
		return fmt.Errorf("unsupported statement %T", s)
	}
}

func (rw *rewriter) expr(e ast.Expr, depth int) (ast.Expr, error) {
	depth++
	if depth > maxNesting {
		return nil, errors.New("expression nested too deeply")
	}
	if e == nil {
		return nil, nil
	}
	rw.pos(e)
	var err error
	switch ex := e.(type) {
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr,
		*ast.StringExpr, *ast.Comma3Expr, *ast.IdentExpr:
		return e, nil
	case *ast.AttrGetExpr:
		if ex.Object, err = rw.expr(ex.Object, depth); err != nil {
			return nil, err
		}
		ex.Key, err = rw.expr(ex.Key, depth)
		return ex, err
	case *ast.TableExpr:
		for _, f := range ex.Fields {
			if f.Key != nil {
				if f.Key, err = rw.expr(f.Key, depth); err != nil {
					return nil, err
				}
			}
			if f.Value, err = rw.expr(f.Value, depth); err != nil {
				return nil, err
			}
		}
		return ex, nil
	case *ast.FuncCallExpr:
		if ex.Func != nil {
			if ex.Func, err = rw.expr(ex.Func, depth); err != nil {
				return nil, err
			}
		}
		if ex.Receiver != nil {
			if ex.Receiver, err = rw.expr(ex.Receiver, depth); err != nil {
				return nil, err
			}
		}
		return ex, rw.exprs(ex.Args, depth)
	case *ast.LogicalOpExpr:
		if ex.Lhs, err = rw.expr(ex.Lhs, depth); err != nil {
			return nil, err
		}
		ex.Rhs, err = rw.expr(ex.Rhs, depth)
		return ex, err
	case *ast.RelationalOpExpr:
		if ex.Lhs, err = rw.expr(ex.Lhs, depth); err != nil {
			return nil, err
		}
		ex.Rhs, err = rw.expr(ex.Rhs, depth)
		return ex, err
	case *ast.ArithmeticOpExpr:
		if ex.Lhs, err = rw.expr(ex.Lhs, depth); err != nil {
			return nil, err
		}
		ex.Rhs, err = rw.expr(ex.Rhs, depth)
		return ex, err
	case *ast.StringConcatOpExpr:
		// a .. b .. c parses right-nested, a .. (b .. c); flatten the
		// chain the way the compiler would and call the guard once with
		// every operand, in order.
		var args []ast.Expr
		var cur ast.Expr = ex
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				break
			}
			rw.pos(c)
			lhs, err := rw.expr(c.Lhs, depth)
			if err != nil {
				return nil, err
			}
			args = append(args, lhs)
			cur = c.Rhs
			if depth++; depth > maxNesting {
				return nil, errors.New("expression nested too deeply")
			}
		}
		last, err := rw.expr(cur, depth)
		if err != nil {
			return nil, err
		}
		args = append(args, last)
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(ex.Line())
		fn.SetLastLine(ex.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: args}
		call.SetLine(ex.Line())
		call.SetLastLine(ex.LastLine())
		rw.seen[fn], rw.seen[call] = struct{}{}, struct{}{}
		return call, nil
	case *ast.UnaryMinusOpExpr:
		ex.Expr, err = rw.expr(ex.Expr, depth)
		return ex, err
	case *ast.UnaryNotOpExpr:
		ex.Expr, err = rw.expr(ex.Expr, depth)
		return ex, err
	case *ast.UnaryLenOpExpr:
		ex.Expr, err = rw.expr(ex.Expr, depth)
		return ex, err
	case *ast.FunctionExpr:
		return ex, rw.block(ex.Stmts, depth)
	default:
		return nil, fmt.Errorf("unsupported expression %T", e)
	}
}

// Cache compiles each script once per content snapshot: Get returns the
// same Compiled for the same key, place and source. The zero value is
// ready to use; it is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]*cacheEntry // guarded by mu
}

type cacheKey struct {
	key  string
	file string
	line int
	hash [32]byte
}

type cacheEntry struct {
	c    *Compiled
	used bool // requested since the last Prune
}

// NewCache returns an empty compile cache.
func NewCache() *Cache {
	return &Cache{m: make(map[cacheKey]*cacheEntry)}
}

// Get returns the compiled script for src, compiling it on first use.
// The file and line are part of the cache key as well as the key and the
// source hash, because they are compiled into the script's line numbers.
// Compile errors are not cached.
func (ca *Cache) Get(src, file string, line int, key string) (*Compiled, error) {
	k := cacheKey{key: key, file: file, line: line, hash: sha256.Sum256([]byte(src))}
	ca.mu.Lock()
	if e, ok := ca.m[k]; ok {
		e.used = true
		ca.mu.Unlock()
		return e.c, nil
	}
	ca.mu.Unlock()
	c, err := Compile(src, file, line, key)
	if err != nil {
		return nil, err
	}
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if ca.m == nil {
		ca.m = make(map[cacheKey]*cacheEntry)
	}
	if e, ok := ca.m[k]; ok { // compiled concurrently: keep one
		e.used = true
		return e.c, nil
	}
	ca.m[k] = &cacheEntry{c: c, used: true}
	return c, nil
}

// Prune drops every entry not requested by Get since the previous Prune:
// call it after loading a content snapshot so scripts of older snapshots
// do not accumulate.
func (ca *Cache) Prune() {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	for k, e := range ca.m {
		if !e.used {
			delete(ca.m, k)
			continue
		}
		e.used = false
	}
}

// Len reports how many compiled scripts the cache holds.
func (ca *Cache) Len() int {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return len(ca.m)
}
