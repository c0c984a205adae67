package content

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// A bad socials file is refused like any area file, each problem with
// the file, the line and the social's key; it is never read as a zone.
func TestLoad_SocialsProblemsNameFileLineAndKey(t *testing.T) {
	fsys := minimalWorld()
	fsys[SocialsFile] = &fstest.MapFile{Data: []byte(`
[smile]
char_no_arg = "You smile."
others_no_arg = "$n smiles."

[grin]
char_no_arg = "You grin at $N."
colour = "red"
`)}
	_, err := Load(fsys)
	if err == nil {
		t.Fatal("a bad socials file loaded")
	}
	for _, want := range []string{
		"socials.toml:7: grin.char_no_arg: $N names a target",
		"socials.toml:8: grin.colour: unknown key",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "[zone]") || strings.Contains(err.Error(), "zone.") {
		t.Errorf("the socials file was read as a zone:\n%v", err)
	}
	fsys[SocialsFile] = &fstest.MapFile{Data: []byte("[smile]\nchar_no_arg = \"You smile.\"\n")}
	set, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if set.Socials.Find("smile") == nil || set.Zones["socials"] != nil {
		t.Fatalf("socials %v, zones %v", set.Socials.Names(), set.ZoneOrder)
	}
}

// The starter world ships the classic socials, at least forty, most with
// a target form.
func TestStarterWorld_Socials(t *testing.T) {
	set, err := Load(os.DirFS("../areas"))
	if err != nil {
		t.Fatal(err)
	}
	if n := set.Socials.Len(); n < 40 {
		t.Errorf("socials: got %d, want at least 40", n)
	}
	targeted := 0
	for _, name := range set.Socials.Names() {
		if set.Socials.Find(name).Targeted() {
			targeted++
		}
	}
	if targeted < 30 {
		t.Errorf("socials with a target: got %d, want at least 30", targeted)
	}
	for _, name := range []string{"smile", "nod", "wave", "bow", "laugh", "grin", "shrug", "hug", "poke", "thank"} {
		if set.Socials.Find(name) == nil {
			t.Errorf("no social %q", name)
		}
	}
}
