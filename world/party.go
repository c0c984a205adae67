package world

import (
	"slices"
	"strings"
	"sync"
)

// parties are who goes into an instance copy with whom: a leader and the
// members the leader took in. A party spans zones (its members walk apart
// and meet again), so the world keeps it, under a lock of its own that is
// a leaf. It lasts while its members are in the world: one who leaves the
// world leaves the party, and a leader who leaves ends it.
type parties struct {
	mu      sync.Mutex
	leader  map[string]string   // guarded by mu: a member's or leader's lower-case name -> the leader's name
	members map[string][]string // guarded by mu: a leader's lower-case name -> the other members' names, in joining order
}

func (p *parties) init() {
	p.leader = map[string]string{}
	p.members = map[string][]string{}
}

// Party returns the leader of name's party ("" if none) and its other
// members.
func (w *World) Party(name string) (leader string, members []string) {
	p := &w.parties
	p.mu.Lock()
	defer p.mu.Unlock()
	leader = p.leader[strings.ToLower(name)]
	if leader == "" {
		return "", nil
	}
	return leader, slices.Clone(p.members[strings.ToLower(leader)])
}

// PartyAdd takes member into leader's party, making the party if leader
// has none; it returns the line that refuses it, if any.
func (w *World) PartyAdd(leader, member string, most int) string {
	p := &w.parties
	p.mu.Lock()
	defer p.mu.Unlock()
	ll, lm := strings.ToLower(leader), strings.ToLower(member)
	if l := p.leader[ll]; l != "" && !strings.EqualFold(l, leader) {
		return "Only " + l + ", your party's leader, takes in new members."
	}
	if l := p.leader[lm]; l != "" {
		if strings.EqualFold(l, leader) {
			return member + " is in your party already."
		}
		return member + " is in " + l + "'s party already."
	}
	if 1+len(p.members[ll]) >= most {
		return "Your party is as large as a party may be."
	}
	p.leader[ll] = leader
	p.leader[lm] = leader
	p.members[ll] = append(p.members[ll], member)
	return ""
}

// PartyRemove sends member out of leader's party; false if not in it.
func (w *World) PartyRemove(leader, member string) bool {
	p := &w.parties
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.removeLocked(strings.ToLower(leader), member)
}

// removeLocked takes member out of the party of the leader whose lower
// name is ll; a party left with its leader alone ends.
func (p *parties) removeLocked(ll, member string) bool {
	ms := p.members[ll]
	i := slices.IndexFunc(ms, func(m string) bool { return strings.EqualFold(m, member) })
	if i < 0 {
		return false
	}
	ms = slices.Delete(ms, i, i+1)
	delete(p.leader, strings.ToLower(member))
	if len(ms) == 0 {
		delete(p.members, ll)
		delete(p.leader, ll)
		return true
	}
	p.members[ll] = ms
	return true
}

// PartyLeave takes name out of its party; a leader's party ends.
func (w *World) PartyLeave(name string) { w.leaveParty(name) }

// leaveParty takes name out of its party and returns who should be told:
// the leader of a member who left, or every member of a party whose
// leader left. ended reports the latter.
func (w *World) leaveParty(name string) (tell []string, leader string, ended bool) {
	p := &w.parties
	p.mu.Lock()
	defer p.mu.Unlock()
	ln := strings.ToLower(name)
	leader = p.leader[ln]
	switch {
	case leader == "":
		return nil, "", false
	case strings.EqualFold(leader, name):
		tell = p.members[ln]
		for _, m := range tell {
			delete(p.leader, strings.ToLower(m))
		}
		delete(p.members, ln)
		delete(p.leader, ln)
		return tell, leader, true
	default:
		p.removeLocked(strings.ToLower(leader), name)
		return []string{leader}, leader, false
	}
}

// leftWorld takes a character that left the world out of its party and
// tells the others.
func (w *World) leftWorld(name string) {
	tell, leader, ended := w.leaveParty(name)
	text := name + " has left the world, and your party."
	if ended {
		text = leader + " has left the world; the party is over."
	}
	for _, t := range tell {
		if z := w.Where(t); z != nil {
			z.Notice(t, text)
		}
	}
}
