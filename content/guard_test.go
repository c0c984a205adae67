package content

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/BurntSushi/toml"
)

// nested is x = {a={a={...}}} (or [[[...]]]) depth levels deep: the file
// that took a running server to 1.1 GB before it was measured first.
func nested(open, close string, depth int) string {
	return "x = " + strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth) + "\n"
}

// allocated is how many bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Every way of nesting deep is refused at the line that crosses the
// limit, with the limit named; text inside strings and comments is not
// nesting.
func TestMeasureTOML_RefusesEachShapeAtItsLine(t *testing.T) {
	lim := tomlLimits{nesting: 8, values: 50, cost: 1000}
	// Two keys at the top, whose strings and comments hold brackets.
	pre := "name = \"{[{[{[{[{[{[{[{[{[{[\" # {{{{{{{{{{{{{{{{\ndescription = '''\n[[[[[[[[[[[[[[[\n{{{{{{{{{{{{{{{\n'''\n"
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
		cost       int // the limit on cost, when not lim's
	}{
		{"inline tables", nested("{a=", "}", 20), 1, "the limit is 8", 0},
		{"arrays", nested("[", "]", 20), 1, "the limit is 8", 0},
		{"arrays of inline tables", nested("[{a=", "}]", 20), 1, "the limit is 8", 0},
		{"inline tables across lines", "x = {a=\n" + strings.Repeat("{a=\n", 20) + "1" + strings.Repeat("}", 21) + "\n", 8, "the limit is 8", 0},
		{"dotted key", strings.Repeat("a.", 20) + "b = 1\n", 1, "the limit is 8", 0},
		{"quoted dotted key", strings.Repeat(`"a.b".`, 20) + "b = 1\n", 1, "the limit is 8", 0},
		{"table header", "[" + strings.Repeat("a.", 20) + "b]\nc = 1\n", 1, "the limit is 8", 0},
		{"array of tables", "[[" + strings.Repeat("a.", 7) + "b]]\nc = 1\n", 1, "the limit is 8", 0},
		{"header then keys", "[a.b.c.d.e.f]\ng.h.i = 1\n", 2, "the limit is 8", 0},
		{"many keys", strings.Repeat("k = 1\n", 60), 49, "the limit is 50", 0},
		{"many array elements", "x = [\n" + strings.Repeat("1,\n", 60) + "]\n", 49, "the limit is 50", 0},
		{"deep and many", strings.Repeat("a.b.c.d.e.f = 1\n", 30), 20, "more than the limit of 120", 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := strings.Count(pre, "\n")
			lim := lim
			if tc.cost > 0 {
				lim.cost = tc.cost
			}
			line, msg := measureTOML(pre+tc.text, lim)
			if line != tc.line+pl || !strings.Contains(msg, tc.want) {
				t.Errorf("line %d %q; want line %d naming %q", line, msg, tc.line+pl, tc.want)
			}
		})
	}
	// Within every limit: the same shapes, shallow.
	for _, ok := range []string{
		pre + nested("{a=", "}", 7), pre + nested("[", "]", 6), pre + "[a.b.c]\nd.e = [[1, 2], [3]]\n",
		pre + "x = \"\"\"a \\\"\"\" [[[[[[[[[[[[[\"\"\"\ny = 'it''s'\n", pre + "x = {}\ny = []\nz = [ ]\n",
	} {
		if line, msg := measureTOML(ok, lim); line != 0 {
			t.Errorf("refused at line %d (%s):\n%s", line, msg, ok)
		}
	}
}

// The starter world and a generated 10,000-room world are well inside the
// limits: the guard never refuses what builders write.
func TestMeasureTOML_StarterWorldWellInside(t *testing.T) {
	files, err := filepath.Glob("../areas/*.toml")
	if err != nil || len(files) < 3 {
		t.Fatalf("starter world files: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, _, st := measureTOMLStats(string(data), areaLimits)
		if st.deepest > maxNesting/4 || st.values > maxValues/50 || st.cost > maxKeyCost/50 {
			t.Errorf("%s: %+v: near the limits (%d, %d, %d)", f, st, maxNesting, maxValues, maxKeyCost)
		}
	}
}

// The hostile file is refused by a load with its file, line and limit,
// in bounded memory: the guard's cost, not the decoder's. Decoded, 2,000
// levels of inline tables (8 KB) allocate about 470 MB.
func TestLoad_DeeplyNestedFileRefusedInBoundedMemory(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"inline tables", "[zone]\nname = \"Deep\"\n" + nested("{a=", "}", 2000)},
		{"dotted keys", "[zone]\nname = \"Deep\"\n" + strings.Repeat("a.", 2000) + "b = 1\n"},
		{"arrays", "[zone]\nname = \"Deep\"\n" + nested("[", "]", 200000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := minimalWorld()
			fsys["deep.toml"] = &fstest.MapFile{Data: []byte(tc.text)}
			var err error
			n := allocated(func() { _, err = Load(fsys) })
			ps, ok := err.(Problems)
			if !ok || len(ps) != 1 || ps[0].File != "deep.toml" || ps[0].Line != 3 || !strings.Contains(ps[0].Msg, fmt.Sprintf("the limit is %d", maxNesting)) {
				t.Fatalf("load: %v; want deep.toml:3 refused naming the limit %d", err, maxNesting)
			}
			if n > 4<<20 {
				t.Errorf("refusing it allocated %d bytes, want under 4 MB", n)
			}
		})
	}
}

// FuzzMeasureTOML holds the guard to the decoder: for any text the decoder
// reads, the guard's depth is the depth of what it decoded, and it counts
// at least every value and every level of their paths, so no shape slips
// past it into the decoder's quadratic cost.
func FuzzMeasureTOML(f *testing.F) {
	f.Add("a.b = [1, {c = 2, d = [3, [4]]}]\n[e.f]\ng = 'x'\n[[h]]\ni = \"\"\"\n[[[\n\"\"\"\n")
	f.Add("x = {a={a={a=1}}}\n")
	f.Add("\"q.r\".s = 1 # [[[\n")
	if files, _ := filepath.Glob("../areas/*.toml"); len(files) > 0 {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(string(data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, _, st := measureTOMLStats(text, tomlLimits{nesting: 1 << 30, values: 1 << 30, cost: 1 << 60})
		if st.deepest > 64 || st.cost > 20000 {
			return // the decoder's quadratic cost would stall the fuzzer
		}
		var v map[string]any
		if _, err := toml.Decode(text, &v); err != nil {
			return
		}
		deepest, leaves, cost := treeCost(v, 0)
		if st.deepest != deepest || st.values < leaves || st.cost < cost {
			t.Fatalf("guard %+v; the decoded tree has depth %d, %d leaves, cost %d", st, deepest, leaves, cost)
		}
	})
}

// treeCost is the depth, leaves and summed leaf depth of a decoded value.
func treeCost(v any, d int) (deepest, leaves, cost int) {
	add := func(dd, l, c int) { deepest, leaves, cost = max(deepest, dd), leaves+l, cost+c }
	switch v := v.(type) {
	case map[string]any:
		deepest = d
		for _, e := range v {
			add(treeCost(e, d+1))
		}
	case []map[string]any:
		deepest = d
		for _, e := range v {
			add(treeCost(e, d+1))
		}
	case []any:
		deepest = d
		for _, e := range v {
			add(treeCost(e, d+1))
		}
	default:
		return d, 1, d
	}
	return deepest, leaves, cost
}

// BenchmarkGuard is what the guard adds to a load: measuring every area
// file (guard) against reading and checking the whole world (load), for
// the folder in ZONEMUD_BENCH_AREAS (a genworld output, say) or the
// starter world.
//
//	ZONEMUD_BENCH_AREAS=/tmp/gw10k go test -run '^$' -bench Guard ./content
func BenchmarkGuard(b *testing.B) {
	dir := os.Getenv("ZONEMUD_BENCH_AREAS")
	if dir == "" {
		dir = "../areas"
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no area files in %s: %v", dir, err)
	}
	var texts []string
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(data))
		size += len(data)
	}
	b.Run("guard", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, s := range texts {
				if line, msg := measureTOML(s, areaLimits); line != 0 {
					b.Fatal(msg)
				}
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			if _, err := Load(os.DirFS(dir)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
