package zone

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"zonemud/content"
	"zonemud/internal/markup"
)

// Following and parties. A player follows another by choice (follow), and
// walks where the leader walks while they stand together. A leader takes a
// follower into their party (group); a party goes into an instance copy
// together: when its leader goes through an entrance, every member standing
// with the leader goes too, into the same copy, and a member who comes to
// the door later, while the copy lives, joins it. Both sides choose: the
// member by following, the leader by grouping. The party itself is the
// world's (it spans zones); following is the follower's own.

const followUsage = `follow <player> | follow
  Follow another player here: when they walk, you walk with them. follow
  alone (or follow self) stops.`

const groupUsage = `group <player> | group
  Take a player who follows you into your party. A party goes into a
  private dungeon together: when you, its leader, go through the door,
  every member standing with you comes along into the same copy, and a
  member who comes to the door later joins it. A kill's experience is
  shared among the members standing where it fell. group alone lists your
  party: each member's level, hp, mana, moves and where they stand.`

const ungroupUsage = `ungroup [player]
  Leave your party; a leader disbands it, or sends one member away.`

// maxParty is the most players in one party, its leader included.
const maxParty = 8

// cmdFollow starts or stops following.
func (z *Zone) cmdFollow(c *Char, args string) {
	name := strings.TrimSpace(args)
	if name == "" || strings.EqualFold(name, "self") || strings.EqualFold(name, c.name) {
		if c.pl.following == "" {
			z.sendLine(c, "You follow no one.")
			return
		}
		if o := z.players[c.pl.following]; o != nil {
			z.sendLine(o, c.name+" stops following you.")
		}
		z.sendLine(c, "You stop following "+c.pl.following+".")
		c.setFollowing("")
		return
	}
	o := z.playerHere(c, name)
	if o == nil {
		z.sendLine(c, "No one here by that name.")
		return
	}
	if z.leadsTo(o, c) {
		z.sendLine(c, "You cannot follow someone who follows you.")
		return
	}
	c.setFollowing(o.name)
	z.sendLine(c, "You now follow "+o.name+".")
	z.sendLine(o, c.name+" now follows you.")
}

// leadsTo reports whether following o's leaders, one after another, ever
// reaches c: following o would make a circle.
func (z *Zone) leadsTo(o, c *Char) bool {
	for i := 0; o != nil && i < 64; i++ {
		if o == c {
			return true
		}
		o = z.players[o.pl.following]
	}
	return false
}

// playerHere finds a player in c's room by name (or a start of one).
func (z *Zone) playerHere(c *Char, name string) *Char {
	for _, o := range c.room.people {
		if o.pl != nil && strings.EqualFold(o.name, name) {
			return o
		}
	}
	for _, o := range c.room.people {
		if o.pl != nil && len(name) >= 2 && strings.HasPrefix(strings.ToLower(o.name), strings.ToLower(name)) {
			return o
		}
	}
	return nil
}

// followers moves the players in from who follow leader (a player who
// just walked d, perhaps out of this zone): each walks as if they had
// typed it, and their own followers after them.
func (z *Zone) followers(leader string, from *Room, d content.Dir, depth int) {
	if depth > 8 || from.nfollow == 0 {
		return
	}
	var fs []*Char
	for _, o := range from.people {
		if o.pl != nil && strings.EqualFold(o.pl.following, leader) {
			fs = append(fs, o)
		}
	}
	for _, f := range fs {
		if f.room != from || !z.holds(f) || f.fighting != nil || f.pos == posSleeping {
			continue
		}
		z.sendLine(f, "You follow "+leader+".")
		z.walk(f, d, depth+1)
	}
}

// cmdGroup lists the party, or takes a follower into it.
func (z *Zone) cmdGroup(c *Char, args string) {
	name := strings.TrimSpace(args)
	if name == "" {
		leader, members := z.shard.Party(c.name)
		if leader == "" {
			z.sendLine(c, "You are in no party. group <player> takes someone who follows you into yours.")
			return
		}
		// Each member's vitals are their zone's: a member here is shown
		// now, one elsewhere is asked for by a message to their zone,
		// which answers c with a line of its own.
		var b strings.Builder
		fmt.Fprintf(&b, "%s's party:", leader)
		for _, m := range append([]string{leader}, members...) {
			if o := z.players[m]; o != nil {
				b.WriteString("\n" + z.memberLine(o, leader))
				continue
			}
			if oz := z.shard.Where(m); oz != nil && oz.send(groupStatMsg{of: m, to: c.name, leader: leader}) {
				continue
			}
			b.WriteString("\n  " + m + " (not in the world)")
		}
		z.sendLine(c, b.String())
		return
	}
	o := z.playerHere(c, name)
	switch {
	case o == nil:
		z.sendLine(c, "No one here by that name.")
		return
	case o == c:
		z.sendLine(c, "You lead yourself already.")
		return
	case !strings.EqualFold(o.pl.following, c.name):
		z.sendLine(c, o.name+" does not follow you; they must follow you first.")
		return
	}
	if line := z.shard.PartyAdd(c.name, o.name, maxParty); line != "" {
		z.sendLine(c, line)
		return
	}
	z.sendLine(c, o.name+" joins your party.")
	z.sendLine(o, "You join "+c.name+"'s party.")
	// Both stand here: their vitals go to the party's Group.Info now.
	for _, m := range []*Char{c, o} {
		m.pl.party = true
		z.publishParty(m, true)
	}
}

// cmdUngroup leaves the party, disbands it, or sends a member away.
func (z *Zone) cmdUngroup(c *Char, args string) {
	name := strings.TrimSpace(args)
	leader, members := z.shard.Party(c.name)
	switch {
	case leader == "":
		z.sendLine(c, "You are in no party.")
	case name != "" && leader != c.name:
		z.sendLine(c, "Only "+leader+", your party's leader, sends members away.")
	case name != "":
		var who string
		for _, m := range members {
			if strings.EqualFold(m, name) {
				who = m
			}
		}
		if who == "" || !z.shard.PartyRemove(leader, who) {
			z.sendLine(c, "No one by that name is in your party.")
			return
		}
		z.sendLine(c, who+" is no longer in your party.")
		z.notify(who, "You are no longer in "+leader+"'s party.")
	case leader == c.name:
		z.shard.PartyLeave(c.name)
		z.sendLine(c, "You disband your party.")
		for _, m := range members {
			z.notify(m, leader+" disbands the party.")
		}
	default:
		z.shard.PartyLeave(c.name)
		z.sendLine(c, "You leave "+leader+"'s party.")
		z.notify(leader, c.name+" leaves your party.")
	}
}

// notify gives a line to a player wherever they are.
func (z *Zone) notify(name, text string) {
	if c := z.players[name]; c != nil {
		z.sendLine(c, text)
		return
	}
	if oz := z.shard.Where(name); oz != nil {
		oz.send(noticeMsg{to: name, text: text})
	}
}

// Notice gives a line to a player this zone holds, or passes it on to the
// zone that holds them now. It never blocks, and reports false if the zone
// has stopped.
func (z *Zone) Notice(name, text string) bool { return z.send(noticeMsg{to: name, text: text}) }

const instancesUsage = `instances
  List the private dungeon copies open now: template, the start of the
  copy's id, who is inside, its age, and how many of the reaper's sweeps
  in a row found it empty. (admin)`

// cmdInstances is the admin's view of the copies.
func (z *Zone) cmdInstances(c *Char, args string) {
	list := z.shard.Instances()
	if len(list) == 0 {
		z.sendLine(c, "No private copies are open.")
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{W}%-16s %-14s %-8s %-7s %s{x}", "Template", "Copy", "Age", "Idle", "Inside")
	for _, in := range list {
		id := "(opening)"
		if in.ID != "" {
			_, hex, _ := strings.Cut(in.ID, "#")
			id = "#" + hex[:min(8, len(hex))]
		}
		state := strings.Join(in.Occupants, ", ")
		switch {
		case in.Minting:
			state = "being made for " + in.Account
		case in.Reaping:
			state = "closing"
		case state == "":
			state = "nobody"
		}
		if in.Abandoned {
			state += " (abandoned)"
		}
		fmt.Fprintf(&b, "\n%-16s %-14s %-8s %-7d %s", in.Template, id, in.Age.Round(time.Second), in.Idle, state)
	}
	fmt.Fprintf(&b, "\n%d cop%s.", len(list), plural(len(list), "y", "ies"))
	z.sendLine(c, b.String())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

const gsayUsage = `gsay <text> | gtell <text>
  Speak to your whole party, wherever each member is.`

const unfollowUsage = `unfollow
  Stop following whoever you follow.`

// cmdUnfollow stops following.
func (z *Zone) cmdUnfollow(c *Char, _ string) { z.cmdFollow(c, "") }

// cmdGsay speaks to c's party. Each member gets the line as a message to
// the zone that holds them (partyMsg), which drops it for a member who
// ignores c: no zone touches another's players.
func (z *Zone) cmdGsay(c *Char, args string) {
	raw := strings.TrimSpace(args)
	leader, members := z.shard.Party(c.name)
	switch {
	case leader == "":
		z.sendLine(c, "You are in no party. group <player> takes someone who follows you into yours.")
		return
	case raw == "":
		z.sendLine(c, "Tell your party what?")
		return
	case utf8.RuneCountInString(raw) > maxChannelRunes:
		z.sendLine(c, fmt.Sprintf("That is too long to say to your party: %d characters at most.", maxChannelRunes))
		return
	}
	text := cleanText(raw)
	if text == "" {
		z.sendLine(c, "Tell your party what?")
		return
	}
	z.sendLine(c, "You tell your party, '{G}"+text+"{x}'")
	z.holdGMCP(c, "Comm.Channel.Text", gmcpChannelText{Channel: "party", Talker: c.name, Text: markup.Strip(text)})
	for _, m := range append([]string{leader}, members...) {
		if m != c.name {
			z.partyTalk(c.name, m, text)
		}
	}
}

// groupStatMsg asks the zone holding a party member for their vitals line,
// to be sent to the player who asked.
type groupStatMsg struct{ of, to, leader string }

func (groupStatMsg) isMsg() {}

// memberLine is one party member's vitals, level and room.
func (z *Zone) memberLine(o *Char, leader string) string {
	tag := ""
	if o.name == leader {
		tag = " (leader)"
	}
	return fmt.Sprintf("  %-12s lvl %-3d hp %d/%d  mana %d/%d  moves %d/%d  in %s%s",
		o.name, o.level, o.hp, o.maxHP, o.mana, o.maxM, o.mv, o.maxMv, markup.Escape(o.room.proto.Name), tag)
}

// handleGroupStat answers a groupStatMsg for a member here, or passes it
// on to where they went.
func (z *Zone) handleGroupStat(m groupStatMsg) {
	o := z.players[m.of]
	if o == nil {
		if !z.forward(m, m.of) {
			z.notice(m.to, "  "+m.of+" (not in the world)")
		}
		return
	}
	z.notice(m.to, z.memberLine(o, m.leader))
}
