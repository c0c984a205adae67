package script

import (
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The table library. gopher-lua's functions write raw, past any
// __newindex, so each writer refuses the builtin tables first. concat is
// checked against the string cap; sort charges the call's budget as it
// compares, and stops when the call must, since one sort of a large table
// is a single Go call.

func (vm *VM) tableLib(orig *lua.LTable) *lua.LTable {
	t := vm.ls.NewTable()
	t.RawSetString("getn", orig.RawGetString("getn"))
	t.RawSetString("maxn", orig.RawGetString("maxn"))
	for _, name := range []string{"insert", "remove"} {
		name := name
		g := orig.RawGetString(name).(*lua.LFunction).GFunction
		t.RawSetString(name, vm.fn(func(L *lua.LState) int {
			vm.checkWritable(L, L.CheckTable(1), "table."+name)
			return g(L)
		}))
	}
	t.RawSetString("concat", vm.fn(vm.tableConcat))
	t.RawSetString("sort", vm.fn(vm.tableSort))
	return t
}

func (vm *VM) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := optInteger(L, 3, 1)
	j := optInteger(L, 4, int64(t.Len()))
	max := vm.cfg.MaxStringBytes
	var sb strings.Builder
	for k := i; k <= j; k++ {
		v := t.RawGet(lua.LNumber(k))
		if !lua.LVCanConvToString(v) {
			L.RaiseError("table.concat: invalid value (a %s) at index %d", v.Type().String(), k)
		}
		s := lua.LVAsString(v)
		n := sb.Len() + len(s)
		if k < j {
			n += len(sep)
		}
		if n > max {
			vm.tooLarge(L, "table.concat", float64(n))
		}
		sb.WriteString(s)
		if k < j {
			sb.WriteString(sep)
		}
	}
	vm.built(sb.Len())
	L.Push(lua.LString(sb.String()))
	return 1
}

func (vm *VM) tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	vm.checkWritable(L, t, "table.sort")
	var cmp lua.LValue
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		cmp = L.CheckFunction(2)
	}
	n := t.Len()
	vals := make([]lua.LValue, n)
	for i := range vals {
		vals[i] = t.RawGetInt(i + 1)
	}
	steps := 0
	less := func(a, b int) bool {
		steps++
		if steps&(patternCheckEvery-1) == 0 && vm.meter.charge(patternCheckEvery) {
			L.RaiseError("table.sort stopped: over the call's budget")
		}
		if cmp == nil {
			return L.LessThan(vals[a], vals[b])
		}
		L.Push(cmp)
		L.Push(vals[a])
		L.Push(vals[b])
		L.Call(2, 1)
		r := lua.LVAsBool(L.Get(-1))
		L.Pop(1)
		return r
	}
	sort.Slice(vals, less)
	for i, v := range vals {
		t.RawSetInt(i+1, v)
	}
	return 0
}
