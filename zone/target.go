package zone

import (
	"strconv"
	"strings"
)

// targetSpec is a Diku target: "sword", "2.sword" (the second sword),
// "all" (everything), "all.coin" (every coin). Keywords match by prefix.
type targetSpec struct {
	all  bool
	nth  int // 1-based; 0 when all
	word string
}

// maxNth caps n in "n.word": larger numbers can never match anything real
// and are refused rather than counted to.
const maxNth = 10000

// parseTarget reads a target. ok is false for an empty target or a number
// that cannot name anything ("0.sword", "-1.sword", "99999999999.sword").
func parseTarget(s string) (targetSpec, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return targetSpec{}, false
	}
	if s == "all" {
		return targetSpec{all: true}, true
	}
	if rest, ok := strings.CutPrefix(s, "all."); ok {
		if rest == "" {
			return targetSpec{}, false
		}
		return targetSpec{all: true, word: rest}, true
	}
	if i := strings.IndexByte(s, '.'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 1 || n > maxNth || i+1 >= len(s) {
			return targetSpec{}, false
		}
		return targetSpec{nth: n, word: s[i+1:]}, true
	}
	return targetSpec{nth: 1, word: s}, true
}

// matches reports whether a typed word names something with keywords kws:
// each word of the typed text must begin some keyword ("long sw" finds a
// long sword).
func matches(typed string, kws []string) bool {
	if typed == "" {
		return true
	}
	for _, part := range strings.Fields(typed) {
		found := false
		for _, k := range kws {
			if strings.HasPrefix(k, part) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// pickItems returns the items in list that spec names: one, or all.
func pickItems(spec targetSpec, list []*Item) []*Item {
	var out []*Item
	n := 0
	for _, it := range list {
		if !matches(spec.word, it.keywords()) {
			continue
		}
		if spec.all {
			out = append(out, it)
			continue
		}
		n++
		if n == spec.nth {
			return []*Item{it}
		}
	}
	return out
}

// findItem is the item that word names among what c carries, then what
// lies in c's room, or nil.
func findItem(c *Char, word string) *Item {
	spec, ok := parseTarget(word)
	if !ok {
		return nil
	}
	return pickItem(spec, c.carried(), c.room.items)
}

// findChar is the character in c's room that word names, or nil.
func (z *Zone) findChar(c *Char, word string, includeSelf bool) *Char {
	spec, ok := parseTarget(word)
	if !ok {
		return nil
	}
	return z.pickChar(c, spec, includeSelf)
}

// pickItem returns the one item spec names in the lists, counting across
// them in order, or nil.
func pickItem(spec targetSpec, lists ...[]*Item) *Item {
	if spec.all {
		return nil
	}
	n := 0
	for _, list := range lists {
		for _, it := range list {
			if matches(spec.word, it.keywords()) {
				n++
				if n == spec.nth {
					return it
				}
			}
		}
	}
	return nil
}

// pickChar returns the character spec names in the room, other than
// excluding self unless includeSelf.
func (z *Zone) pickChar(c *Char, spec targetSpec, includeSelf bool) *Char {
	if spec.all || c.room == nil {
		return nil
	}
	n := 0
	for _, o := range c.room.people {
		if o == c && !includeSelf {
			continue
		}
		if o == c && (spec.word == "self" || spec.word == "me") {
			return c
		}
		if !charMatches(spec.word, o) || !z.canSee(c, o) {
			continue
		}
		n++
		if n == spec.nth {
			return o
		}
	}
	return nil
}

func charMatches(word string, o *Char) bool {
	if o.pl != nil {
		return strings.HasPrefix(strings.ToLower(o.name), word)
	}
	return matches(word, o.keywords())
}

// groupItems lists items the way players read them: identical ones once,
// with a count after them, as "a wooden torch (2)".
func groupItems(list []*Item, text func(*Item) string) []string {
	type group struct {
		text string
		n    int
	}
	var groups []group
	index := map[string]int{}
	for _, it := range list {
		t := text(it)
		if i, ok := index[t]; ok {
			groups[i].n++
			continue
		}
		index[t] = len(groups)
		groups = append(groups, group{text: t, n: 1})
	}
	out := make([]string, len(groups))
	for i, g := range groups {
		if g.n > 1 {
			out[i] = g.text + " (" + strconv.Itoa(g.n) + ")"
		} else {
			out[i] = g.text
		}
	}
	return out
}
