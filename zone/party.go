package zone

import (
	"encoding/json"
	"strings"

	"zonemud/internal/markup"
)

// What a party shares across zones: its talk (gsay), its members' vitals
// (GMCP Group.Info) and a kill's experience. The party itself is the
// world's; each member's vitals are their own zone's, published to the
// world when they change, and the world sends every member's zone one
// Group.Info to hand on. No zone reads another's players.

// PartyMember is one member's line of Group.Info: what their zone last
// published. Plain data.
type PartyMember struct {
	Name     string `json:"name"`
	Level    int    `json:"level"`
	HP       int    `json:"hp"`
	MaxHP    int    `json:"maxhp"`
	Mana     int    `json:"mana"`
	MaxMana  int    `json:"maxmana"`
	Moves    int    `json:"moves"`
	MaxMoves int    `json:"maxmoves"`
	Room     string `json:"room"`
	Leader   bool   `json:"leader"`
}

// groupInfo is the GMCP Group.Info payload.
type groupInfo struct {
	Leader  string        `json:"leader"`
	Members []PartyMember `json:"members"`
}

// GroupInfoJSON encodes Group.Info for a party: its leader and its members
// in order, the leader first. A party of none ("" leader) is the payload a
// player who left one is sent.
func GroupInfoJSON(leader string, members []PartyMember) []byte {
	gi := groupInfo{Leader: leader, Members: make([]PartyMember, len(members))}
	for i, m := range members {
		m.Leader = strings.EqualFold(m.Name, leader)
		gi.Members[i] = m
	}
	b, err := json.Marshal(gi)
	if err != nil {
		return []byte(`{"leader":"","members":[]}`) // plain strings and ints always encode
	}
	return b
}

// GroupInfo hands name, a player this zone holds (or passes on), the
// party's Group.Info; in says whether name is in the party it describes.
// It never blocks, and reports false if the zone has stopped.
func (z *Zone) GroupInfo(name string, info []byte, in bool) bool {
	return z.send(groupInfoMsg{to: name, info: info, in: in})
}

// groupInfoMsg is a party's Group.Info for one member (world-encoded, read
// only, shared by every member's message).
type groupInfoMsg struct {
	to   string
	info []byte
	in   bool
}

func (groupInfoMsg) isMsg() {}

// partyMsg is a line of party talk for one member; the zone that holds
// them drops it if they ignore the talker.
type partyMsg struct{ from, to, text string }

func (partyMsg) isMsg() {}

func (z *Zone) handleGroupInfo(m groupInfoMsg) {
	c := z.players[m.to]
	if c == nil {
		z.forward(m, m.to)
		return
	}
	c.pl.party = m.in
	if !m.in {
		c.pl.partyPub = PartyMember{}
	}
	if c.pl.sess != nil {
		c.pl.sess.GMCP("Group.Info", json.RawMessage(m.info))
	}
}

func (z *Zone) handlePartyTalk(m partyMsg) {
	c := z.players[m.to]
	if c == nil {
		z.forward(m, m.to)
		return
	}
	if c.pl.comm.ignores(m.from) {
		return
	}
	z.sendLine(c, m.from+" tells the party, '{G}"+m.text+"{x}'")
	z.holdGMCP(c, "Comm.Channel.Text", gmcpChannelText{Channel: "party", Talker: m.from, Text: markup.Strip(m.text)})
}

// partyTalk gives a member their line of party talk, here or in the zone
// that holds them.
func (z *Zone) partyTalk(from, to, text string) {
	m := partyMsg{from: from, to: to, text: text}
	if z.players[to] != nil {
		z.handlePartyTalk(m)
		return
	}
	z.forward(m, to)
}

// publishParty tells the world c's vitals, level and room for its party's
// Group.Info, if they changed since the last time (or always, if force).
// Only a player in a party publishes, so a prompt costs the world nothing
// for everyone else.
func (z *Zone) publishParty(c *Char, force bool) {
	p := c.pl
	if p == nil || !p.party || c.room == nil {
		return
	}
	m := PartyMember{
		Name: c.name, Level: c.level, HP: c.hp, MaxHP: c.maxHP, Mana: c.mana, MaxMana: c.maxM,
		Moves: c.mv, MaxMoves: c.maxMv, Room: markup.Strip(c.room.proto.Name),
	}
	if !force && m == p.partyPub {
		return
	}
	p.partyPub = m
	z.shard.PartyVitals(m)
}

// shareExp gives a kill's experience to by's party members standing in
// by's room, by the rule of game.toml's [party]; a killer in no party, or
// alone with it, takes it all.
func (z *Zone) shareExp(by *Char, exp int) {
	if exp <= 0 {
		return
	}
	var here []*Char
	if leader, members := z.shard.Party(by.name); leader != "" {
		for _, name := range append([]string{leader}, members...) {
			if o := z.players[name]; o != nil && o.room == by.room && o.hp > 0 {
				here = append(here, o)
			}
		}
	}
	if len(here) < 2 {
		z.gainExp(by, exp)
		return
	}
	rule := z.set.Game.Party
	total := exp * (100 + rule.BonusPercent*(len(here)-1)) / 100
	weights := make([]int, len(here))
	sum := 0
	for i, o := range here {
		weights[i] = max(1, z.evalOr(rule.ShareWeight, z.vars(o), o.level+5))
		sum += weights[i]
	}
	for i, o := range here {
		z.sendLine(o, "You take your share of the kill.")
		z.gainExp(o, max(1, total*weights[i]/sum))
	}
}
