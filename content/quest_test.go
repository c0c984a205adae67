package content

import (
	"testing"
	"testing/fstest"
)

func questWorld(quests string) fstest.MapFS {
	fsys := minimalWorld()
	fsys["town.toml"].Data = append(fsys["town.toml"].Data, []byte(`
[mobs.rat]
keywords = ["rat"]
short = "a rat"
long = "A rat is here."
[items.cheese]
keywords = ["cheese"]
short = "some cheese"
long = "Some cheese lies here."
`+quests)...)
	return fsys
}

func TestQuest_Loads(t *testing.T) {
	set, err := Load(questWorld(`
[quests.rats]
name = "Rats"
level = 1
steps = [ { kind = "kill", target = "rat", count = 3 }, { kind = "visit", target = "road" } ]
rewards = { exp = 50, gold = 5, items = ["cheese"] }
board = "cheese"
giver = "town:mob:rat"
[quests.cheese]
name = "Cheese"
requires = ["rats"]
steps = [ { kind = "fetch", target = "town:item:cheese" }, { kind = "give", target = "cheese", mob = "rat" }, { kind = "talk", mob = "rat" } ]
`))
	if err != nil {
		t.Fatal(err)
	}
	q := set.Quests["rats"]
	if q == nil || q.Steps[0].Target != "town:mob:rat" || q.Steps[0].Count != 3 || q.Steps[1].Target != "town:room:road" || q.Steps[1].Count != 1 {
		t.Fatalf("rats: %+v", q)
	}
	if q.Rewards.Items[0] != "town:item:cheese" || q.Rewards.Gold != 5 || q.Line == 0 {
		t.Fatalf("rats rewards: %+v line %d", q.Rewards, q.Line)
	}
	if q.Board != "town:item:cheese" || q.Giver != "town:mob:rat" {
		t.Fatalf("rats offered by %q and %q", q.Board, q.Giver)
	}
	c := set.Quests["cheese"]
	if c.Steps[1].Mob != "town:mob:rat" || c.Steps[1].Target != "town:item:cheese" || c.Requires[0] != "rats" {
		t.Fatalf("cheese: %+v", c)
	}
	if len(set.Zones["town"].Quests) != 2 || len(set.QuestOrder) != 2 || set.QuestOrder[0] != "cheese" {
		t.Fatalf("order: %v", set.QuestOrder)
	}
}

// check refuses a step or reward that names what does not exist, with the
// file and line, and prerequisites that go round.
func TestQuest_Refusals(t *testing.T) {
	_, err := Load(questWorld(`
[quests.bad]
name = "Bad"
requires = ["nope"]
steps = [
  { kind = "kill", target = "wolf" },
  { kind = "fetch", target = "town:item:gold" },
  { kind = "visit", target = "moon:room:x" },
  { kind = "give", target = "cheese" },
  { kind = "dance", target = "rat" },
  { kind = "kill", target = "rat", count = -1 },
]
rewards = { items = ["sword"], gold = -3 }
board = "plank"
giver = "cheese"
[quests.a]
name = "A"
requires = ["b"]
steps = [ { kind = "kill", target = "rat" } ]
[quests.b]
name = "B"
requires = ["a"]
steps = [ { kind = "kill", target = "rat" } ]
[quests.empty]
name = ""
`))
	assertProblems(t, err,
		"town.toml:25: quests.bad.requires[0]: no quest \"nope\"",
		"town.toml:26: quests.bad.steps[0].target: no mob town:mob:wolf",
		"town.toml:26: quests.bad.steps[1].target: no item town:item:gold",
		"town.toml:26: quests.bad.steps[2].target: no zone \"moon\"",
		"town.toml:26: quests.bad.steps[3].mob: a give step needs the mob",
		"town.toml:26: quests.bad.steps[4].kind: \"dance\" is not a step kind",
		"town.toml:26: quests.bad.steps[5].count: -1 is out of range",
		"town.toml:34: quests.bad.rewards.items[0]: no item town:item:sword",
		"town.toml:34: quests.bad.rewards.gold: -3 is out of range",
		"town.toml:35: quests.bad.board: no item town:item:plank",
		"town.toml:36: quests.bad.giver: no mob town:mob:cheese",
		"town.toml:39: quests.a.requires: prerequisites go round: a -> b -> a",
		"town.toml:46: quests.empty.name: must not be empty",
		"town.toml:45: quests.empty.steps: a quest needs at least one step",
	)
}
