package zone_test

import (
	"fmt"
	"strings"
	"testing"
)

// The owner check is on in every test binary: a pulse, a flush or a
// message run on a goroutine that is not the zone's panics instead of
// racing with it.
func TestOwnerCheck_RunPathsRefuseAnotherGoroutine(t *testing.T) {
	_, z := benchWorld(t)
	for name, f := range map[string]func(){
		"tick":  z.TickForTest,
		"drain": z.DrainForTest,
		"input": func() { z.InputForTest(newBenchSession(), 1, "look") },
	} {
		got := make(chan any, 1)
		go func() {
			defer func() { got <- recover() }()
			f()
		}()
		if v := <-got; v == nil || !strings.Contains(fmt.Sprint(v), "not the zone's") {
			t.Errorf("%s from another goroutine: recovered %v, want the owner check's panic", name, v)
		}
	}
}
