package quest

import (
	"strings"
	"testing"

	"zonemud/content"
)

var defs = map[string]*content.Quest{
	"rats": {ID: "rats", Name: "Rats", Level: 1, Steps: []content.QuestStep{
		{Kind: content.QuestKill, Target: "t:mob:rat", Count: 2},
		{Kind: content.QuestTalk, Mob: "t:mob:marda", Count: 1},
	}},
	"stone": {ID: "stone", Name: "Stone", Level: 4, Requires: []string{"rats"}, Steps: []content.QuestStep{
		{Kind: content.QuestFetch, Target: "t:item:stone", Count: 1},
		{Kind: content.QuestGive, Target: "t:item:stone", Mob: "t:mob:smith", Count: 1},
	}},
}

func names(id string) string { return defs[id].Name }

func none(string) int { return 0 }

// Steps go in order: a talk before the kills are done counts for nothing;
// the last step finishes the quest, once.
func TestLog_StepsInOrderAndFinishOnce(t *testing.T) {
	var l Log
	if r := l.Refusal(defs["rats"], 1, names); r != "" {
		t.Fatal(r)
	}
	l.Start(defs["rats"])
	if ch := l.Apply(defs, Event{Kind: content.QuestTalk, Mob: "t:mob:marda"}, none); len(ch) != 0 {
		t.Fatalf("a talk counted before the kills: %+v", ch)
	}
	l.Apply(defs, Event{Kind: content.QuestKill, Target: "t:mob:rat"}, none)
	l.Apply(defs, Event{Kind: content.QuestKill, Target: "t:mob:wolf"}, none)
	ch := l.Apply(defs, Event{Kind: content.QuestKill, Target: "t:mob:rat"}, none)
	if len(ch) != 1 || !ch[0].StepDone || ch[0].Finished || l.Active[0].Step != 1 {
		t.Fatalf("second rat: %+v %+v", ch, l.Active)
	}
	ch = l.Apply(defs, Event{Kind: content.QuestTalk, Mob: "t:mob:marda"}, none)
	if len(ch) != 1 || !ch[0].Finished || len(l.Active) != 0 || !l.IsDone("rats") {
		t.Fatalf("talk: %+v %+v", ch, l)
	}
	if ch := l.Apply(defs, Event{Kind: content.QuestTalk, Mob: "t:mob:marda"}, none); len(ch) != 0 {
		t.Fatalf("finished twice: %+v", ch)
	}
	if r := l.Refusal(defs["rats"], 1, names); !strings.Contains(r, "already done") {
		t.Fatalf("again: %q", r)
	}
}

// Level and prerequisites are refused with the reason; a quest cannot be
// taken twice.
func TestLog_Refusals(t *testing.T) {
	var l Log
	if r := l.Refusal(defs["stone"], 5, names); r != "You must finish Rats before Stone." {
		t.Fatalf("prerequisite: %q", r)
	}
	done := Log{Done: []string{"rats"}}
	if r := done.Refusal(defs["stone"], 2, names); !strings.Contains(r, "level 4") {
		t.Fatalf("level: %q", r)
	}
	if r := done.Refusal(defs["stone"], 4, names); r != "" {
		t.Fatalf("allowed: %q", r)
	}
	l.Start(defs["rats"])
	if l.Start(defs["rats"]) || len(l.Active) != 1 {
		t.Fatal("started twice")
	}
	if r := l.Refusal(defs["rats"], 5, names); !strings.Contains(r, "already on") {
		t.Fatalf("twice: %q", r)
	}
	if l.Abandon("stone") || !l.Abandon("rats") || len(l.Active) != 0 {
		t.Fatalf("abandon: %+v", l)
	}
}

// A fetch step is met by what is carried, at once when the quest comes to
// it; a give counts for one quest.
func TestLog_FetchAndGive(t *testing.T) {
	l := Log{Done: []string{"rats"}}
	l.Start(defs["stone"])
	carry := 0
	carried := func(ref string) int {
		if ref == "t:item:stone" {
			return carry
		}
		return 0
	}
	if ch := l.Check(defs, carried); len(ch) != 0 {
		t.Fatalf("nothing carried: %+v", ch)
	}
	carry = 1
	ch := l.Check(defs, carried)
	if len(ch) != 1 || !ch[0].StepDone || l.Active[0].Step != 1 {
		t.Fatalf("carried: %+v %+v", ch, l.Active)
	}
	ch = l.Apply(defs, Event{Kind: content.QuestGive, Target: "t:item:stone", Mob: "t:mob:smith"}, carried)
	if len(ch) != 1 || !ch[0].Finished {
		t.Fatalf("give: %+v", ch)
	}
	// A quest that starts at a fetch step already met moves on when set.
	l = Log{Done: []string{"rats"}}
	l.Start(defs["stone"])
	if fin, ok := l.Set(defs["stone"], 1); fin || !ok || l.Active[0].Step != 1 {
		t.Fatalf("set: %+v", l)
	}
	if fin, ok := l.Set(defs["stone"], 9); !fin || !ok || !l.IsDone("stone") {
		t.Fatalf("set past the end: %+v", l)
	}
}
