package world

import (
	"slices"
	"strings"
	"sync"

	"zonemud/zone"
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
	// vitals is what each member's zone last published of them, for
	// Group.Info. Guarded by mu.
	vitals map[string]zone.PartyMember
}

func (p *parties) init() {
	p.leader = map[string]string{}
	p.members = map[string][]string{}
	p.vitals = map[string]zone.PartyMember{}
}

// noParty is the Group.Info of a player in no party.
var noParty = zone.GroupInfoJSON("", nil)

// groupInfo is one Group.Info to send: to a player, whether they are in
// the party it describes.
type groupInfo struct {
	to   string
	info []byte
	in   bool
}

// infosLocked is the Group.Info each of names should see now: their
// party's, encoded once per party, or noParty for one in none (whose
// published vitals are forgotten).
func (p *parties) infosLocked(names []string) []groupInfo {
	out := make([]groupInfo, 0, len(names))
	byLeader := map[string][]byte{}
	for _, n := range names {
		ln := strings.ToLower(n)
		l := p.leader[ln]
		if l == "" {
			delete(p.vitals, ln)
			out = append(out, groupInfo{to: n, info: noParty})
			continue
		}
		ll := strings.ToLower(l)
		b, ok := byLeader[ll]
		if !ok {
			all := append([]string{l}, p.members[ll]...)
			ms := make([]zone.PartyMember, len(all))
			for i, m := range all {
				ms[i] = p.vitals[strings.ToLower(m)]
				ms[i].Name = m
			}
			b = zone.GroupInfoJSON(l, ms)
			byLeader[ll] = b
		}
		out = append(out, groupInfo{to: n, info: b, in: true})
	}
	return out
}

// partyNamesLocked is name's party, leader first, or name alone.
func (p *parties) partyNamesLocked(name string) []string {
	l := p.leader[strings.ToLower(name)]
	if l == "" {
		return []string{name}
	}
	return append([]string{l}, p.members[strings.ToLower(l)]...)
}

// sendGroupInfo hands each Group.Info to the zone holding its player; the
// caller holds no lock.
func (w *World) sendGroupInfo(gis []groupInfo) {
	for _, g := range gis {
		if z := w.Where(g.to); z != nil {
			z.GroupInfo(g.to, g.info, g.in)
		}
	}
}

// PartyVitals records what m's zone published of a party member and, if it
// changed, sends every member the party's Group.Info.
func (w *World) PartyVitals(m zone.PartyMember) {
	p := &w.parties
	p.mu.Lock()
	ln := strings.ToLower(m.Name)
	if p.leader[ln] == "" || p.vitals[ln] == m {
		p.mu.Unlock()
		return
	}
	p.vitals[ln] = m
	gis := p.infosLocked(p.partyNamesLocked(m.Name))
	p.mu.Unlock()
	w.sendGroupInfo(gis)
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
	line := p.addLocked(leader, member, most)
	var gis []groupInfo
	if line == "" {
		gis = p.infosLocked(p.partyNamesLocked(leader))
	}
	p.mu.Unlock()
	w.sendGroupInfo(gis)
	return line
}

func (p *parties) addLocked(leader, member string, most int) string {
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
	before := p.partyNamesLocked(leader)
	ok := p.removeLocked(strings.ToLower(leader), member)
	var gis []groupInfo
	if ok {
		gis = p.infosLocked(before)
	}
	p.mu.Unlock()
	w.sendGroupInfo(gis)
	return ok
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
	before := p.partyNamesLocked(name)
	tell, leader, ended = p.leaveLocked(name)
	gis := p.infosLocked(before)
	if leader == "" {
		gis = nil // in no party: nothing changed
	}
	p.mu.Unlock()
	w.sendGroupInfo(gis)
	return tell, leader, ended
}

func (p *parties) leaveLocked(name string) (tell []string, leader string, ended bool) {
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
