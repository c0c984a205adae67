package zone

import (
	"fmt"
	"time"

	"zonemud/content"
)

// Entering an instance copy, in three hops (the world's instance.go tells
// the whole of it). Hop 1 runs here, on the entrance zone: the player asks
// by walking through a room's declared entrance (or by mud.send_to_instance
// from their own script); the zone checks the player and the template,
// joins the party's live copy if there is one, or asks the world for a new
// one and goes on ticking. Hop 3 runs here too, when the world answers: the
// gap was unbounded and the player was live for all of it, so everything is
// checked again before the player (and the party members standing with
// them) move with an ordinary transfer. A copy nobody was moved into is
// abandoned, and the player is told one clear line.

// MintRequest is hop 1's request for a copy of an instanceable template.
type MintRequest struct {
	Template string
	// Account is whose caps the copy counts against: the player who asked.
	Account string
	// Party is the leader of the player's party, by whose name its
	// members find the copy again; "" for a player alone, whose every
	// entry opens a fresh copy.
	Party string
	// Origin is the entrance zone. The answer goes to this very actor, by
	// pointer: an id looked up later could name another zone object that
	// never granted the entry, and a stopped origin refuses the answer.
	Origin *Zone
	// Player asked for it.
	Player string
	// Token is the origin's mark on the request; hop 3 checks it.
	Token uint64
	// Addr is the address the player's connection counts under for the
	// per-address limits (an IPv4 address or an IPv6 block, as the gate
	// keys it); "" when they exempt it (loopback behind a proxy).
	Addr string
	// Level is the player's level, and Created when the character was
	// made (unix seconds; 0 for a record from before it was kept), for
	// the thresholds of min_level and min_age_mins.
	Level   int
	Created int64
}

// InstanceInfo is one copy as the admin's instances command shows it.
type InstanceInfo struct {
	ID, Template, Account, Party string
	Zone                         *Zone // nil while minting
	Age                          time.Duration
	Idle                         int // reaper sweeps in a row that found it empty
	Occupants                    []string
	Abandoned, Minting, Reaping  bool
}

// InstanceReady is hop 3's message: the world's answer to req, with the
// copy it built (nil if refused) and the line that refuses it. It never
// blocks, and reports false if this zone has stopped.
func (z *Zone) InstanceReady(req MintRequest, copy *Zone, refusal string) bool {
	return z.send(instanceReadyMsg{req: req, copy: copy, refusal: refusal})
}

// Eject asks a copy to send everyone in it back to their anchors (the
// world is shutting down), then calls done on the zone's goroutine (it
// must not block). It reports false, and never calls done, if the zone has
// stopped.
func (z *Zone) Eject(done func()) bool { return z.send(ejectMsg{done: done}) }

// HasRoom reports whether the zone built a room with this ref. It is for
// the builder of a zone that has not started running: once Run has begun,
// the rooms are the zone goroutine's.
func (z *Zone) HasRoom(ref string) bool {
	if z.booted.IsZero() {
		return z.rooms[ref] != nil
	}
	z.owner.check()
	return z.rooms[ref] != nil
}

// Lines of the entry.
const (
	enterOpening     = "The way begins to open..."
	enterNotOpen     = "The way does not open for you."
	enterFighting    = "The way closes again: you are fighting."
	enterAlready     = "The way is already opening for you; wait a moment."
	enterPartyOpen   = "The way is already opening for your party; wait a moment."
	enterJoin        = "The way opens onto the copy your party holds."
	enterNested      = "No way opens from inside a copy."
	enterMoved       = "The way closes behind you: you walked away from it."
	enterDied        = "The way closes: you died while it opened."
	enterGone        = "The way closes again before you reach it."
	enterDraining    = "The way will not open while the world is shutting down."
	enterLeaderGone  = "The way closes; you stay behind."
	ejectedToAnchor  = "The copy fades around you, and you stand where you came in."
	partyLeadsInFmt  = "%s opens the way %s; your party goes in together."
	partyFollowsInFm = "You follow %s in."
)

// enterInstance is hop 1 for c, who asks to go into a copy of template
// through the way dir (dirNone for mud.send_to_instance). It tells c what
// came of it and returns the refusal, "" if c went in or the way is
// opening.
func (z *Zone) enterInstance(c *Char, template string, dir string) string {
	refuse := func(line string) string {
		z.sendLine(c, line)
		return line
	}
	zp := z.set.Zones[template]
	switch {
	case c.pl == nil:
		return "only a player goes into a copy"
	case z.isInstance():
		return refuse(enterNested)
	case zp == nil || !zp.Instanceable:
		return refuse(enterNotOpen)
	case c.fighting != nil:
		return refuse(enterFighting)
	case c.pos == posSleeping:
		return refuse("You are asleep; wake first.")
	case c.pl.opening != 0:
		return refuse(enterAlready)
	case z.stopping || z.shard.Draining():
		return refuse(enterDraining)
	}
	// A party's members all go into the one copy its first entry made,
	// while it lives. A player alone opens a fresh copy every time.
	party, _ := z.shard.Party(c.name)
	if live, opening := z.shard.PartyInstance(template, party); live != nil {
		z.intoCopy(c, live, template, dir, enterJoin)
		return ""
	} else if opening {
		return refuse(enterPartyOpen)
	}
	z.instTokens++
	req := MintRequest{Template: template, Account: c.name, Party: party, Origin: z, Player: c.name, Token: z.instTokens,
		Level: c.level, Created: c.created}
	if c.pl.sess != nil {
		req.Addr = c.pl.sess.Client().Addr
	}
	if line := z.shard.RequestInstance(req); line != "" {
		return refuse(line)
	}
	c.pl.opening, c.pl.openingRoom, c.pl.openingDeaths, c.pl.openingDir = req.Token, c.room, c.pl.deaths, dir
	z.sendLine(c, enterOpening)
	if party == c.name {
		for _, m := range z.partyHere(c) {
			z.sendLine(m, fmt.Sprintf(partyLeadsInFmt, c.name, dir)+" Stay here to go with them.")
		}
	}
	return ""
}

// partyHere lists the members of the party c leads who stand in c's room.
func (z *Zone) partyHere(c *Char) []*Char {
	leader, members := z.shard.Party(c.name)
	if leader != c.name {
		return nil
	}
	var out []*Char
	for _, name := range members {
		if m := z.players[name]; m != nil && m != c && m.room == c.room {
			out = append(out, m)
		}
	}
	return out
}

// handleInstanceReady is hop 3.
func (z *Zone) handleInstanceReady(m instanceReadyMsg) {
	c := z.players[m.req.Player]
	if c == nil || c.pl.opening != m.req.Token {
		// The player quit, went link-dead and was reaped, walked to
		// another zone, or asked again since: nobody here is waiting for
		// this copy.
		if m.copy != nil {
			z.shard.AbandonInstance(m.copy.ID())
		}
		return
	}
	room, deaths, dir := c.pl.openingRoom, c.pl.openingDeaths, c.pl.openingDir
	c.pl.opening, c.pl.openingRoom = 0, nil
	if m.refusal != "" {
		z.sendLine(c, m.refusal)
		z.prompt(c)
		return
	}
	if why := z.entryRefusal(c, room, deaths, m.copy); why != "" {
		z.shard.AbandonInstance(m.copy.ID())
		z.sendLine(c, why)
		z.prompt(c)
		return
	}
	// The party comes along: members the leader took in, standing with
	// the leader now. Each is checked as the leader was.
	var members []*Char
	for _, o := range z.partyHere(c) {
		if why := z.entryRefusal(o, room, o.pl.deaths, m.copy); why != "" || o.pl.opening != 0 {
			if why == "" {
				why = enterAlready
			}
			z.sendLine(o, enterLeaderGone+" ("+lowerFirst(why)+")")
			continue
		}
		members = append(members, o)
	}
	template := m.copy.Template()
	z.intoCopy(c, m.copy, template, dir, "")
	for _, o := range members {
		z.intoCopy(o, m.copy, template, dir, fmt.Sprintf(partyFollowsInFm, c.name))
	}
}

// entryRefusal is what keeps c, who asked in room, from going into copy
// now; "" if nothing does.
func (z *Zone) entryRefusal(c *Char, room *Room, deaths uint32, copy *Zone) string {
	switch {
	case c.pl.sess == nil || c.pl.sess.Closed() || c.pl.linkDead:
		return enterGone // nobody is at the keyboard to go in
	case c.pl.deaths != deaths:
		return enterDied
	case c.room != room:
		return enterMoved
	case c.fighting != nil:
		return enterFighting
	case c.pos == posSleeping:
		return "The way closes: you fell asleep."
	case z.stopping || z.shard.Draining():
		return enterDraining // this zone is being unhosted, or the world stops
	case copy == nil || z.shard.Zone(copy.ID()) != copy:
		return enterGone // reaped already
	}
	return ""
}

// intoCopy moves c into copy, whose template is template, through the way
// dir: the anchor (this zone and c's room) is written on c first, so every
// save from now until c is back in an ordinary zone names the door. line,
// if set, is told before c goes.
func (z *Zone) intoCopy(c *Char, copy *Zone, template, dir, line string) {
	if line != "" {
		z.sendLine(c, line)
	}
	c.pl.anchorZone, c.pl.anchorRoom = z.id, c.room.ref()
	start := ""
	if zp := z.set.Zones[template]; zp != nil {
		start = zp.StartRoom
	}
	if c.pos != posStanding {
		c.pos = posStanding
	}
	leaves := noticeVanishes
	if dir != "" {
		leaves = noticeLeaves(dir)
	}
	z.presence(c.room, c, c, leaves)
	z.fireLeave(c.room, c, dir)
	left := z.shard.InstanceSlots(c.name)
	note := fmt.Sprintf("This copy is yours and your party's alone. You may open %d more cop%s of your own.", left, plural(left, "y", "ies"))
	z.transferOutNote(c, copy, start, "", note)
}

// handleEject sends everyone in this copy to their anchors: the world is
// shutting down, and the anchor is where each is saved.
func (z *Zone) handleEject(m ejectMsg) {
	defer m.done()
	for _, c := range z.sortedPlayers() {
		z.toAnchor(c, ejectedToAnchor)
	}
}

// toAnchor sends c out of this copy to its anchor, or, if the anchor's
// zone is not hosted, to the world's start room. It reports whether c
// left.
func (z *Zone) toAnchor(c *Char, line string) bool {
	room := c.pl.anchorRoom
	dest := z.shard.Zone(c.pl.anchorZone)
	if dest == nil || dest == z {
		room = z.set.Game.StartRoom
		dest = z.shard.Zone(parseRef(room).zone)
	}
	if dest == nil || dest == z {
		return false
	}
	z.sendLine(c, line)
	if c.room != nil {
		z.presence(c.room, c, c, noticeVanishes)
	}
	z.stopFighting(c)
	z.transferOut(c, dest, room, "")
	return true
}

// SendToInstance for scripts: the script package has checked that the
// actor running the script is who itself; the way in is the same as a
// door's, with the player's room as the anchor.
func (z *Zone) sendToInstance(c *Char, template string) error {
	if c == nil || c.pl == nil {
		return fmt.Errorf("only a player goes into a copy")
	}
	if line := z.enterInstance(c, template, ""); line != "" {
		return fmt.Errorf("%s", line)
	}
	return nil
}

// entrance is the copy's template that the way d out of r leads into, ""
// if none. It is the one reader of a room's instance entrances (a lint
// pins it): only a move the player types, and the views that show the
// way, ask it; exits, flee, h:move and area effects never see an entrance.
func (r *Room) entrance(d content.Dir) string { return r.proto.Entrances[d] }

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'A' && b[0] <= 'Z' {
		b[0] += 'a' - 'A'
	}
	return string(b)
}
