package script

import (
	"fmt"
	"reflect"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua has no memory limit, so the VM estimates what each entity's
// script keeps between calls and caps it. The estimate is deterministic:
// a walk over the values reachable from self.state, and separately from
// the entity's env (its globals) and the upvalues of its functions and
// pending timers, counting table storage, strings and closures, and
// stopping as soon as the limit is passed, so a check costs at most about
// the limit's worth of work. Builtin tables, handles and Go functions are
// counted as a word and not entered.
//
// Table storage is read through reflection on gopher-lua's LTable: its
// hash part never forgets a key that was set and cleared (keys and k2i
// only grow), and its array part keeps its capacity, so a table that
// looks empty to Lua can hold megabytes. Counting len and cap of those
// fields catches that. If a gopher-lua upgrade renames them, the estimate
// falls back to counting entries (TestSizer_TableFields fails first).

// Estimated bytes per item.
const (
	wordBytes     = 16 // an LValue in a slot
	stringBytes   = 16 // string header
	tableBytes    = 96 // LTable struct
	hashBytes     = 48 // one entry of dict or strdict, key and value
	keyIndexBytes = 40 // one k2i entry
	funcBytes     = 64 // LFunction struct
	upvalueBytes  = 48 // one Upvalue
	userdataBytes = 48 // LUserData struct
	// A hash part's Go maps are made with room for 32 entries
	// (gopher-lua's defaultHashCap), whatever their length.
	hashPartBytes = 1280
	keyIndexBase  = 256 // the k2i map of a table with a hash part
)

var tableFields = func() (f struct {
	ok                              bool
	array, dict, strdict, keys, k2i int
}) {
	t := reflect.TypeOf(lua.LTable{})
	idx := func(name string, kind reflect.Kind) int {
		sf, ok := t.FieldByName(name)
		if !ok || sf.Type.Kind() != kind {
			return -1
		}
		return sf.Index[0]
	}
	f.array = idx("array", reflect.Slice)
	f.dict = idx("dict", reflect.Map)
	f.strdict = idx("strdict", reflect.Map)
	f.keys = idx("keys", reflect.Slice)
	f.k2i = idx("k2i", reflect.Map)
	f.ok = f.array >= 0 && f.dict >= 0 && f.strdict >= 0 && f.keys >= 0 && f.k2i >= 0
	return f
}()

// sizer measures reachable Lua data. Its seen set is reused between
// checks.
type sizer struct {
	seen   map[any]struct{}
	frozen map[*lua.LTable]struct{}
	total  int
	limit  int
	entry  func(k, v lua.LValue) // s.visit, bound once so walking allocates no closure
}

func (s *sizer) visit(k, v lua.LValue) {
	if !s.over() {
		s.value(k)
		s.value(v)
	}
}

// start begins a measurement with a fresh seen set.
func (s *sizer) start(frozen map[*lua.LTable]struct{}) {
	clear(s.seen)
	s.frozen = frozen
}

// measure returns the estimated size of v not yet counted in this
// measurement, stopping soon after limit.
func (s *sizer) measure(v lua.LValue, limit int) int {
	s.total, s.limit = 0, limit
	s.value(v)
	return s.total
}

func (s *sizer) over() bool { return s.total > s.limit }

func (s *sizer) value(v lua.LValue) {
	if s.over() {
		return
	}
	switch v := v.(type) {
	case lua.LString:
		s.total += stringBytes + len(v)
	case *lua.LTable:
		if _, ok := s.frozen[v]; ok {
			s.total += wordBytes
			return
		}
		if _, ok := s.seen[v]; ok {
			return
		}
		s.seen[v] = struct{}{}
		s.total += tableStorage(v)
		if s.over() {
			return
		}
		// Within the limit, the table has at most limit/hashBytes
		// entries (its storage was counted above), so ForEach, which
		// cannot stop early, is bounded too.
		v.ForEach(s.entry)
		s.value(v.Metatable)
	case *lua.LFunction:
		if _, ok := s.seen[v]; ok {
			return
		}
		s.seen[v] = struct{}{}
		s.total += funcBytes
		if v.IsG {
			return
		}
		s.total += upvalueBytes * len(v.Upvalues)
		for _, uv := range v.Upvalues {
			if uv != nil {
				s.value(uv.Value())
			}
		}
	case *lua.LUserData:
		s.total += userdataBytes
	default:
		s.total += wordBytes
	}
}

// tableStorage estimates the memory a table's own storage holds.
func tableStorage(t *lua.LTable) int {
	if !tableFields.ok {
		n := 0
		for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
			n++
		}
		return tableBytes + n*hashBytes
	}
	rv := reflect.ValueOf(t).Elem()
	f := tableFields
	n := tableBytes +
		rv.Field(f.array).Cap()*wordBytes +
		(rv.Field(f.dict).Len()+rv.Field(f.strdict).Len())*hashBytes +
		rv.Field(f.keys).Cap()*wordBytes +
		rv.Field(f.k2i).Len()*keyIndexBytes
	for _, m := range []int{f.dict, f.strdict} {
		if !rv.Field(m).IsNil() {
			n += hashPartBytes
		}
	}
	if !rv.Field(f.k2i).IsNil() {
		n += keyIndexBase
	}
	return n
}

// checkState measures what e's script keeps after a call and enforces
// Config.MaxStateBytes. It reports whether e is within bounds. Over the
// cap, self.state is reset to an empty table (the script keeps running;
// its own code put the data there); data kept in globals or upvalues
// cannot be taken back piecemeal, so the script is detached from the
// entity instead. Either is reported and charged to the breaker.
func (vm *VM) checkState(e *entity, b *breaker) bool {
	if !e.attached {
		return true
	}
	limit := vm.cfg.MaxStateBytes
	s := &vm.sizer
	s.start(vm.frozen)
	ok := true
	stateSize := s.measure(e.state, limit)
	if stateSize > limit {
		ok = false
		vm.stats.StateOver++
		e.state = vm.ls.NewTable()
		vm.failed(e, b, fmt.Sprintf("%s:%d: self.state is over %d bytes (estimated); it was reset to an empty table",
			e.c.file, e.c.lineOffset, limit), weightError)
		s.start(vm.frozen)
		stateSize = 0
	}
	s.seen[e.state] = struct{}{}
	s.total, s.limit = 0, limit
	s.value(e.env)
	for tid := range e.timers {
		if t, ok := vm.timers[tid]; ok {
			s.value(t.fn)
		}
	}
	envSize := s.total
	e.mem = stateSize + envSize
	if envSize > limit {
		vm.stats.StateOver++
		vm.failed(e, b, fmt.Sprintf("%s:%d: the script's globals and upvalues are over %d bytes (estimated); the script was detached from its entity",
			e.c.file, e.c.lineOffset, limit), weightError)
		vm.detach(e)
		return false
	}
	return ok
}
