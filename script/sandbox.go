package script

import (
	"math"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// maxArrayIndex replaces gopher-lua's MaxArrayIndex (64M). An assignment
// t[k] = v with an integer k below that index pads the table's array part
// with nils up to k, all inside one VM instruction, between two budget
// checks: in stock gopher-lua v1.1.2, `local t = {} t[67108863] = 1` ran
// for 45 s and allocated 5.9 GB on the development machine. Above the
// index, integer keys go to the hash part: correct Lua, only slower,
// except that gopher-lua's # counts the array part only, so a sequence
// grown with t[#t+1] = v stops at maxArrayIndex-1 elements (table.insert
// is unaffected). 1<<16 keeps one padding at 1 MiB (5 to 20 ms on the
// loaded 2-core development box, against 35 to 100 ms at 1<<18), and
// 65535 elements is more than a state-capped script keeps.
const maxArrayIndex = 1 << 16

func init() {
	// gopher-lua reads this package variable on every table store; set it
	// before any VM exists. This package is the process's only user of
	// gopher-lua.
	lua.MaxArrayIndex = maxArrayIndex
}

// maxTextBytes caps a string a script hands to the zone to show or log.
const maxTextBytes = 4 << 10

// lockedMarker is what getmetatable returns for a protected value.
const lockedMarker = lua.LString("locked")

// baseAllowed are the base functions scripts keep as they are. Gone:
// dofile, loadfile, load, loadstring, require, module (code loading);
// getfenv, setfenv (getfenv on a Go function returns the real global
// table); rawset (writes past the read-only proxies); collectgarbage,
// _printregs, newproxy, gcinfo. print and setmetatable are replaced.
// rawget and rawequal only read, and a proxy holds nothing raw.
var baseAllowed = []string{
	"assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
	"rawequal", "rawget", "select", "tonumber", "tostring", "type",
	"unpack", "xpcall", "_VERSION",
}

// open builds the sandbox: a Lua state with only base, table, string and
// math opened, then a fresh table of allowed builtins, with the library
// tables behind read-only proxies, for every entity env to fall back to.
// The real global table is emptied; nothing a script can reach leads to
// it (getfenv is gone, and every function a script defines gets its
// entity's env).
func (vm *VM) open() {
	// gopher-lua grows the value stack by RegistryGrowStep slots at a
	// time, copying it each time; with its default of 32, one
	// unpack({}, 1, 1e8) spent seconds copying on its way to the overflow
	// error. A sixteenth of the maximum keeps that to a few copies.
	grow := vm.cfg.RegistryMaxSize / 16
	if grow < 32 {
		grow = 32
	}
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       vm.cfg.CallStackSize,
		RegistrySize:        vm.cfg.RegistrySize,
		RegistryMaxSize:     vm.cfg.RegistryMaxSize,
		RegistryGrowStep:    grow,
		MinimizeStackMemory: true,
	})
	vm.ls = L
	// The order of gopher-lua's README, "Opening a subset of builtin
	// modules", without package: base first, then the libraries.
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.fn), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			panic("script: open " + lib.name + ": " + err.Error())
		}
	}
	g := L.G.Global
	origString := g.RawGetString("string").(*lua.LTable)
	origTable := g.RawGetString("table").(*lua.LTable)
	origMath := g.RawGetString("math").(*lua.LTable)

	b := L.NewTable()
	for _, name := range baseAllowed {
		b.RawSetString(name, g.RawGetString(name))
	}
	b.RawSetString("print", vm.fn(vm.luaPrint))
	for _, name := range []string{"pcall", "xpcall"} {
		b.RawSetString(name, vm.fn(vm.charged(g.RawGetString(name).(*lua.LFunction).GFunction)))
	}
	b.RawSetString("setmetatable", vm.fn(vm.luaSetMetatable(g.RawGetString("setmetatable").(*lua.LFunction))))

	str := vm.stringLib(origString)
	b.RawSetString("string", vm.freeze("string", str))
	b.RawSetString("table", vm.freeze("table", vm.tableLib(origTable)))
	b.RawSetString("math", vm.freeze("math", vm.mathLib(origMath)))
	b.RawSetString("mud", vm.freeze("mud", vm.mudLib()))
	vm.builtins = b
	vm.frozen[b] = struct{}{}

	// Method calls on strings ("x"):upper() look in the string metatable;
	// its __index is the real string table, and __metatable hides both
	// from getmetatable("").
	smt := L.NewTable()
	smt.RawSetString("__index", str)
	smt.RawSetString("__metatable", lockedMarker)
	L.SetMetatable(lua.LString(""), smt)
	vm.frozen[smt] = struct{}{}

	vm.envMeta = L.NewTable()
	vm.envMeta.RawSetString("__index", b)
	vm.envMeta.RawSetString("__metatable", lockedMarker)
	vm.frozen[vm.envMeta] = struct{}{}

	vm.concat = vm.fn(vm.luaConcat)
	vm.openHandles()

	// Empty the real globals: nothing should reach them, and if something
	// ever does, it finds nothing.
	var keys []lua.LValue
	g.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	for _, k := range keys {
		g.RawSet(k, lua.LNil)
	}
}

// goCallUnits is what a call of one of the sandbox's Go functions (a
// handle method, a mud function, a guarded library function) adds to the
// running call's budget on top of its instruction: such a call costs about
// as much as that many instructions.
const goCallUnits = 4

// fn wraps a Go function for Lua. The wrapper refuses to run on any Lua
// state but this VM's: a function value can only reach another VM through
// a bug in Go code, and running it there would touch this zone from the
// other zone's goroutine. It charges the call's budget goCallUnits.
func (vm *VM) fn(f lua.LGFunction) *lua.LFunction {
	return vm.ls.NewFunction(func(L *lua.LState) int {
		if L != vm.ls {
			L.RaiseError("function of another zone's VM")
		}
		vm.meter.used += goCallUnits
		return f(L)
	})
}

// Costs of an error caught by pcall or xpcall, in budget units. Raising
// and catching an error formats positions and a traceback of the whole
// call stack in Go, all inside one instruction of the caller.
const (
	caughtUnits   = 50 // an error caught near the top of the stack
	perFrameUnits = 8  // and for each frame of Lua calls below the catch
)

// charged wraps pcall or xpcall: an error they catch is charged to the
// running call's budget by the depth of the call stack where it is caught,
// so a script that fails over and over inside pcall (deep recursion
// through pcall) pays for the Go work of every failure.
func (vm *VM) charged(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := f(L)
		if n >= 1 && L.Get(-n) == lua.LFalse {
			vm.meter.charge(caughtUnits + perFrameUnits*int64(callDepth(L)))
		}
		return n
	}
}

// callDepth is the number of call frames on L's stack, to within a factor
// of two, in about that many steps.
func callDepth(L *lua.LState) int {
	n := 1
	for {
		if _, ok := L.GetStack(n); !ok {
			return n
		}
		n *= 2
	}
}

// freeze returns a read-only proxy of t: reads go through to t, writes
// raise, and getmetatable returns the locked marker. The proxy itself
// stays empty, so rawget on it finds nothing and next iterates nothing.
func (vm *VM) freeze(name string, t *lua.LTable) *lua.LTable {
	L := vm.ls
	p := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", vm.fn(func(L *lua.LState) int {
		L.RaiseError("attempt to modify read-only table '%s'", name)
		return 0
	}))
	mt.RawSetString("__metatable", lockedMarker)
	p.Metatable = mt
	vm.frozen[p] = struct{}{}
	vm.frozen[t] = struct{}{}
	vm.frozen[mt] = struct{}{}
	return p
}

// checkWritable raises if t is one of the builtin tables: the table
// library writes raw and would otherwise get past the proxies.
func (vm *VM) checkWritable(L *lua.LState, t *lua.LTable, fname string) {
	if _, ok := vm.frozen[t]; ok {
		L.RaiseError("%s: attempt to modify a read-only table", fname)
	}
}

// luaSetMetatable is setmetatable restricted to tables, as in Lua 5.1.
// gopher-lua would otherwise accept a number or a boolean and change the
// metatable every value of that type shares, across all entities.
func (vm *VM) luaSetMetatable(orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		t := L.CheckTable(1)
		if _, ok := vm.frozen[t]; ok {
			L.RaiseError("cannot change a protected metatable")
		}
		return orig.GFunction(L)
	}
}

// luaPrint sends its arguments, tab-separated, to the builder log.
func (vm *VM) luaPrint(L *lua.LState) int {
	var sb strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			sb.WriteByte('\t')
		}
		sb.WriteString(L.ToStringMeta(L.Get(i)).String())
		if sb.Len() > maxTextBytes {
			break
		}
	}
	vm.log(sb.String())
	return 0
}

// log writes one builder log line for the running script, within the
// per-call cap.
func (vm *VM) log(text string) {
	fr := vm.cur()
	if fr == nil {
		return
	}
	fr.logs++
	switch {
	case fr.logs <= vm.cfg.MaxLogsPerCall:
		vm.host.Log(fr.ent.c.key, capText(text, maxTextBytes))
	case fr.logs == vm.cfg.MaxLogsPerCall+1:
		vm.host.Log(fr.ent.c.key, "(log limit reached: further lines of this call dropped)")
	}
}

// capText cuts s to at most n bytes, at a character boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// mathLib is gopher-lua's math library with random and randomseed drawing
// from the zone's seeded RNG (randomseed does nothing).
func (vm *VM) mathLib(orig *lua.LTable) *lua.LTable {
	t := vm.ls.NewTable()
	orig.ForEach(func(k, v lua.LValue) { t.RawSet(k, v) })
	t.RawSetString("random", vm.fn(vm.luaRandom))
	t.RawSetString("randomseed", vm.fn(func(*lua.LState) int { return 0 }))
	return t
}

// luaRandom is math.random and mud.random: no argument gives a float in
// [0, 1); random(n) an integer in [1, n]; random(m, n) one in [m, n].
func (vm *VM) luaRandom(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(float64(vm.host.IntN(1<<53)) / (1 << 53)))
		return 1
	case 1:
		n := checkInteger(L, 1)
		if n < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(vm.intRange(L, 1, n)))
		return 1
	default:
		m, n := checkInteger(L, 1), checkInteger(L, 2)
		if m > n {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(vm.intRange(L, m, n)))
		return 1
	}
}

// intRange returns an integer in [m, n] from the zone's RNG.
func (vm *VM) intRange(L *lua.LState, m, n int64) int64 {
	span := n - m + 1
	if span <= 0 || span > 1<<53 {
		L.RaiseError("interval too large")
	}
	return m + int64(vm.host.IntN(int(span)))
}

// checkInteger reads argument n as an integer within 2^53 either side
// of zero.
func checkInteger(L *lua.LState, n int) int64 {
	f := float64(L.CheckNumber(n))
	if math.IsNaN(f) || f > 1<<53 || f < -(1<<53) {
		L.ArgError(n, "number out of range")
	}
	return int64(f) // truncates, as Lua 5.1 converts a number to an integer
}

// optInteger is checkInteger with a default for a missing argument.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInteger(L, n)
}
