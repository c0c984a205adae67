package content

import (
	"errors"
	"testing"
	"testing/fstest"
)

func TestFormula(t *testing.T) {
	vars := func(n string) int {
		return map[string]int{"level": 5, "strength": 14, "x": 0}[n]
	}
	for src, want := range map[string]int{
		"1 + 2 * 3":                7,
		"(1 + 2) * 3":              9,
		"20 + level * 10":          70,
		"-level + 2":               -3,
		"10 - 4 - 3":               3,
		"100 / 7 / 2":              7,
		"17 % 5":                   2,
		"max(level, 3) + min(1,2)": 6,
		"(strength - 10) / 2":      2,
	} {
		f, err := ParseFormula(src, []string{"level", "strength", "x"})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got, err := f.Eval(VarFunc(vars)); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", src, got, err, want)
		}
	}
	f, _ := ParseFormula("10 / x", []string{"x"})
	if _, err := f.Eval(VarFunc(vars)); !errors.Is(err, ErrDivZero) {
		t.Fatalf("division by zero: %v", err)
	}
	for _, bad := range []string{"", "1 +", "(1", "1)", "level level", "foo", "max(1)", "1 $ 2", "99999999999999999999"} {
		if _, err := ParseFormula(bad, []string{"level"}); err == nil {
			t.Errorf("ParseFormula(%q) accepted", bad)
		}
	}
}

func FuzzFormula(f *testing.F) {
	for _, s := range []string{"1+2", "level*level*100", "max(1,min(2,3))", "((((1))))", "-(-(-1))", "1/0", "9999999999*9999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, err := ParseFormula(s, []string{"level"})
		if err != nil {
			return
		}
		v, _ := fm.Eval(VarFunc(func(string) int { return 3 }))
		if v > formulaLimit || v < -formulaLimit {
			t.Fatalf("%q gave %d, past the clamp", s, v)
		}
	})
}

// game.toml mistakes are load-time errors naming the key: a formula that
// divides by zero at some level, an affect that never expires, an ability
// that applies an affect that does not exist.
func TestGameData_ProblemsAtLoad(t *testing.T) {
	fsys := minimalWorld()
	fsys["game.toml"] = &fstest.MapFile{Data: []byte(`
[world]
start_room = "town:room:square"
[character]
max_level = 10
max_hp = "100 / (level - 5)"
[combat]
soak = "victim_armor / (victim_level - level)"
[[affects]]
name = "forever"
pulses = 0
[[affects]]
name = "odd"
pulses = 10
stacking = "pile"
[[abilities]]
name = "zap"
apply = "nothing"
`)}
	_, err := Load(fsys)
	assertProblems(t, err,
		"game.toml:6: character.max_hp: formula \"100 / (level - 5)\": divides by zero",
		"game.toml:8: combat.soak: formula",
		"game.toml:11: affects[0].pulses: 0 is out of range 1 to 100000: every affect must expire",
		"game.toml:15: affects[1].stacking",
		"game.toml:18: abilities[0].apply: no affect \"nothing\"",
	)
}
