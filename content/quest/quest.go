package quest

import (
	"slices"
	"strconv"

	"zonemud/content"
)

// Progress is one quest under way: the step it is at (0-based) and what
// that step has counted.
type Progress struct {
	ID    string
	Step  int
	Count int
}

// Log is a character's quests.
type Log struct {
	Active []Progress // in the order they were taken
	Done   []string   // quest ids, in the order they were finished
}

// Clone returns a deep copy.
func (l Log) Clone() Log {
	return Log{Active: slices.Clone(l.Active), Done: slices.Clone(l.Done)}
}

// MaxActive caps the quests one character has under way.
const MaxActive = 20

// IsDone reports whether the quest has been finished.
func (l *Log) IsDone(id string) bool { return slices.Contains(l.Done, id) }

// Find returns the progress of a quest under way, or nil.
func (l *Log) Find(id string) *Progress {
	for i := range l.Active {
		if l.Active[i].ID == id {
			return &l.Active[i]
		}
	}
	return nil
}

// Refusal says why a character may not take q now, as a line for the
// player; "" if it may. level is the character's level; names gives a
// quest's name from its id (for the prerequisite it lacks).
func (l *Log) Refusal(q *content.Quest, level int, names func(id string) string) string {
	switch {
	case l.Find(q.ID) != nil:
		return "You are already on " + q.Name + "."
	case l.IsDone(q.ID):
		return "You have already done " + q.Name + "."
	}
	if r := l.Missing(q); r != "" {
		return "You must finish " + names(r) + " before " + q.Name + "."
	}
	switch {
	case level < q.Level:
		return q.Name + " is for level " + strconv.Itoa(q.Level) + " and above; you are level " + strconv.Itoa(level) + "."
	case len(l.Active) >= MaxActive:
		return "You have " + strconv.Itoa(MaxActive) + " quests under way already; finish or abandon one first."
	}
	return ""
}

// Missing is the first quest q requires that is not done, "" if none.
func (l *Log) Missing(q *content.Quest) string {
	for _, r := range q.Requires {
		if !l.IsDone(r) {
			return r
		}
	}
	return ""
}

// Start puts q under way at its first step. The caller has checked
// Refusal (a script may start a quest regardless of level and
// prerequisites, never twice).
func (l *Log) Start(q *content.Quest) bool {
	if l.Find(q.ID) != nil || l.IsDone(q.ID) {
		return false
	}
	l.Active = append(l.Active, Progress{ID: q.ID})
	return true
}

// Abandon drops a quest under way; it reports whether there was one.
func (l *Log) Abandon(id string) bool {
	for i := range l.Active {
		if l.Active[i].ID == id {
			l.Active = slices.Delete(l.Active, i, i+1)
			return true
		}
	}
	return false
}

// Event is something a character did that a step may be waiting for:
// Target is the mob killed, the item picked up or given, or the room
// entered; Mob the mob talked to or given to.
type Event struct {
	Kind   content.QuestKind
	Target string
	Mob    string
}

// Change is what an event (or a fetch check) did to one quest.
type Change struct {
	Quest *content.Quest
	// Step is the step that moved (0-based), Count what it has counted now.
	Step, Count int
	// StepDone: that step is done. Finished: so is the whole quest, which
	// has moved from Active to Done; its rewards are the caller's to give.
	StepDone, Finished bool
}

// Carried counts the items of a prototype the character carries.
type Carried func(itemRef string) int

// Apply hears an event for every quest under way (fetch steps are
// Check's). defs holds the quest definitions (a quest whose definition is
// gone hears nothing); carried answers for fetch steps the quests come to.
// A give is one item handed over: it counts for the first quest waiting
// for it and no other.
func (l *Log) Apply(defs map[string]*content.Quest, ev Event, carried Carried) []Change {
	var out []Change
	for i := 0; i < len(l.Active); i++ {
		p := &l.Active[i]
		q := defs[p.ID]
		if q == nil || p.Step >= len(q.Steps) {
			continue
		}
		st := q.Steps[p.Step]
		if !matches(st, ev) {
			continue
		}
		p.Count++
		ch := Change{Quest: q, Step: p.Step, Count: p.Count}
		if p.Count >= st.Count {
			ch.StepDone = true
		}
		out = append(out, ch)
		if ch.StepDone && l.next(i, q, carried, &out) {
			i--
		}
		if ev.Kind == content.QuestGive {
			break
		}
	}
	return out
}

// Check looks at every quest standing at a fetch step and moves on those
// whose items the character carries now.
func (l *Log) Check(defs map[string]*content.Quest, carried Carried) []Change {
	var out []Change
	for i := 0; i < len(l.Active); i++ {
		p := &l.Active[i]
		q := defs[p.ID]
		if q == nil || p.Step >= len(q.Steps) || q.Steps[p.Step].Kind != content.QuestFetch {
			continue
		}
		st := q.Steps[p.Step]
		n := carried(st.Target)
		if n <= p.Count {
			continue
		}
		p.Count = min(n, st.Count)
		ch := Change{Quest: q, Step: p.Step, Count: p.Count, StepDone: p.Count >= st.Count}
		out = append(out, ch)
		if ch.StepDone && l.next(i, q, carried, &out) {
			i--
		}
	}
	return out
}

// next moves quest i past a done step, through any fetch steps already
// met, to the next step or to the end. It reports whether the quest
// finished (and so left Active).
func (l *Log) next(i int, q *content.Quest, carried Carried, out *[]Change) bool {
	p := &l.Active[i]
	for {
		p.Step++
		p.Count = 0
		if p.Step >= len(q.Steps) {
			l.Active = slices.Delete(l.Active, i, i+1)
			l.Done = append(l.Done, q.ID)
			(*out)[len(*out)-1].Finished = true
			return true
		}
		st := q.Steps[p.Step]
		if st.Kind != content.QuestFetch || carried == nil {
			return false
		}
		n := min(carried(st.Target), st.Count)
		if n == 0 {
			return false
		}
		p.Count = n
		*out = append(*out, Change{Quest: q, Step: p.Step, Count: n, StepDone: n >= st.Count})
		if n < st.Count {
			return false
		}
	}
}

// Set puts a quest under way at a step (0-based), as a script may: the
// step's count starts again. A step past the last finishes the quest. It
// reports whether the quest was under way.
func (l *Log) Set(q *content.Quest, step int) (finished, ok bool) {
	for i := range l.Active {
		if l.Active[i].ID != q.ID {
			continue
		}
		if step >= len(q.Steps) {
			l.Active = slices.Delete(l.Active, i, i+1)
			l.Done = append(l.Done, q.ID)
			return true, true
		}
		l.Active[i].Step, l.Active[i].Count = max(step, 0), 0
		return false, true
	}
	return false, false
}

// matches reports whether ev is what step st waits for.
func matches(st content.QuestStep, ev Event) bool {
	if st.Kind != ev.Kind {
		return false
	}
	switch st.Kind {
	case content.QuestKill, content.QuestVisit:
		return st.Target == ev.Target
	case content.QuestTalk:
		return st.Mob == ev.Mob
	case content.QuestGive:
		return st.Target == ev.Target && st.Mob == ev.Mob
	}
	return false
}

// StepText is how the log names a step: its own text, or one made from
// its kind and what it names (short: a description of a ref).
func StepText(st content.QuestStep, short func(ref string) string) string {
	if st.Text != "" {
		return st.Text
	}
	switch st.Kind {
	case content.QuestKill:
		return "Kill " + short(st.Target)
	case content.QuestFetch:
		return "Find " + short(st.Target)
	case content.QuestVisit:
		return "Go to " + short(st.Target)
	case content.QuestTalk:
		return "Speak with " + short(st.Mob)
	case content.QuestGive:
		return "Give " + short(st.Target) + " to " + short(st.Mob)
	}
	return string(st.Kind)
}
