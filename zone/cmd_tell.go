package zone

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A player may send at most tellRate tells in tellPer: a flood is
// refused with a line, and nobody else is bothered by it. Set once
// before any zone runs (tests widen the window).
var (
	tellRate = 10
	tellPer  = 20 * time.Second
)

// maxAFKRunes caps an away message.
const maxAFKRunes = 100

const afkUsage = "afk [message]\n  Mark yourself away from the keyboard: a tell to you is answered with\n  your message. afk again when you are back."

// tell sends text to the named player, wherever they are; to a player
// who is not in the world (or is link-dead) it is kept and delivered at
// their next login.
func (z *Zone) tell(c *Char, who, text string) {
	raw := strings.TrimSpace(text)
	if who == "" || raw == "" {
		z.sendLine(c, "Tell whom what?")
		return
	}
	if !validPlayerName(who) {
		z.sendLine(c, "There is no player by that name.")
		return
	}
	name := normalName(who)
	if name == c.name {
		z.sendLine(c, "You mutter to yourself.")
		return
	}
	if utf8.RuneCountInString(raw) > maxChannelRunes {
		z.sendLine(c, fmt.Sprintf("That is too long for a tell: %d characters at most.", maxChannelRunes))
		return
	}
	text = cleanText(raw)
	if text == "" {
		z.sendLine(c, "Tell whom what?")
		return
	}
	if !c.pl.comm.tells.allow(time.Now(), tellRate, tellPer) {
		z.sendLine(c, fmt.Sprintf("You are sending tells too fast: %d in %d seconds at most. Wait a moment.", tellRate, int(tellPer/time.Second)))
		return
	}
	z.sendLine(c, "You tell "+name+", '{M}"+text+"{x}'")
	target := z.shard.Where(name)
	if target == nil {
		z.keepTell(c.name, name, text)
		return
	}
	m := tellMsg{from: c.name, to: name, text: text, replyTo: z}
	if target == z {
		z.handleTell(m)
		return
	}
	target.send(m)
}

// keepTell has the world keep a tell for a player who is not here to
// hear it, and tells its sender what came of it.
func (z *Zone) keepTell(from, to, text string) {
	z.shard.Comm().KeepTell(from, to, text, func(reply string) {
		z.send(noticeMsg{to: from, text: reply})
	})
}

// notice tells a line to a player here, or passes it to the zone that
// holds them.
func (z *Zone) notice(name, text string) {
	if c := z.players[name]; c != nil {
		z.sendLine(c, text)
		return
	}
	z.forward(noticeMsg{to: name, text: text}, name)
}

// handleTell delivers a tell to a player here. A player who has gone, or
// whose link is dead, has it kept for their next login; one who ignores
// the sender never sees it.
func (z *Zone) handleTell(m tellMsg) {
	c := z.players[m.to]
	if c == nil || c.pl.sess == nil {
		if c == nil && z.forward(m, m.to) {
			return // it walked into another zone meanwhile
		}
		z.keepTell(m.from, m.to, m.text)
		return
	}
	st := &c.pl.comm
	if st.ignores(m.from) {
		return
	}
	c.pl.replyTo = m.from
	z.sendLine(c, m.from+" tells you, '{M}"+m.text+"{x}'")
	z.gmcpTell(c, m.from, m.text)
	if st.afk {
		st.afkTells++
		msg := c.name + " is away from the keyboard"
		if st.afkMsg != "" {
			msg += ": " + st.afkMsg
		} else {
			msg += "."
		}
		z.notice(m.from, msg)
	}
}

// handleHeldTells shows a player who just logged in the tells kept for
// them, leaving out those from players they ignore.
func (z *Zone) handleHeldTells(m heldTellsMsg) {
	c := z.players[m.to]
	if c == nil {
		if !z.forward(m, m.to) {
			// Gone again before they were shown: keep them for the
			// next login rather than lose them.
			for _, t := range m.tells {
				z.keepTell(t.From, m.to, t.Text)
			}
		}
		return
	}
	var b strings.Builder
	n := 0
	for _, t := range m.tells {
		if c.pl.comm.ignores(t.From) {
			continue
		}
		n++
		b.WriteString("\n  " + t.At.UTC().Format("Jan 2 15:04") + " " + t.From + " told you, '{M}" + t.Text + "{x}'")
		c.pl.replyTo = t.From
	}
	if n == 0 && m.dropped == 0 {
		return
	}
	head := "While you were away, " + count(n, "tell") + " came for you:"
	if n == 0 {
		head = "While you were away, tells came for you."
	}
	if m.dropped > 0 {
		b.WriteString("\n  (" + count(m.dropped, "older tell") + " did not fit and went.)")
	}
	z.sendLine(c, "{Y}"+head+"{x}"+b.String())
}

// cmdAFK marks c away, or back.
func (z *Zone) cmdAFK(c *Char, args string) {
	st := &c.pl.comm
	if st.afk && strings.TrimSpace(args) == "" {
		st.afk = false
		line := "You are back at the keyboard."
		if st.afkTells > 0 {
			line += " " + count(st.afkTells, "tell") + " came while you were away."
		}
		st.afkTells = 0
		z.sendLine(c, line)
		return
	}
	raw := strings.TrimSpace(args)
	if utf8.RuneCountInString(raw) > maxAFKRunes {
		z.sendLine(c, "That away message is too long: "+strconv.Itoa(maxAFKRunes)+" characters at most.")
		return
	}
	st.afk, st.afkMsg, st.afkTells = true, cleanText(raw), 0
	z.sendLine(c, "You are away from the keyboard. Tells to you are answered for you; type afk when you are back.")
}

// count is n and a noun, plural when it is not one: "1 tell", "3 tells".
func count(n int, noun string) string {
	return strconv.Itoa(n) + " " + plural(n, noun, noun+"s")
}
