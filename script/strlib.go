package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The string library. Every function that can build a string checks the
// result against Config.MaxStringBytes before building it, and the
// pattern functions refuse subjects over Config.MaxPatternSubject and run
// on an interruptible matcher: a single Go call is one VM instruction, so
// each one here charges the call's budget for its own work (built, and the
// matcher's steps) and stops when the call must. byte, char, len,
// reverse and sub are gopher-lua's own: their output is no larger than
// their input (byte and char are bounded by the value stack).

func (vm *VM) stringLib(orig *lua.LTable) *lua.LTable {
	t := vm.ls.NewTable()
	for _, name := range []string{"byte", "char", "len", "reverse", "sub"} {
		t.RawSetString(name, orig.RawGetString(name))
	}
	for name, f := range map[string]lua.LGFunction{
		"rep":    vm.strRep,
		"upper":  vm.strUpper,
		"lower":  vm.strLower,
		"format": vm.strFormat,
		"find":   vm.strFind,
		"match":  vm.strMatch,
		"gmatch": vm.strGmatch,
		"gsub":   vm.strGsub,
	} {
		t.RawSetString(name, vm.fn(f))
	}
	return t
}

// bytesPerUnit is how many bytes of a string a library call builds for
// one unit of a call's budget: about the time of one VM instruction.
const bytesPerUnit = 256

// built charges the running call for building a string of n bytes. A call
// that this takes over its budget stops at its next instruction.
func (vm *VM) built(n int) {
	vm.meter.charge(int64(n / bytesPerUnit))
}

// tooLarge raises the error for a string over the cap.
func (vm *VM) tooLarge(L *lua.LState, fname string, n float64) {
	L.RaiseError("%s: result of %.0f bytes is larger than the limit of %d", fname, n, vm.cfg.MaxStringBytes)
}

// luaConcat is what every `..` compiles to (see Compile). It concatenates
// its arguments right to left as the VM would, calling __concat where an
// operand is neither a string nor a number, and refuses a result over
// the cap before allocating it.
func (vm *VM) luaConcat(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	acc := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if lua.LVCanConvToString(lhs) && lua.LVCanConvToString(acc) {
			// Join the run of plain operands ending at i with acc.
			j := i
			total := len(lua.LVAsString(acc))
			for j >= 1 && lua.LVCanConvToString(L.Get(j)) {
				total += len(lua.LVAsString(L.Get(j)))
				if total > vm.cfg.MaxStringBytes {
					vm.tooLarge(L, "concatenation", float64(total))
				}
				j--
			}
			vm.built(total)
			var sb strings.Builder
			sb.Grow(total)
			for k := j + 1; k <= i; k++ {
				sb.WriteString(lua.LVAsString(L.Get(k)))
			}
			sb.WriteString(lua.LVAsString(acc))
			acc = lua.LString(sb.String())
			i = j
			continue
		}
		mm := L.GetMetaField(lhs, "__concat")
		if mm == lua.LNil {
			mm = L.GetMetaField(acc, "__concat")
		}
		if _, ok := mm.(*lua.LFunction); !ok {
			bad := lhs
			if lua.LVCanConvToString(lhs) {
				bad = acc
			}
			L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
		}
		L.Push(mm)
		L.Push(lhs)
		L.Push(acc)
		L.Call(2, 1)
		acc = L.Get(-1)
		L.Pop(1)
		i--
	}
	L.Push(acc)
	return 1
}

func (vm *VM) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := float64(L.CheckNumber(2))
	sep := ""
	if L.GetTop() >= 3 {
		sep = L.CheckString(3)
	}
	if !(n >= 1) || len(s)+len(sep) == 0 { // also NaN
		L.Push(lua.LString(""))
		return 1
	}
	n = math.Floor(n)
	if size := float64(len(s))*n + float64(len(sep))*(n-1); size > float64(vm.cfg.MaxStringBytes) {
		vm.tooLarge(L, "string.rep", size)
	}
	count := int(n)
	vm.built(int(float64(len(s))*n + float64(len(sep))*(n-1)))
	var out string
	if sep == "" {
		out = strings.Repeat(s, count)
	} else {
		out = strings.Repeat(s+sep, count-1) + s
	}
	L.Push(lua.LString(out))
	return 1
}

// strUpper and strLower change ASCII letters only, byte by byte, as Lua
// does in the C locale; the result is exactly as long as the input.
func (vm *VM) strUpper(L *lua.LState) int { return vm.mapBytes(L, "string.upper", 'a', 'z', 'A'-'a') }
func (vm *VM) strLower(L *lua.LState) int { return vm.mapBytes(L, "string.lower", 'A', 'Z', 'a'-'A') }

func (vm *VM) mapBytes(L *lua.LState, fname string, lo, hi byte, delta int) int {
	s := L.CheckString(1)
	if len(s) > vm.cfg.MaxStringBytes {
		vm.tooLarge(L, fname, float64(len(s)))
	}
	vm.built(len(s))
	b := []byte(s)
	for i, c := range b {
		if lo <= c && c <= hi {
			b[i] = byte(int(c) + delta)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// strFormat is string.format of Lua 5.1: flags "-+ #0", a width and a
// precision of at most two digits each, and the conversions c d i o u x X
// e E f g G q s. Each argument is converted once, and the result is
// checked against the cap as it grows.
func (vm *VM) strFormat(L *lua.LState) int {
	fs := L.CheckString(1)
	max := vm.cfg.MaxStringBytes
	out := make([]byte, 0, len(fs)+16)
	add := func(s string) {
		if len(out)+len(s) > max {
			vm.tooLarge(L, "string.format", float64(len(out)+len(s)))
		}
		out = append(out, s...)
	}
	arg := 1
	for i := 0; i < len(fs); i++ {
		c := fs[i]
		if c != '%' {
			if len(out) >= max {
				vm.tooLarge(L, "string.format", float64(len(out)+1))
			}
			out = append(out, c)
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			add("%")
			continue
		}
		start := i
		for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := fs[start:i]
		wstart := i
		for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
			i++
		}
		width := fs[wstart:i]
		prec := ""
		if i < len(fs) && fs[i] == '.' {
			i++
			pstart := i
			for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
				i++
			}
			prec = "." + fs[pstart:i]
		}
		if i < len(fs) && isDigit(fs[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i >= len(fs) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		conv := fs[i]
		arg++
		spec := "%" + flags + width + prec
		switch conv {
		case 'c':
			n := checkInteger(L, arg)
			add(pad(string([]byte{byte(n)}), width, strings.Contains(flags, "-")))
		case 'd', 'i':
			add(fmt.Sprintf(spec+"d", checkInteger(L, arg)))
		case 'o':
			add(fmt.Sprintf(spec+"o", uint64(checkInteger(L, arg))))
		case 'u':
			add(fmt.Sprintf(spec+"d", uint64(checkInteger(L, arg))))
		case 'x', 'X':
			add(fmt.Sprintf(spec+string(conv), uint64(checkInteger(L, arg))))
		case 'e', 'E', 'f', 'g', 'G':
			f := float64(L.CheckNumber(arg))
			switch {
			case math.IsInf(f, 1):
				add(pad("inf", width, strings.Contains(flags, "-")))
			case math.IsInf(f, -1):
				add(pad("-inf", width, strings.Contains(flags, "-")))
			case math.IsNaN(f):
				add(pad("nan", width, strings.Contains(flags, "-")))
			default:
				if prec == "" && (conv == 'g' || conv == 'G') {
					spec += ".6" // C's default; Go's %g would print the shortest form
				}
				add(fmt.Sprintf(spec+string(conv), f))
			}
		case 'q':
			s := L.CheckString(arg)
			if 2*len(s)+2 > max-len(out) { // the bound before quoting
				q := quoteLen(s)
				if len(out)+q > max {
					vm.tooLarge(L, "string.format", float64(len(out)+q))
				}
			}
			out = appendQuoted(out, s)
		case 's':
			s := L.ToStringMeta(L.CheckAny(arg)).String()
			if prec != "" {
				if p, _ := strconv.Atoi(prec[1:]); p < len(s) {
					s = s[:p]
				}
			}
			add(pad(s, width, strings.Contains(flags, "-")))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	vm.built(len(out))
	L.Push(lua.LString(out))
	return 1
}

// pad pads s with spaces to width (a decimal string, possibly empty).
func pad(s, width string, left bool) string {
	w, _ := strconv.Atoi(width)
	if len(s) >= w {
		return s
	}
	fill := strings.Repeat(" ", w-len(s))
	if left {
		return s + fill
	}
	return fill + s
}

// quoteLen is the length of %q of s.
func quoteLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\\', '\n', '\r':
			n += 2
		case 0:
			n += 4
		default:
			n++
		}
	}
	return n
}

// appendQuoted appends %q of s as Lua 5.1 writes it.
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, '\\', 'r')
		case 0:
			out = append(out, '\\', '0', '0', '0')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// subject reads the subject of a pattern function and enforces its cap.
func (vm *VM) subject(L *lua.LState, fname string) string {
	s := L.CheckString(1)
	if len(s) > vm.cfg.MaxPatternSubject {
		L.RaiseError("%s: subject of %d bytes is longer than the limit of %d", fname, len(s), vm.cfg.MaxPatternSubject)
	}
	return s
}

// patternStepsPerUnit is how many matcher steps cost one unit of a call's
// budget: a step is a few times cheaper than a VM instruction.
const patternStepsPerUnit = 4

// matcher returns a matchState for src and pat that raises Lua errors,
// charges the running call for its steps and stops when the call is over
// its budget or its hang guard.
func (vm *VM) matcher(L *lua.LState, fname, src, pat string) *matchState {
	return &matchState{
		src: src,
		pat: pat,
		raise: func(msg string) {
			L.RaiseError("%s: %s", fname, msg)
		},
		expired: func() bool {
			return vm.meter.charge(patternCheckEvery / patternStepsPerUnit)
		},
	}
}

// pushCapture pushes capture i of the match src[s:e].
func pushCapture(L *lua.LState, m *matchState, i, s, e int) {
	str, pos, isPos := m.captureValue(i, s, e)
	if isPos {
		L.Push(lua.LNumber(pos))
		return
	}
	L.Push(lua.LString(str))
}

// pushCaptures pushes the captures of the match src[s:e], or the whole
// match when the pattern has none and whole is set.
func pushCaptures(L *lua.LState, m *matchState, s, e int, whole bool) int {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		pushCapture(L, m, i, s, e)
	}
	return n
}

// startIndex turns Lua's init argument into a 0-based start in [0, n].
func startIndex(L *lua.LState, arg int, n int) int {
	init := optInteger(L, arg, 1)
	if init < 0 {
		init += int64(n) + 1
	}
	init--
	if init < 0 {
		return 0
	}
	if init > int64(n) {
		return n
	}
	return int(init)
}

func (vm *VM) strFind(L *lua.LState) int  { return vm.findAux(L, true) }
func (vm *VM) strMatch(L *lua.LState) int { return vm.findAux(L, false) }

func (vm *VM) findAux(L *lua.LState, find bool) int {
	fname := "string.match"
	if find {
		fname = "string.find"
	}
	s := vm.subject(L, fname)
	p := L.CheckString(2)
	init := startIndex(L, 3, len(s))
	if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(p, patternSpecials)) {
		if i := strings.Index(s[init:], p); i >= 0 {
			L.Push(lua.LNumber(init + i + 1))
			L.Push(lua.LNumber(init + i + len(p)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	m := vm.matcher(L, fname, s, p)
	for s1 := init; ; s1++ {
		m.reset()
		if e := m.match(s1, 0); e != -1 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return pushCaptures(L, m, s1, e, false) + 2
			}
			return pushCaptures(L, m, s1, e, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func (vm *VM) strGmatch(L *lua.LState) int {
	s := vm.subject(L, "string.gmatch")
	p := L.CheckString(2)
	pos := 0
	L.Push(vm.fn(func(L *lua.LState) int {
		m := vm.matcher(L, "string.gmatch", s, p)
		for src := pos; src <= len(s); src++ {
			m.reset()
			if e := m.match(src, 0); e != -1 {
				pos = e
				if e == src {
					pos++ // an empty match: move on at least one position
				}
				return pushCaptures(L, m, src, e, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

func (vm *VM) strGsub(L *lua.LState) int {
	src := vm.subject(L, "string.gsub")
	p := L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTTable, lua.LTFunction:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := optInteger(L, 4, int64(len(src))+1)
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	max := vm.cfg.MaxStringBytes
	out := make([]byte, 0, len(src))
	add := func(s string) {
		if len(out)+len(s) > max {
			vm.tooLarge(L, "string.gsub", float64(len(out)+len(s)))
		}
		out = append(out, s...)
	}
	m := vm.matcher(L, "string.gsub", src, p)
	s, n := 0, int64(0)
loop:
	for n < maxN {
		m.reset()
		e := m.match(s, 0)
		if e != -1 {
			n++
			vm.gsubValue(L, m, s, e, repl, add)
		}
		switch {
		case e != -1 && e > s:
			s = e
		case s < len(src):
			add(src[s : s+1])
			s++
		default:
			break loop
		}
		if anchor {
			break
		}
	}
	add(src[s:])
	vm.built(len(out))
	L.Push(lua.LString(out))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue adds the replacement for the match src[s:e].
func (vm *VM) gsubValue(L *lua.LState, m *matchState, s, e int, repl lua.LValue, add func(string)) {
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		rs := lua.LVAsString(r)
		for i := 0; i < len(rs); i++ {
			c := rs[i]
			if c != '%' {
				j := i
				for j < len(rs) && rs[j] != '%' {
					j++
				}
				add(rs[i:j])
				i = j - 1
				continue
			}
			i++
			if i >= len(rs) {
				L.RaiseError("string.gsub: invalid use of '%%' in replacement string")
			}
			switch d := rs[i]; {
			case d == '0':
				add(m.src[s:e])
			case isDigit(d):
				str, pos, isPos := m.captureValue(int(d-'1'), s, e)
				if isPos {
					str = strconv.Itoa(pos)
				}
				add(str)
			default:
				add(rs[i : i+1])
			}
		}
		return
	case *lua.LFunction:
		L.Push(r)
		nargs := pushCaptures(L, m, s, e, true)
		L.Call(nargs, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		pushCapture(L, m, 0, s, e)
		key := L.Get(-1)
		L.Pop(1)
		v = L.GetTable(r, key)
	}
	switch {
	case !lua.LVAsBool(v):
		add(m.src[s:e]) // keep the original text
	case lua.LVCanConvToString(v):
		add(lua.LVAsString(v))
	default:
		L.RaiseError("string.gsub: invalid replacement value (a %s)", v.Type().String())
	}
}
