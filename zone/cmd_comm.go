package zone

import (
	"strings"

	"zonemud/content"
)

// act tells everyone in room but skip what actor did. In format, $n is the
// actor's name and $s its possessive. format is the game's own text: what a
// player typed goes through toRoom, where a "$n" they typed stays as typed.
func (z *Zone) act(room *Room, skip, actor *Char, format string) {
	if !hasListener(room, skip) {
		return // build nothing for an empty room
	}
	text := strings.ReplaceAll(format, "$n", actor.short())
	text = strings.ReplaceAll(text, "$s", "their")
	z.toRoom(room, skip, capFirst(text))
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
	text := content.EscapeMarkup(strings.TrimSpace(args))
	if text == "" {
		z.sendLine(c, "Say what?")
		return
	}
	z.sendLine(c, "You say, '{W}"+text+"{x}'")
	z.toRoom(c.room, c, capFirst(c.short())+" says, '{W}"+text+"{x}'")
	z.gmcpChannel(c.room, c, "say", text)
	z.fireSpeech(c, strings.TrimSpace(args))
}

// cmdEmote shows an action to the room.
func (z *Zone) cmdEmote(c *Char, args string) {
	text := content.EscapeMarkup(strings.TrimSpace(args))
	if text == "" {
		z.sendLine(c, "Emote what?")
		return
	}
	line := capFirst(c.short()) + " " + text
	if !strings.ContainsAny(text[len(text)-1:], ".!?") {
		line += "."
	}
	z.sendLine(c, line)
	z.toRoom(c.room, c, line)
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

func (z *Zone) tell(c *Char, who, text string) {
	text = content.EscapeMarkup(strings.TrimSpace(text))
	if who == "" || text == "" {
		z.sendLine(c, "Tell whom what?")
		return
	}
	name := normalName(who)
	if strings.EqualFold(name, c.name) {
		z.sendLine(c, "You mutter to yourself.")
		return
	}
	target := z.shard.Where(name)
	if target == nil {
		z.sendLine(c, "There is no player by that name in the world.")
		return
	}
	z.sendLine(c, "You tell "+name+", '{M}"+text+"{x}'")
	m := tellMsg{from: c.name, to: name, text: text, replyTo: z}
	if target == z {
		z.handleTell(m)
		return
	}
	target.send(m)
}

// handleTell delivers a tell to a player here.
func (z *Zone) handleTell(m tellMsg) {
	c := z.players[m.to]
	if c == nil {
		if m.replyTo != nil && m.replyTo != z {
			m.replyTo.send(noticeMsg{to: m.from, text: m.to + " is not here to hear you any more."})
		}
		return
	}
	c.pl.replyTo = m.from
	z.sendLine(c, m.from+" tells you, '{M}"+m.text+"{x}'")
	z.gmcpTell(c, m.from, m.text)
}

// normalName capitalises a typed player name the way names are stored.
func normalName(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToLower(s)
	return strings.ToUpper(s[:1]) + s[1:]
}
