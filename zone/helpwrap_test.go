package zone

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"zonemud/content"
)

// The tables of the starter help (help newbie, combat, items, party, admin
// and the rest) keep their columns at the widths clients report most, 80
// and 160: every row written as aligned columns that fits the window comes
// out as written, its gaps whole (issue 20, item 4).
func TestHelp_TableColumnsSurviveAt80And160(t *testing.T) {
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	gap := regexp.MustCompile(`^ +\S.*\S {2,}\S`)
	for _, width := range []int{80, 160} {
		rows := 0
		for _, h := range set.Help {
			out := wrap(h.Text, width)
			for _, line := range strings.Split(h.Text, "\n") {
				if !gap.MatchString(line) || len(line) > width || strings.Contains(line, "{") {
					continue
				}
				rows++
				if !strings.Contains("\n"+out+"\n", "\n"+line+"\n") {
					t.Errorf("width %d, help %q: the row %q lost its columns:\n%s", width, h.Keywords[0], line, out)
				}
			}
		}
		if rows < 20 {
			t.Fatalf("width %d: only %d table rows in the starter help; the test holds nothing", width, rows)
		}
	}
}
