package zone

import (
	"os"
	"testing"

	"zonemud/content"
)

// No starter social is named like a command: a command of the same name
// wins, so such a social could never run.
func TestSocials_NoneShadowedByACommand(t *testing.T) {
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	names := set.Socials.Names()
	if len(names) == 0 {
		t.Fatal("the starter world has no socials")
	}
	for _, s := range names {
		for _, cmd := range commands {
			if cmd.name == s {
				t.Errorf("social %q is also a command", s)
			}
		}
		if _, ok := content.ParseDir(s); ok {
			t.Errorf("social %q is a direction", s)
		}
	}
}
