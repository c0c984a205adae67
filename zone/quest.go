package zone

import (
	"slices"
	"strconv"
	"strings"

	"zonemud/content"
	"zonemud/content/quest"
	"zonemud/internal/markup"
)

// Quests. Their definitions are content (content/quest.go); each player's
// progress is a quest.Log on the player, saved with the character
// (QuestRecord) and carried with it from zone to zone. The zone reports
// what its players do (kills, rooms entered, items picked up and given,
// words said before a mob) to the logs of the players it concerns, and
// gives a finished quest's rewards. Everything here runs on the zone
// goroutine, about the zone's own players: a kill in an instance copy
// credits the players standing in that copy, and no one else.

// QuestRecord is a character's quests, as saved: those under way, with
// the step each is at, and the ids of those done.
type QuestRecord struct {
	Active []QuestProgress
	Done   []string
}

// QuestProgress is one quest under way: its id, the step it is at
// (0-based) and what that step has counted.
type QuestProgress struct {
	ID    string
	Step  int
	Count int
}

// Clone returns a deep copy.
func (r QuestRecord) Clone() QuestRecord {
	return QuestRecord{Active: slices.Clone(r.Active), Done: slices.Clone(r.Done)}
}

func questLog(r QuestRecord) quest.Log {
	l := quest.Log{Done: slices.Clone(r.Done)}
	for _, p := range r.Active {
		l.Active = append(l.Active, quest.Progress(p))
	}
	return l
}

func questRecord(l *quest.Log) QuestRecord {
	r := QuestRecord{Done: slices.Clone(l.Done)}
	for _, p := range l.Active {
		r.Active = append(r.Active, QuestProgress(p))
	}
	return r
}

const questUsage = `quest | quest list | quest accept <n|name> | quest info <n|name> | quest abandon <n|name>
  Your quest log: the quests under way, numbered, with the step each is
  at, and those you have done. With list, the quests offered where you
  stand (at a notice board, or by someone with work to give), numbered;
  accept takes one of them. With info, all about a quest in your log (or
  one offered here, by name); abandon gives one up (you may take it
  again). A quest's steps are done in order: kill, find, go somewhere,
  speak (ask them, or say it where they stand) or give (give them the
  thing).`

// cmdQuest is the quest command and its subcommands.
func (z *Zone) cmdQuest(c *Char, args string) {
	sub, rest := firstWord(strings.TrimSpace(args))
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(sub) {
	case "":
		z.questLogShow(c)
	case "list":
		z.questList(c)
	case "accept", "take":
		z.questAccept(c, rest)
	case "info", "show":
		z.questInfo(c, rest)
	case "abandon", "drop":
		z.questAbandon(c, rest)
	case "log":
		z.questLogShow(c)
	default:
		z.sendLine(c, "quest what? quest, quest list, quest accept <n>, quest info <n> or quest abandon <n>.")
	}
}

// questName names a quest by id, its id if the content lost it.
func (z *Zone) questName(id string) string {
	if q := z.set.Quests[id]; q != nil {
		return q.Name
	}
	return id
}

// refShort describes a ref for a step's default text.
func (z *Zone) refShort(ref string) string {
	if m := z.set.Mobs[ref]; m != nil {
		return m.Short
	}
	if it := z.set.Items[ref]; it != nil {
		return it.Short
	}
	if r := z.set.Rooms[ref]; r != nil {
		return r.Name
	}
	return ref
}

func (z *Zone) stepText(st content.QuestStep) string {
	return markup.Strip(quest.StepText(st, z.refShort))
}

// stepLine is a step with its count: "Kill giant rats (1/3)".
func (z *Zone) stepLine(q *content.Quest, step, count int) string {
	st := q.Steps[step]
	s := z.stepText(st)
	if st.Count > 1 {
		s += " (" + itoa(count) + "/" + itoa(st.Count) + ")"
	}
	return s
}

func (z *Zone) questLogShow(c *Char) {
	z.questFetch(c)
	l := &c.pl.quests
	var b strings.Builder
	if len(l.Active) == 0 {
		b.WriteString("You have no quests under way. quest list shows those offered where you stand.")
	} else {
		b.WriteString("Your quests:")
		for i, p := range l.Active {
			b.WriteString("\n  " + itoa(i+1) + ". ")
			q := z.set.Quests[p.ID]
			if q == nil || p.Step >= len(q.Steps) {
				b.WriteString(z.questName(p.ID) + ": (no longer in the world)")
				continue
			}
			b.WriteString(q.Name + ": " + z.stepLine(q, p.Step, p.Count))
		}
	}
	if len(l.Done) > 0 {
		names := make([]string, len(l.Done))
		for i, id := range l.Done {
			names[i] = z.questName(id)
		}
		b.WriteString("\nDone: " + wrap(strings.Join(names, ", "), z.width(c)-6) + ".")
	}
	z.sendLine(c, b.String())
}

// questsOffered lists the quests offered in c's room: those whose board
// lies here or whose giver stands here, in the content's order.
func (z *Zone) questsOffered(c *Char) []*content.Quest {
	if c.room == nil || len(z.set.QuestOrder) == 0 {
		return nil
	}
	var out []*content.Quest
	for _, id := range z.set.QuestOrder {
		q := z.set.Quests[id]
		if q == nil || (q.Board == "" && q.Giver == "") {
			continue
		}
		if z.offersHere(c.room, q) {
			out = append(out, q)
		}
	}
	return out
}

func (z *Zone) offersHere(r *Room, q *content.Quest) bool {
	if q.Board != "" {
		for _, it := range r.items {
			if it.proto.Ref == q.Board {
				return true
			}
		}
	}
	if q.Giver != "" {
		for _, o := range r.mobs {
			if o.mob != nil && o.mob.Ref == q.Giver {
				return true
			}
		}
	}
	return false
}

func (z *Zone) questList(c *Char) {
	offered := z.questsOffered(c)
	if len(offered) == 0 {
		z.sendLine(c, "Nobody offers a quest here. Look for a notice board, or someone with work to give.")
		return
	}
	l := &c.pl.quests
	var b strings.Builder
	b.WriteString("Quests offered here:")
	for i, q := range offered {
		b.WriteString("\n  " + itoa(i+1) + ". " + q.Name + " (level " + itoa(q.Level) + ")")
		switch {
		case l.Find(q.ID) != nil:
			b.WriteString(": under way")
		case l.IsDone(q.ID):
			b.WriteString(": done")
		case l.Missing(q) != "":
			b.WriteString(": after " + z.questName(l.Missing(q)))
		case c.level < q.Level:
			b.WriteString(": not yet for you")
		}
	}
	b.WriteString("\nquest info <name> tells more; quest accept <n> takes one.")
	z.sendLine(c, b.String())
}

// pick finds a quest in list by number (1-based) or by name or id; the
// line is the refusal when it finds none.
func pick(list []*content.Quest, arg, what string) (*content.Quest, string) {
	if arg == "" {
		return nil, "Which quest? Give its number or its name."
	}
	if n, err := strconv.Atoi(arg); err == nil {
		if n < 1 || n > len(list) {
			switch len(list) {
			case 0:
				return nil, "There are no quests " + what + "."
			case 1:
				return nil, "There is only 1 quest " + what + "."
			}
			return nil, "There are only " + itoa(len(list)) + " quests " + what + "."
		}
		return list[n-1], ""
	}
	low := strings.ToLower(arg)
	for _, q := range list {
		if q.ID == low || strings.EqualFold(q.Name, arg) {
			return q, ""
		}
	}
	for _, q := range list {
		if strings.Contains(strings.ToLower(q.Name), low) {
			return q, ""
		}
	}
	return nil, "No quest " + what + " is called that."
}

// activeQuests are c's quests under way, in log order (those whose
// definition is gone are left out).
func (z *Zone) activeQuests(c *Char) []*content.Quest {
	var out []*content.Quest
	for _, p := range c.pl.quests.Active {
		if q := z.set.Quests[p.ID]; q != nil {
			out = append(out, q)
		} else {
			out = append(out, &content.Quest{ID: p.ID, Name: p.ID})
		}
	}
	return out
}

func (z *Zone) questAccept(c *Char, arg string) {
	q, refusal := pick(z.questsOffered(c), arg, "offered here")
	if q == nil {
		if arg != "" && z.set.Quests[strings.ToLower(arg)] == nil && len(z.questsOffered(c)) == 0 {
			refusal = "Nobody offers a quest here. Look for a notice board, or someone with work to give."
		}
		z.sendLine(c, refusal)
		return
	}
	if r := c.pl.quests.Refusal(q, c.level, z.questName); r != "" {
		z.sendLine(c, r)
		return
	}
	c.pl.quests.Start(q)
	z.dirty(c)
	line := "{Y}You take on " + q.Name + ".{x}"
	if q.Description != "" {
		line += "\n" + wrap(markup.Strip(q.Description), z.width(c))
	}
	z.sendLine(c, line+"\nFirst: "+z.stepLine(q, 0, 0)+".")
	z.gmcpQuests(c)
	z.questFetch(c)
}

func (z *Zone) questInfo(c *Char, arg string) {
	q, refusal := pick(z.activeQuests(c), arg, "in your log")
	if q == nil {
		if _, err := strconv.Atoi(arg); err != nil && arg != "" {
			// A name may be one offered here, or one done.
			if q, _ = pick(z.questsOffered(c), arg, ""); q == nil {
				for _, id := range c.pl.quests.Done {
					if dq := z.set.Quests[id]; dq != nil && (dq.ID == strings.ToLower(arg) || strings.Contains(strings.ToLower(dq.Name), strings.ToLower(arg))) {
						q = dq
						break
					}
				}
			}
		}
		if q == nil {
			z.sendLine(c, refusal)
			return
		}
	}
	if q.Steps == nil {
		z.sendLine(c, q.Name+" is no longer in the world. quest abandon takes it out of your log.")
		return
	}
	l := &c.pl.quests
	var b strings.Builder
	b.WriteString("{W}" + q.Name + "{x} (level " + itoa(q.Level) + ")")
	if len(q.Requires) > 0 {
		names := make([]string, len(q.Requires))
		for i, r := range q.Requires {
			names[i] = z.questName(r)
		}
		b.WriteString(", after " + strings.Join(names, ", "))
	}
	if q.Description != "" {
		b.WriteString("\n" + wrap(markup.Strip(q.Description), z.width(c)))
	}
	p := l.Find(q.ID)
	done := l.IsDone(q.ID)
	for i := range q.Steps {
		mark := "[ ]"
		count := 0
		switch {
		case done || (p != nil && i < p.Step):
			mark, count = "[x]", q.Steps[i].Count
		case p != nil && i == p.Step:
			mark, count = "[>]", p.Count
		}
		b.WriteString("\n  " + mark + " " + z.stepLine(q, i, count))
	}
	if r := z.rewardText(q); r != "" {
		b.WriteString("\nReward: " + r + ".")
	}
	switch {
	case done:
		b.WriteString("\nYou have done this quest.")
	case p == nil:
		b.WriteString("\nYou have not taken this quest.")
	}
	z.sendLine(c, b.String())
}

// rewardText says what a quest gives: "150 experience, 10 gold, a loaf
// of bread".
func (z *Zone) rewardText(q *content.Quest) string {
	var parts []string
	if q.Rewards.Exp > 0 {
		parts = append(parts, itoa(q.Rewards.Exp)+" experience")
	}
	if q.Rewards.Gold > 0 {
		parts = append(parts, itoa(q.Rewards.Gold)+" gold")
	}
	for _, ref := range q.Rewards.Items {
		parts = append(parts, z.refShort(ref))
	}
	return strings.Join(parts, ", ")
}

func (z *Zone) questAbandon(c *Char, arg string) {
	q, refusal := pick(z.activeQuests(c), arg, "in your log")
	if q == nil {
		z.sendLine(c, refusal)
		return
	}
	c.pl.quests.Abandon(q.ID)
	z.dirty(c)
	z.gmcpQuests(c)
	z.sendLine(c, "You abandon "+q.Name+". You may take it again where it is offered.")
}

// carriedCount counts the items of a prototype c carries, worn or not,
// in containers too.
func carriedCount(c *Char) quest.Carried {
	return func(ref string) int {
		n := 0
		var walk func([]*Item)
		walk = func(items []*Item) {
			for _, it := range items {
				if it == nil {
					continue
				}
				if it.proto.Ref == ref {
					n++
				}
				walk(it.contents)
			}
		}
		walk(c.eq)
		walk(c.inv)
		return n
	}
}

// questEvent tells c's log of an event and answers for what moved; it
// reports whether any quest heard it.
func (z *Zone) questEvent(c *Char, ev quest.Event) bool {
	if c == nil || c.pl == nil || len(c.pl.quests.Active) == 0 {
		return false
	}
	changes := c.pl.quests.Apply(z.set.Quests, ev, carriedCount(c))
	z.questChanged(c, changes)
	return len(changes) > 0
}

// questFetch moves on c's quests standing at a fetch step c has met.
func (z *Zone) questFetch(c *Char) {
	if c == nil || c.pl == nil || len(c.pl.quests.Active) == 0 {
		return
	}
	z.questChanged(c, c.pl.quests.Check(z.set.Quests, carriedCount(c)))
}

// questChanged tells c what its quests did, and gives the rewards of
// those finished. The log has already moved; the rewards and the log are
// saved together in the character's next save, so a quest is paid once.
func (z *Zone) questChanged(c *Char, changes []quest.Change) {
	if len(changes) == 0 {
		return
	}
	z.dirty(c)
	defer z.gmcpQuests(c)
	for _, ch := range changes {
		q := ch.Quest
		st := q.Steps[ch.Step]
		if !ch.StepDone {
			z.sendLine(c, "{C}Quest "+q.Name+":{x} "+z.stepLine(q, ch.Step, ch.Count)+".")
			continue
		}
		z.sendLine(c, "{C}Quest "+q.Name+":{x} "+z.stepText(st)+": done.")
		if ch.Finished {
			z.questReward(c, q)
			continue
		}
		if ch.Step+1 < len(q.Steps) {
			z.sendLine(c, "Next: "+z.stepLine(q, ch.Step+1, 0)+".")
		}
	}
}

// questReward gives a finished quest's rewards: experience, gold, and
// items made fresh from their prototypes (with new ids, as a reset
// makes them), into c's hands or, if full, at its feet.
func (z *Zone) questReward(c *Char, q *content.Quest) {
	z.sendLine(c, "{Y}You have finished "+q.Name+"!{x}")
	if g := q.Rewards.Gold; g > 0 {
		c.gold += g
		z.sendLine(c, "You receive "+itoa(g)+" gold coins.")
	}
	for _, ref := range q.Rewards.Items {
		p := z.set.Items[ref]
		if p == nil {
			continue
		}
		it := z.newItem(p)
		if len(c.inv) >= maxCarry && c.room != nil {
			z.itemToRoom(it, c.room)
			z.sendLine(c, "You receive "+it.short()+"; your hands are full, so it is at your feet.")
			continue
		}
		z.itemToChar(it, c)
		z.sendLine(c, "You receive "+it.short()+".")
	}
	z.gainExp(c, q.Rewards.Exp)
	z.dirty(c)
}

// questKill credits a mob's death to its killer and to the killer's
// party standing in the same room: each of them whose quest waits for
// that kill counts it. Only players of this zone are credited (in a copy,
// those inside it).
func (z *Zone) questKill(m, by *Char) {
	if m.mob == nil || by == nil || by.pl == nil || len(z.set.Quests) == 0 {
		return
	}
	ev := quest.Event{Kind: content.QuestKill, Target: m.mob.Ref}
	room := by.room
	credited := []*Char{by}
	if leader, members := z.shard.Party(by.name); leader != "" {
		for _, n := range append([]string{leader}, members...) {
			o := z.players[n]
			if o == nil || o == by || o.room != room || room == nil || slices.Contains(credited, o) {
				continue
			}
			credited = append(credited, o)
		}
	}
	for _, o := range credited {
		z.questEvent(o, ev)
	}
}

// questTalk is c saying something where mobs can hear: each mob there
// counts for a talk step that names it.
func (z *Zone) questTalk(c *Char) {
	if c.pl == nil || len(c.pl.quests.Active) == 0 || c.room == nil {
		return
	}
	for _, m := range append([]*Char(nil), c.room.mobs...) {
		if m.mob != nil {
			z.questEvent(c, quest.Event{Kind: content.QuestTalk, Mob: m.mob.Ref})
		}
	}
}

// questTalkTo is c speaking to mob m alone (ask).
func (z *Zone) questTalkTo(c, m *Char) {
	z.questEvent(c, quest.Event{Kind: content.QuestTalk, Mob: m.mob.Ref})
}

// questGive is c handing it to mob m. A quest that waited for it takes
// it: the item is destroyed (m does not keep it, so it can never come
// back to be given again), in the same change that moves the quest on.
func (z *Zone) questGive(c, m *Char, it *Item) {
	if c.pl == nil || m.mob == nil || len(c.pl.quests.Active) == 0 {
		return
	}
	if z.questEvent(c, quest.Event{Kind: content.QuestGive, Target: it.proto.Ref, Mob: m.mob.Ref}) {
		if it.carrier == m {
			z.extractItem(it)
		}
	}
}

// questVisit is c coming into room.
func (z *Zone) questVisit(c *Char, room *Room) {
	z.questEvent(c, quest.Event{Kind: content.QuestVisit, Target: room.proto.Ref})
}

// questStart is a script starting a quest for c: as quest accept, but
// wherever c stands. It returns the refusal, "" when it started.
func (z *Zone) questStart(c *Char, id string) string {
	q := z.set.Quests[id]
	if q == nil {
		return "no quest " + id
	}
	if r := c.pl.quests.Refusal(q, c.level, z.questName); r != "" {
		return r
	}
	c.pl.quests.Start(q)
	z.dirty(c)
	z.sendLine(c, "{Y}You take on "+q.Name+".{x}\nFirst: "+z.stepLine(q, 0, 0)+".")
	z.gmcpQuests(c)
	z.questFetch(c)
	return ""
}

// questAdvance is a script moving c's quest on: step 0 finishes the step
// it is at, step n (1-based) puts it at step n. Past the last step the
// quest is done and paid, once.
func (z *Zone) questAdvance(c *Char, id string, step int) string {
	q := z.set.Quests[id]
	if q == nil {
		return "no quest " + id
	}
	p := c.pl.quests.Find(id)
	if p == nil {
		return c.name + " is not on " + q.Name
	}
	from := p.Step
	to := step - 1
	if step == 0 {
		to = p.Step + 1
	}
	finished, _ := c.pl.quests.Set(q, to)
	z.dirty(c)
	defer z.gmcpQuests(c)
	if to > from && from < len(q.Steps) {
		z.sendLine(c, "{C}Quest "+q.Name+":{x} "+z.stepText(q.Steps[from])+": done.")
	}
	if finished {
		z.questReward(c, q)
		return ""
	}
	z.sendLine(c, "Next: "+z.stepLine(q, to, 0)+".")
	z.questFetch(c)
	return ""
}

// GMCP Char.Quests: the quest log, sent whenever it changes, and at login
// and zone change to a player who has one. It is built here, on the zone goroutine, from
// copies: the session encodes it on its own.
type gmcpQuests struct {
	Active []gmcpQuest `json:"active"`
	Done   []string    `json:"done"`
}

type gmcpQuest struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Step   int    `json:"step"` // from 1
	Steps  int    `json:"steps"`
	Text   string `json:"text"`
	Count  int    `json:"count"`
	Needed int    `json:"needed"`
}

func (z *Zone) gmcpQuests(c *Char) {
	if c.pl == nil || c.pl.sess == nil {
		return
	}
	l := &c.pl.quests
	v := gmcpQuests{Active: []gmcpQuest{}, Done: slices.Clone(l.Done)}
	if v.Done == nil {
		v.Done = []string{}
	}
	for _, p := range l.Active {
		q := z.set.Quests[p.ID]
		if q == nil || p.Step >= len(q.Steps) {
			continue
		}
		st := q.Steps[p.Step]
		v.Active = append(v.Active, gmcpQuest{ID: q.ID, Name: markup.Strip(q.Name), Step: p.Step + 1, Steps: len(q.Steps),
			Text: z.stepText(st), Count: p.Count, Needed: st.Count})
	}
	c.pl.sess.GMCP("Char.Quests", v)
}
