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

// No starter channel is named like a command, a direction or a social.
func TestChannels_NoneShadowed(t *testing.T) {
	set, err := content.Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Channels) < 5 {
		t.Fatalf("the starter world has %d channels, want gossip, newbie, ooc, builder and admin", len(set.Channels))
	}
	for _, ch := range set.Channels {
		for _, cmd := range commands {
			if cmd.name == ch.Name {
				t.Errorf("channel %q is also a command", ch.Name)
			}
		}
		if _, ok := content.ParseDir(ch.Name); ok || set.Socials.Find(ch.Name) != nil {
			t.Errorf("channel %q is a direction or a social", ch.Name)
		}
	}
}
