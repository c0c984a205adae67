package content

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Quests are written in zone files as [quests.<id>] tables:
//
//	[quests.rats]
//	name = "Rats in the Cellar"
//	description = "Marda wants the cellar cleared."
//	level = 1
//	requires = []
//	steps = [ { kind = "kill", target = "rat", count = 3 } ]
//	rewards = { exp = 100, gold = 10, items = ["bread"] }
//	board = "notice_board"      # offered where this item lies
//	giver = "innkeeper"         # or where this mob stands
//
// A step's kind says which event advances it: kill (target: a mob),
// fetch (target: an item, picked up), visit (target: a room), talk
// (mob: the mob to say something to) and give (target: an item, mob: the
// mob to give it to). Every ref is checked against the loaded world. A
// quest with neither board nor giver is offered nowhere: only a script
// starts it (mud.quest_start).

// QuestKind is the event that advances a quest step.
type QuestKind string

// The quest step kinds.
const (
	QuestKill  QuestKind = "kill"
	QuestFetch QuestKind = "fetch"
	QuestVisit QuestKind = "visit"
	QuestTalk  QuestKind = "talk"
	QuestGive  QuestKind = "give"
)

// Limits on one quest.
const (
	maxQuestSteps  = 20
	maxQuestCount  = 1000
	maxQuestReward = 1_000_000
)

type questSpec struct {
	Name        string          `toml:"name"`
	Description string          `toml:"description"`
	Level       int             `toml:"level"`
	Requires    []string        `toml:"requires"`
	Steps       []questStepSpec `toml:"steps"`
	Rewards     questRewardSpec `toml:"rewards"`
	Board       string          `toml:"board"`
	Giver       string          `toml:"giver"`
}

type questStepSpec struct {
	Kind   string `toml:"kind"`
	Target string `toml:"target"`
	Count  int    `toml:"count"`
	Mob    string `toml:"mob"`
	Text   string `toml:"text"`
}

type questRewardSpec struct {
	Exp   int      `toml:"exp"`
	Gold  int      `toml:"gold"`
	Items []string `toml:"items"`
}

// Quest is a quest prototype.
type Quest struct {
	ID          string
	Zone        string
	File        string
	Line        int
	Name        string
	Description string
	Level       int
	Requires    []string // quest ids that must be done first
	Steps       []QuestStep
	Rewards     QuestRewards
	Board       string // item ref: the quest is offered where one lies; "" for none
	Giver       string // mob ref: the quest is offered where one stands; "" for none
}

// QuestStep is one step. Target is a mob ref (kill), item ref (fetch,
// give) or room ref (visit); Mob is the mob ref of talk and give.
type QuestStep struct {
	Kind   QuestKind
	Target string
	Mob    string
	Count  int    // at least 1
	Text   string // what the quest log says of the step; "" for a default
}

// QuestRewards is what finishing a quest gives.
type QuestRewards struct {
	Exp   int
	Gold  int
	Items []string // item refs
}

// declareQuests reads every zone's quests once every prototype is
// declared and linked, so steps may name mobs, items and rooms of any
// zone, then checks prerequisites and their cycles.
func (l *loader) declareQuests(zoneFiles []string) {
	for _, file := range zoneFiles {
		zf := l.files[file]
		if zf == nil {
			continue
		}
		id := zf.Zone.ID
		if id == "" {
			id = strings.TrimSuffix(file, ".toml")
		}
		z := l.set.Zones[id]
		if z == nil || z.File != file {
			continue
		}
		for _, qid := range sortedKeys(zf.Quests) {
			key := "quests." + qid
			if !ValidName(qid) {
				l.problem(file, key, "%q is not a valid quest id (a-z, 0-9 and _)", qid)
				continue
			}
			if prev, ok := l.set.Quests[qid]; ok {
				l.problem(file, key, "quest %q is already declared in %s", qid, prev.File)
				continue
			}
			q := l.linkQuest(file, z, qid, zf.Quests[qid])
			l.set.Quests[qid] = q
			z.Quests = append(z.Quests, q)
		}
	}
	for _, file := range zoneFiles {
		zf := l.files[file]
		if zf == nil {
			continue
		}
		for _, qid := range sortedKeys(zf.Quests) {
			q := l.set.Quests[qid]
			if q == nil || q.File != file {
				continue
			}
			for i, r := range zf.Quests[qid].Requires {
				if _, ok := l.set.Quests[r]; !ok {
					l.problem(file, fmt.Sprintf("quests.%s.requires[%d]", qid, i), "no quest %q%s", r, suggest(r, keysOf(l.set.Quests)))
				}
			}
		}
	}
	l.checkQuestCycles()
	for id := range l.set.Quests {
		l.set.QuestOrder = append(l.set.QuestOrder, id)
	}
	sort.Slice(l.set.QuestOrder, func(i, j int) bool {
		a, b := l.set.Quests[l.set.QuestOrder[i]], l.set.Quests[l.set.QuestOrder[j]]
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return a.ID < b.ID
	})
}

func (l *loader) linkQuest(file string, z *Zone, id string, s questSpec) *Quest {
	key := "quests." + id
	q := &Quest{ID: id, Zone: z.ID, File: file, Line: l.line(file, key), Name: s.Name, Description: s.Description, Level: s.Level}
	l.text(file, key+".name", s.Name, maxShortBytes, true)
	l.text(file, key+".description", s.Description, maxTextBytes, false)
	if s.Level < 0 || s.Level > maxLevel {
		l.problem(file, key+".level", "%d is out of range 0 to %d", s.Level, maxLevel)
	}
	for i, r := range s.Requires {
		if r == id {
			l.problem(file, fmt.Sprintf("%s.requires[%d]", key, i), "a quest cannot require itself")
			continue
		}
		q.Requires = append(q.Requires, r)
	}
	if len(s.Steps) == 0 {
		l.problem(file, key+".steps", "a quest needs at least one step")
	}
	if len(s.Steps) > maxQuestSteps {
		l.problem(file, key+".steps", "%d steps; the limit is %d", len(s.Steps), maxQuestSteps)
	}
	for i, ss := range s.Steps {
		skey := fmt.Sprintf("%s.steps[%d]", key, i)
		st := QuestStep{Kind: QuestKind(ss.Kind), Count: ss.Count, Text: ss.Text}
		if st.Count == 0 {
			st.Count = 1
		}
		if st.Count < 1 || st.Count > maxQuestCount {
			l.problem(file, skey+".count", "%d is out of range 1 to %d", ss.Count, maxQuestCount)
		}
		l.text(file, skey+".text", ss.Text, maxShortBytes, false)
		var targetKind Kind
		needMob := false
		switch st.Kind {
		case QuestKill:
			targetKind = KindMob
		case QuestFetch:
			targetKind = KindItem
		case QuestVisit:
			targetKind = KindRoom
		case QuestTalk:
			needMob = true
		case QuestGive:
			targetKind, needMob = KindItem, true
		default:
			l.problem(file, skey+".kind", "%q is not a step kind (kill, fetch, visit, talk, give)", ss.Kind)
			continue
		}
		if targetKind != "" {
			if ss.Target == "" {
				l.problem(file, skey+".target", "a %s step needs a target %s", st.Kind, targetKind)
			} else if ref, ok := l.protoRef(file, skey+".target", z.ID, targetKind, ss.Target); ok {
				st.Target = ref
			}
		} else if ss.Target != "" {
			l.problem(file, skey+".target", "a %s step has no target; name the mob with mob", st.Kind)
		}
		if needMob {
			if ss.Mob == "" {
				l.problem(file, skey+".mob", "a %s step needs the mob it is done with", st.Kind)
			} else if ref, ok := l.protoRef(file, skey+".mob", z.ID, KindMob, ss.Mob); ok {
				st.Mob = ref
			}
		} else if ss.Mob != "" {
			l.problem(file, skey+".mob", "only talk and give steps name a mob")
		}
		q.Steps = append(q.Steps, st)
	}
	if s.Board != "" {
		if ref, ok := l.protoRef(file, key+".board", z.ID, KindItem, s.Board); ok {
			q.Board = ref
		}
	}
	if s.Giver != "" {
		if ref, ok := l.protoRef(file, key+".giver", z.ID, KindMob, s.Giver); ok {
			q.Giver = ref
		}
	}
	r := s.Rewards
	if r.Exp < 0 || r.Exp > maxQuestReward {
		l.problem(file, key+".rewards.exp", "%d is out of range 0 to %d", r.Exp, maxQuestReward)
	}
	if r.Gold < 0 || r.Gold > maxQuestReward {
		l.problem(file, key+".rewards.gold", "%d is out of range 0 to %d", r.Gold, maxQuestReward)
	}
	q.Rewards.Exp, q.Rewards.Gold = r.Exp, r.Gold
	for i, it := range r.Items {
		if ref, ok := l.protoRef(file, fmt.Sprintf("%s.rewards.items[%d]", key, i), z.ID, KindItem, it); ok {
			q.Rewards.Items = append(q.Rewards.Items, ref)
		}
	}
	return q
}

// checkQuestCycles refuses prerequisites that go round: a quest no one
// could ever start.
func (l *loader) checkQuestCycles() {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var visit func(id string, path []string) bool
	visit = func(id string, path []string) bool {
		switch state[id] {
		case onPath:
			cyc := append(path[slices.Index(path, id):], id)
			q := l.set.Quests[cyc[0]]
			l.problem(q.File, "quests."+cyc[0]+".requires", "prerequisites go round: %s", strings.Join(cyc, " -> "))
			return true
		case done:
			return false
		}
		state[id] = onPath
		q := l.set.Quests[id]
		for _, r := range q.Requires {
			if _, ok := l.set.Quests[r]; ok && visit(r, append(path, id)) {
				state[id] = done
				return true
			}
		}
		state[id] = done
		return false
	}
	for _, id := range sortedKeys(l.set.Quests) {
		if state[id] == unseen {
			visit(id, nil)
		}
	}
}
