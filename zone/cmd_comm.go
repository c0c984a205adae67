package zone

import (
	"strings"

	"zonemud/internal/act"
	"zonemud/internal/markup"
)

// act tells everyone in room but skip what actor did. In format, $n is the
// actor's name and $s its possessive. format is the game's own text: what a
// player typed goes through toRoom, where a "$n" they typed stays as typed.
func (z *Zone) act(room *Room, skip, actor *Char, format string) {
	if !hasListener(room, skip) {
		return // build nothing for an empty room
	}
	if z.invisLevel(actor) > 0 {
		// Those who do not see a wizinvis actor are told someone did it.
		seen, unseen := act.Format(format, actor.short(), ""), act.Format(format, "someone", "")
		for _, o := range room.people {
			if o != skip && o.pl != nil && o.pl.sess != nil {
				if z.canSee(o, actor) {
					z.sendLine(o, seen)
				} else {
					z.sendLine(o, unseen)
				}
			}
		}
		return
	}
	z.toRoom(room, skip, act.Format(format, actor.short(), ""))
}

// actSeen is act for what only those who see actor notice (comings and
// goings): a wizinvis actor is not told to those below its level.
func (z *Zone) actSeen(room *Room, skip, actor *Char, format string) {
	if room == nil || z.invisLevel(actor) == 0 {
		z.act(room, skip, actor, format)
		return
	}
	line := act.Format(format, actor.short(), "")
	for _, o := range room.people {
		if o != skip && o.pl != nil && o.pl.sess != nil && z.canSee(o, actor) {
			z.sendLine(o, line)
		}
	}
}

// toRoom tells everyone in room but skip a line as it stands. Player text
// in it must already be escaped.
func (z *Zone) toRoom(room *Room, skip *Char, line string) {
	if room == nil {
		return
	}
	for _, o := range room.people {
		if o != skip && o.pl != nil && o.pl.sess != nil {
			z.sendLine(o, line)
		}
	}
}

// toRoomFrom is toRoom for what from says or does: those who ignore from
// do not see it. line begins with from's name; those who do not see a
// wizinvis from read "Someone" in its place.
func (z *Zone) toRoomFrom(room *Room, from *Char, line string) {
	if room == nil {
		return
	}
	var unseen string
	if z.invisLevel(from) > 0 {
		unseen = "Someone" + strings.TrimPrefix(line, capFirst(from.short()))
	}
	for _, o := range z.hearers(room, from) {
		if o != from && o.pl != nil && o.pl.sess != nil && !o.pl.comm.ignores(from.name) {
			if unseen != "" && !z.canSee(o, from) {
				z.sendLine(o, unseen)
				continue
			}
			z.sendLine(o, line)
		}
	}
}

// hasListener reports whether anyone but skip in room has a connection.
func hasListener(room *Room, skip *Char) bool {
	if room == nil || room.nplayers == 0 {
		return false
	}
	for _, o := range room.people {
		if o != skip && o.pl != nil && o.pl.sess != nil {
			return true
		}
	}
	return false
}

// cmdSay speaks to the room.
func (z *Zone) cmdSay(c *Char, args string) {
	text := markup.Escape(strings.TrimSpace(args))
	if text == "" {
		z.sendLine(c, "Say what?")
		return
	}
	z.sendLine(c, "You say, '{W}"+text+"{x}'")
	z.toRoomFrom(c.room, c, capFirst(c.short())+" says, '{W}"+text+"{x}'")
	z.gmcpChannel(c.room, c, "say", text)
	z.fireSpeech(c, strings.TrimSpace(args))
	z.questTalk(c)
}

const askUsage = `ask <someone> <text>
  Speak to one person here, where the room can hear: ask marda about the
  cellar. Someone a quest sends you to speak with hears you this way, as
  they do when you say it where they stand.`

// cmdAsk is say, addressed to one character here.
func (z *Zone) cmdAsk(c *Char, args string) {
	who, rest := firstWord(strings.TrimSpace(args))
	raw := strings.TrimSpace(rest)
	text := markup.Escape(raw)
	if who == "" || text == "" {
		z.sendLine(c, "Ask whom what? ask <someone> <text>")
		return
	}
	to := z.findChar(c, who, false)
	if to == nil {
		z.sendLine(c, "There is nobody here by that name.")
		return
	}
	z.sendLine(c, "You ask "+to.short()+", '{W}"+text+"{x}'")
	if to.pl == nil || !to.pl.comm.ignores(c.name) {
		z.sendLine(to, capFirst(z.seenName(to, c))+" asks you, '{W}"+text+"{x}'")
	}
	for _, o := range z.hearers(c.room, c) {
		if o != c && o != to && o.pl != nil && o.pl.sess != nil && !o.pl.comm.ignores(c.name) {
			z.sendLine(o, capFirst(z.seenName(o, c))+" asks "+z.seenName(o, to)+", '{W}"+text+"{x}'")
		}
	}
	z.gmcpChannel(c.room, c, "say", text)
	z.fireSpeech(c, raw)
	if to.mob != nil && c.pl != nil && len(c.pl.quests.Active) > 0 {
		z.questTalkTo(c, to)
	}
}

// cmdEmote shows an action to the room.
func (z *Zone) cmdEmote(c *Char, args string) {
	text := markup.Escape(strings.TrimSpace(args))
	if text == "" {
		z.sendLine(c, "Emote what?")
		return
	}
	line := capFirst(c.short()) + " " + text
	if !strings.ContainsAny(text[len(text)-1:], ".!?") {
		line += "."
	}
	z.sendLine(c, line)
	z.toRoomFrom(c.room, c, line)
}

// cmdTell sends a line to one player anywhere in the world.
func (z *Zone) cmdTell(c *Char, args string) {
	who, text := firstWord(args)
	z.tell(c, who, text)
}

// cmdReply answers the last player who told c something.
func (z *Zone) cmdReply(c *Char, args string) {
	if c.pl.replyTo == "" {
		z.sendLine(c, "Nobody has told you anything yet.")
		return
	}
	z.tell(c, c.pl.replyTo, args)
}

// normalName capitalises a typed player name the way names are stored.
func normalName(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToLower(s)
	return strings.ToUpper(s[:1]) + s[1:]
}
