package script

import (
	"runtime"
	"testing"
)

func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestStats_MemEstimate checks Stats.MemBytes against the heap growth of
// attaching many scripted entities: the estimate should be of the right
// order, not exact.
func TestStats_MemEstimate(t *testing.T) {
	h := newFakeHost("ember")
	vm := New(h, DefaultConfig())
	defer vm.Close()
	c, err := Compile(`
local greeting = "hi "
function on_greet(a) self:say(greeting .. a:name()) end
function on_tick() self.state.n = (self.state.n or 0) + 1 self.state.seen = {a = 1, b = 2} end`, "m.toml", 1, "m")
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for i := 0; i < n; i++ {
		h.chars[uint64(5000+i)] = &fakeChar{name: "x", room: "ember:hall"}
	}
	base := vm.Stats().MemBytes
	before := heapAlloc()
	for i := 0; i < n; i++ {
		id := char(uint64(5000 + i))
		if err := vm.Attach(id, c); err != nil {
			t.Fatal(err)
		}
		vm.Fire(id, "on_tick")
	}
	grew := heapAlloc() - before
	est := vm.Stats().MemBytes - base
	t.Logf("heap grew %d bytes per entity, estimated %d", grew/n, est/n)
	if est < grew/2 || est > grew*2 {
		t.Errorf("estimate %d bytes for %d entities, heap grew %d: off by more than 2x", est, n, grew)
	}
}
