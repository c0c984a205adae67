// Package typo finds, for a word typed wrong, the known word it most
// likely meant: the "did you mean" of the messages builders read from
// zonemud check, a reload, a builder command or the script linter.
//
// It imports nothing of the project and starts no goroutines.
package typo

// maxLen is the longest word a suggestion is looked for: past it a typo
// is not the likely story, and the distance costs the product of the
// lengths.
const maxLen = 100

// Closest returns the candidate nearest to s, if it is at most within
// edits away, else "". A candidate equal to s is not a suggestion; among
// candidates equally near, the first in sort order wins, so the answer
// does not depend on the order they come in.
func Closest(s string, candidates []string, within int) string {
	if len(s) > maxLen {
		return ""
	}
	best, bestD := "", within+1
	for _, c := range candidates {
		if c == s || len(c) > maxLen {
			continue
		}
		if d := Distance(s, c, bestD+1); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the number of single-byte insertions, deletions,
// substitutions and swaps of neighbours that turn a into b (the optimal
// string alignment distance: "sned" is one from "send"), or limit if that
// is sure to be at least limit.
func Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	// Three rows: the one before the last, the last and this one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit)
}
