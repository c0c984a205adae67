package content

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Formula is an integer expression builders write in game.toml, such as
// "20 + level * 10 + constitution". It has numbers, named variables,
// + - * / % with the usual precedence, parentheses, unary minus, and the
// functions min(a, b) and max(a, b). Division rounds toward zero. A
// division by zero at run time yields 0 and an error; the loader evaluates
// every formula over the ranges its variables take and refuses one that
// can divide by zero there.
type Formula struct {
	src  string
	root node
	vars []string // variables it reads, sorted, for validation
}

// ErrDivZero is returned by Eval when a formula divides by zero.
var ErrDivZero = errors.New("content: formula divides by zero")

const maxFormulaLen = 500

type node interface {
	eval(vars Vars) (int, error)
}

type num int
type variable string
type unary struct{ x node }
type binary struct {
	op   byte
	l, r node
}
type call struct {
	fn   string
	args []node
}

func (n num) eval(Vars) (int, error)           { return int(n), nil }
func (v variable) eval(vars Vars) (int, error) { return vars.Var(string(v)), nil }
func (u unary) eval(vars Vars) (int, error) {
	x, err := u.x.eval(vars)
	return -x, err
}

// Results are clamped to this range so no formula can overflow.
const formulaLimit = 1 << 40

func clampF(v int) int { return max(-formulaLimit, min(formulaLimit, v)) }

func (b binary) eval(vars Vars) (int, error) {
	l, err := b.l.eval(vars)
	if err != nil {
		return 0, err
	}
	r, err := b.r.eval(vars)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return clampF(l + r), nil
	case '-':
		return clampF(l - r), nil
	case '*':
		return clampF(l * r), nil
	case '/':
		if r == 0 {
			return 0, ErrDivZero
		}
		return l / r, nil
	case '%':
		if r == 0 {
			return 0, ErrDivZero
		}
		return l % r, nil
	}
	return 0, fmt.Errorf("content: unknown operator %q", b.op)
}

func (c call) eval(vars Vars) (int, error) {
	a, err := c.args[0].eval(vars)
	if err != nil {
		return 0, err
	}
	b, err := c.args[1].eval(vars)
	if err != nil {
		return 0, err
	}
	if c.fn == "min" {
		return min(a, b), nil
	}
	return max(a, b), nil
}

// ParseFormula parses src. known lists the variables it may use.
func ParseFormula(src string, known []string) (*Formula, error) {
	if len(src) > maxFormulaLen {
		return nil, fmt.Errorf("formula is longer than %d bytes", maxFormulaLen)
	}
	p := &fparser{s: src, known: known, seen: map[string]bool{}}
	root, err := p.expr(0)
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = fmt.Errorf("unexpected %q at %d", p.s[p.i:], p.i)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("formula %q: %w", src, err)
	}
	f := &Formula{src: src, root: root}
	for v := range p.seen {
		f.vars = append(f.vars, v)
	}
	sort.Strings(f.vars) // two loads of one text give equal formulas
	return f, nil
}

// Vars gives a formula's variables their values. A zone passes a pointer
// to a struct it reuses, so evaluating a formula allocates nothing.
type Vars interface{ Var(name string) int }

// VarFunc adapts a function to Vars.
type VarFunc func(string) int

// Var calls f.
func (f VarFunc) Var(name string) int { return f(name) }

// Eval evaluates the formula; vars gives each variable's value.
func (f *Formula) Eval(vars Vars) (int, error) { return f.root.eval(vars) }

// String is the formula as written.
func (f *Formula) String() string { return f.src }

// Vars lists the variables the formula reads.
func (f *Formula) Vars() []string { return f.vars }

// UnmarshalText lets a formula be written as a TOML string; the variables
// are checked when the game data is validated.
func (f *Formula) UnmarshalText(b []byte) error {
	g, err := ParseFormula(string(b), nil)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

type fparser struct {
	s     string
	i     int
	depth int
	known []string
	seen  map[string]bool
}

func (p *fparser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func prec(op byte) int {
	switch op {
	case '+', '-':
		return 1
	case '*', '/', '%':
		return 2
	}
	return 0
}

// expr parses a binary expression whose operators bind at least minPrec.
func (p *fparser) expr(minPrec int) (node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 50 {
		return nil, errors.New("nested too deeply")
	}
	l, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.i >= len(p.s) {
			return l, nil
		}
		op := p.s[p.i]
		pr := prec(op)
		if pr == 0 || pr < minPrec {
			return l, nil
		}
		p.i++
		r, err := p.expr(pr + 1)
		if err != nil {
			return nil, err
		}
		l = binary{op: op, l: l, r: r}
	}
}

func (p *fparser) unaryExpr() (node, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errors.New("expression ends too soon")
	}
	c := p.s[p.i]
	switch {
	case c == '-':
		p.i++
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return unary{x}, nil
	case c == '(':
		p.i++
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, errors.New("missing )")
		}
		p.i++
		return x, nil
	case c >= '0' && c <= '9':
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		v, err := strconv.Atoi(p.s[j:p.i])
		if err != nil || v > formulaLimit {
			return nil, fmt.Errorf("number %q is too large", p.s[j:p.i])
		}
		return num(v), nil
	case c >= 'a' && c <= 'z' || c == '_':
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] == '_' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
		name := p.s[j:p.i]
		p.space()
		if name == "min" || name == "max" {
			if p.i >= len(p.s) || p.s[p.i] != '(' {
				return nil, fmt.Errorf("%s needs (a, b)", name)
			}
			p.i++
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return nil, fmt.Errorf("%s needs two arguments", name)
			}
			p.i++
			b, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ')' {
				return nil, errors.New("missing )")
			}
			p.i++
			return call{fn: name, args: []node{a, b}}, nil
		}
		if p.known != nil && !contains(p.known, name) {
			return nil, fmt.Errorf("unknown variable %q (known: %s)", name, strings.Join(p.known, ", "))
		}
		p.seen[name] = true
		return variable(name), nil
	}
	return nil, fmt.Errorf("unexpected %q at %d", c, p.i)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
