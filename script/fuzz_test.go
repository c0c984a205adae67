package script

import (
	"strings"
	"testing"
	"time"
)

// FuzzCompile compiles arbitrary source and, when it compiles, attaches it
// and fires its triggers under the real deadline: nothing may panic or
// hang, and every failure is reported with a position in the fuzz file.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		"function on_tick() self:say('hi') end",
		"function on_greet(a) self:say('Welcome, ' .. a:name() .. '!') end",
		"while true do end",
		"local s = 'x' for i = 1, 40 do s = s .. s end",
		"local t = {} for i = 1, 1e9 do t[i] = i end",
		"string.find(string.rep('a', 60000), '.-.-.-.-b')",
		"function on_tick() mud.after(1, on_tick) end",
		"local function f() return f() + 1 end f()",
		"x = = 1",
		"return " + strings.Repeat("{", 100) + strings.Repeat("}", 100),
		"goto l; ::l::",
		"self.state.x = string.format('%5.2f|%q|%s', 1.5, 'a\\0', self)",
	} {
		f.Add(seed)
	}
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Compile(src, "fuzz.toml", 7, "fuzz:mob")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.toml:") {
				t.Fatalf("compile error without a position: %v", err)
			}
			return
		}
		h := newFakeHost("fuzz")
		vm := New(h, cfg)
		h.vm = vm
		defer vm.Close()
		start := time.Now()
		if err := vm.Attach(char(2), c); err == nil {
			vm.Fire(char(2), "on_tick")
			vm.Fire(char(2), "on_greet", char(1))
			vm.Fire(char(2), "on_command", char(1), "look", "")
			h.advance(2)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("took %v", d)
		}
		for _, r := range h.reports {
			if !strings.HasPrefix(r.msg, "fuzz.toml:") {
				t.Fatalf("report without a position: %q", r.msg)
			}
		}
		if vm.depth != 0 {
			t.Fatalf("depth %d after the calls", vm.depth)
		}
	})
}

// patternError is what FuzzPattern's matcher raises.
type patternError string

// FuzzPattern runs the matcher directly on arbitrary subjects and
// patterns: a pattern error is fine, an index panic is not.
func FuzzPattern(f *testing.F) {
	f.Add("hello world", "(%w+) (%w+)")
	f.Add("f(a(b)c)d", "%b()")
	f.Add("THE (quick) fox", "%f[%a]%a+")
	f.Add("abab", "(ab)%1")
	f.Add("a]b", "[]]")
	f.Add("x", "[%")
	f.Add("aaa", "()a()%2")
	f.Fuzz(func(t *testing.T, src, pat string) {
		if len(src) > 256 || len(pat) > 64 {
			return
		}
		m := &matchState{src: src, pat: pat, raise: func(msg string) { panic(patternError(msg)) }}
		steps := 0
		m.expired = func() bool { steps++; return steps > 100 }
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(patternError); !ok {
					t.Fatalf("matcher panicked on %q %q: %v", src, pat, r)
				}
			}
		}()
		for s := 0; s <= len(src); s++ {
			m.reset()
			if e := m.match(s, 0); e != -1 {
				if e < s || e > len(src) {
					t.Fatalf("match end %d out of [%d, %d]", e, s, len(src))
				}
				for i := 0; i < m.level; i++ {
					m.captureValue(i, s, e)
				}
			}
		}
	})
}
