package zone_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"zonemud/content"
	"zonemud/zone"
)

func starterSet(t *testing.T) *content.Set {
	t.Helper()
	set, err := content.Load(os.DirFS(filepath.Join(repoRoot(), "areas")))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Every help topic and every command's usage shows only commands the game
// has, and every "help <word>" it suggests has an answer.
func TestHelp_ShowsOnlyRealCommands(t *testing.T) {
	for _, p := range zone.HelpProblems(starterSet(t)) {
		t.Error(p)
	}
}

// The check finds what it is for: a command the table lacks, in an
// example block or in quotes, a help topic that does not exist, and a
// topic listed under a command's name.
func TestHelp_CheckCatchesMissingCommands(t *testing.T) {
	set := starterSet(t)
	set.Help = append(set.Help, &content.Help{Keywords: []string{"probe"}, Title: "Probe", Text: `Try these:

  look              see the room
  wobble wildly     wobble

Or type "juggle balls", then read "help nowhere". Prose that names "Aria"
is not a command.`}, &content.Help{Keywords: []string{"wear", "clothes"}, Title: "Shadowed", Text: "What to wear."})
	got := strings.Join(zone.HelpProblems(set), "\n")
	for _, want := range []string{`"wobble wildly"`, `"juggle balls"`, `no help on nowhere`, `"Shadowed" is listed as wear`} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %s; it said:\n%s", want, got)
		}
	}
	for _, wrong := range []string{`"look"`, "Aria"} {
		if strings.Contains(got, wrong) {
			t.Errorf("the check flagged %s, which is fine; it said:\n%s", wrong, got)
		}
	}
}

// An example that handles an item names one a player can come by, of the
// kind its verb needs: the check flags a drink nobody can have, food
// that is not food, a container that is not one, and a name no item has,
// and passes what the starter world's resets and shops provide.
func TestHelp_CheckCatchesExamplesOfItemsNobodyCanHave(t *testing.T) {
	set := starterSet(t)
	// A flagon is written, but no reset, shop, quest or script makes one.
	set.Items["emberfall:item:flagon"] = &content.Item{Ref: "emberfall:item:flagon", Zone: "emberfall", Local: "flagon", Keywords: []string{"flagon"}, Type: content.ItemDrink}
	set.Help = append(set.Help, &content.Help{Keywords: []string{"probe"}, Title: "Probe", Text: `Try these:

  drink flagon        a drink nobody can have
  eat lantern         not food
  put bread in bread  not a container
  get 2.wobbler       no such thing
  drink ale           the chandler sells it
  put bread in pack   and packs
  get coins from chest  the strongbox in the wood
  buy 3 bread         counted
  sell all.ale        every one
  give 10 gold aria   money is no item
  get all corpse      every kill leaves one

Or "look in bucket".`})
	got := strings.Join(zone.HelpProblems(set), "\n")
	for _, want := range []string{
		`"drink flagon", but no drink called flagon can be had`,
		`"eat lantern", but no food called lantern`,
		`"put bread in bread", but no container called bread`,
		`"get 2.wobbler", but no item in the world is called wobbler`,
		`"look in bucket", but no container in the world is called bucket`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check missed %s; it said:\n%s", want, got)
		}
	}
	for _, fine := range []string{"drink ale", "in pack", "from chest", "buy 3", "all.ale", "10 gold", "all corpse"} {
		if strings.Contains(got, fine) {
			t.Errorf("the check flagged %q, which a player can do; it said:\n%s", fine, got)
		}
	}
}

// The README's table of what to type names only real commands.
func TestHelp_ReadmeTableShowsRealCommands(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "| to | type |")
	if start < 0 {
		t.Fatal("the README has no table of commands")
	}
	table := text[start:]
	table = table[:strings.Index(table, "\n\n")]
	var topic strings.Builder
	topic.WriteString("The README's table:\n")
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(table, -1) {
		topic.WriteString(`"` + m[1] + `"` + "\n")
	}
	set := starterSet(t)
	set.Help = append(set.Help, &content.Help{Keywords: []string{"readme"}, Title: "README", Text: topic.String()})
	for _, p := range zone.HelpProblems(set) {
		if strings.HasPrefix(p, `help.toml: topic "readme"`) {
			t.Error("README.md: " + strings.TrimPrefix(p, `help.toml: topic "readme": `))
		}
	}
}

// The builders' reference's table of builder commands names only commands
// a builder has (areas is everyone's; a builder sees more).
func TestHelp_BuilderTableShowsBuilderCommands(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(), "areas", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "| command | what it does |")
	if start < 0 {
		t.Fatal("areas/README.md has no table of builder commands")
	}
	table := text[start:]
	table = table[:strings.Index(table, "\n\n")]
	n := 0
	for _, row := range strings.Split(table, "\n")[2:] {
		for _, m := range regexp.MustCompile("^\\| `([a-z]+)").FindAllStringSubmatch(row, -1) {
			n++
			role, ok := zone.CommandRoleForTest(m[1])
			if m[1] == "areas" {
				continue // everyone's; a builder sees more of it
			}
			if !ok || role != "builder" {
				t.Errorf("areas/README.md lists %q as a builder command; the game has it as %q (exists: %v)", m[1], role, ok)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d builder commands in the table; want every one", n)
	}
}
