package typo

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"send", "send", 0}, {"sned", "send", 1}, {"on_tik", "on_tick", 1},
		{"nrth", "north", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"abc", "", 3},
		{"ca", "abc", 3}, // the alignment distance, not the unrestricted one (2)
	} {
		if got := Distance(tc.a, tc.b, 100); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a, 100); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
		if got := Distance(tc.a, tc.b, 1); got != min(tc.want, 1) {
			t.Errorf("Distance(%q, %q) with limit 1 = %d, want %d", tc.a, tc.b, got, min(tc.want, 1))
		}
	}
}

func TestClosest(t *testing.T) {
	rooms := []string{"emberfall:room:north_street", "emberfall:room:square", "emberfall:room:market"}
	for _, tc := range []struct {
		s          string
		candidates []string
		within     int
		want       string
	}{
		{"emberfall:room:sqaure", rooms, 3, "emberfall:room:square"},
		{"emberfall:room:nowhere", rooms, 3, ""},
		{"emberfall:room:square", rooms, 3, ""},          // itself is no suggestion
		{"cat", []string{"cot", "bat", "car"}, 1, "bat"}, // ties: the first in sort order
		{"cat", []string{"car", "cot", "bat"}, 1, "bat"},
		{"sned", []string{"send", "say"}, 1, "send"},
		{"xyz", []string{"abc"}, 2, ""},
	} {
		if got := Closest(tc.s, tc.candidates, tc.within); got != tc.want {
			t.Errorf("Closest(%q, %q, %d) = %q, want %q", tc.s, tc.candidates, tc.within, got, tc.want)
		}
	}
	long := string(make([]byte, maxLen+1))
	if got := Closest(long, []string{long + "x"}, 3); got != "" {
		t.Errorf("a word past %d bytes got a suggestion", maxLen)
	}
}
