package content

import (
	"fmt"
	"strconv"
	"strings"
)

// Dice is a roll written NdS+B, such as "2d6+1", "1d4", "3d8-2" or a plain
// number "7" (N = 0). Bounds keep every roll well inside int.
type Dice struct {
	N, S, B int
}

// Dice bounds: a roll never exceeds MaxDiceN*MaxDiceS+|MaxDiceB|.
const (
	MaxDiceN = 100
	MaxDiceS = 10000
	MaxDiceB = 1000000
)

// ParseDice parses a dice expression. Spaces are ignored.
func ParseDice(s string) (Dice, error) {
	t := strings.ReplaceAll(strings.ToLower(s), " ", "")
	if t == "" {
		return Dice{}, fmt.Errorf("dice %q: empty", s)
	}
	var d Dice
	rest := t
	if i := strings.IndexByte(t, 'd'); i >= 0 {
		n := 1
		if i > 0 {
			v, err := strconv.Atoi(t[:i])
			if err != nil || v < 0 || v > MaxDiceN {
				return Dice{}, fmt.Errorf("dice %q: count must be 0 to %d", s, MaxDiceN)
			}
			n = v
		}
		rest = t[i+1:]
		j := strings.IndexAny(rest, "+-")
		side := rest
		if j >= 0 {
			side = rest[:j]
			rest = rest[j:]
		} else {
			rest = ""
		}
		v, err := strconv.Atoi(side)
		if err != nil || v < 1 || v > MaxDiceS {
			return Dice{}, fmt.Errorf("dice %q: sides must be 1 to %d", s, MaxDiceS)
		}
		d.N, d.S = n, v
		if rest == "" {
			return d, nil
		}
	}
	v, err := strconv.Atoi(rest)
	if err != nil || v < -MaxDiceB || v > MaxDiceB {
		return Dice{}, fmt.Errorf("dice %q: bonus must be a whole number within ±%d", s, MaxDiceB)
	}
	d.B = v
	return d, nil
}

// String writes the dice back in the form ParseDice reads.
func (d Dice) String() string {
	switch {
	case d.N == 0:
		return strconv.Itoa(d.B)
	case d.B > 0:
		return fmt.Sprintf("%dd%d+%d", d.N, d.S, d.B)
	case d.B < 0:
		return fmt.Sprintf("%dd%d%d", d.N, d.S, d.B)
	}
	return fmt.Sprintf("%dd%d", d.N, d.S)
}

// Min and Max are the smallest and largest results.
func (d Dice) Min() int { return d.N + d.B }

// Max is the largest result.
func (d Dice) Max() int { return d.N*d.S + d.B }

// Avg is the mean result, rounded down.
func (d Dice) Avg() int { return (d.N*(d.S+1))/2 + d.B }

// Roll rolls the dice with intn, which must return a value in [0, n).
func (d Dice) Roll(intn func(n int) int) int {
	t := d.B
	for i := 0; i < d.N; i++ {
		t += 1 + intn(d.S)
	}
	return t
}

// UnmarshalTOML lets an area file write dice as a string ("2d6+1") or a
// plain integer (7).
func (d *Dice) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := ParseDice(x)
		if err != nil {
			return err
		}
		*d = p
		return nil
	case int64:
		if x < -MaxDiceB || x > MaxDiceB {
			return fmt.Errorf("number %d is out of range ±%d", x, MaxDiceB)
		}
		*d = Dice{B: int(x)}
		return nil
	}
	return fmt.Errorf("want dice such as \"2d6+1\" or a whole number, got %T", v)
}
