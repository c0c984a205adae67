package script

import (
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes allocated while f ran.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestCompile_DeepNestingIsRefusedCheaply feeds the compiler what cost
// gopher-lua's parser 100 to 300 MB each at 200,000 levels: it refuses
// them, naming the line, for little more than the source's own size.
func TestCompile_DeepNestingIsRefusedCheaply(t *testing.T) {
	const n = 200000
	for _, tc := range []struct{ name, src string }{
		{"parentheses", "local x = 1\nreturn " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n)},
		{"tables", "local x = 1\nreturn " + strings.Repeat("{", n) + strings.Repeat("}", n)},
		{"calls", "local x = 1\nreturn " + strings.Repeat("f(", n) + strings.Repeat(")", n)},
		{"blocks", "local x = 1\n" + strings.Repeat("do ", n/2) + strings.Repeat("end ", n/2)},
		{"functions", "local x = 1\n" + strings.Repeat("function f() ", n/4) + strings.Repeat("end ", n/4)},
		{"ifs", "local x = 1\n" + strings.Repeat("if x then ", n/4) + strings.Repeat("end ", n/4)},
		{"concatenation", "local x = 1\nreturn " + strings.Repeat("x .. ", n) + "x"},
		{"power", "local x = 1\nreturn " + strings.Repeat("x ^ ", n) + "x"},
		{"unary minus", "local x = 1\nreturn " + strings.Repeat("- ", n) + "x"},
		{"not", "local x = 1\nreturn " + strings.Repeat("not ", n) + "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			bytes := allocated(func() { _, err = Compile(tc.src, "deep.toml", 30, "k") })
			if err == nil || !strings.Contains(err.Error(), "deep.toml:31: nested too deeply (more than 200 levels)") {
				t.Fatalf("err = %v, want the nesting refused at deep.toml:31", err)
			}
			if bytes > 4<<20 {
				t.Errorf("refusing it allocated %d KB, want under 4 MB", bytes>>10)
			}
		})
	}
}

// TestCompile_OrdinaryNestingCompiles checks the scan does not refuse
// what real scripts write: long flat code, nesting up to the limit, and
// strings and comments full of brackets and operators.
func TestCompile_OrdinaryNestingCompiles(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"nesting at the limit", "return " + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199)},
		{"a long flat sum", "return " + strings.Repeat("1 + ", 900) + "1"},
		{"many statements", strings.Repeat("x = a .. b .. c\ny = -x ^ 2\nf(x)\n", 5000)},
		{"a long concatenation", "return " + strings.Repeat("'a' .. ", 150) + "'a'"},
		{"brackets in strings and comments", "-- (((((\n--[[ {{{{ ]]\nlocal s = '((((' .. \"[[[[\" .. [[ (((( ]] .. [==[ ]] {{{{ ]==]\nreturn s"},
		{"exponents are not operators", "return " + strings.Repeat("1e-5 + ", 300) + "1"},
		{"deep but separate chains", strings.Repeat("local a = - - - - - - - - - - 1\n", 100)},
		{"chains cut by comparisons", "return " + strings.Repeat("'a' .. 'b' == 'ab' and ", 150) + "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compile(tc.src, "ok.toml", 1, "k"); err != nil {
				t.Fatalf("Compile: %v", err)
			}
		})
	}
}
