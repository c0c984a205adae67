package zone

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"zonemud/content"
	"zonemud/internal/markup"
)

// maxChannelRunes caps one channel line: a 4 KiB line is refused, not
// shown to the whole world.
const maxChannelRunes = 300

// maxIgnores caps a player's ignore list.
const maxIgnores = 50

const channelsUsage = "channels\n  List the channels, and whether you hear each. Speak on one with its\n  name: gossip hello. The name alone turns it off or on for you;\n  gossip history shows its last lines."

const ignoreUsage = "ignore [player]\n  Stop hearing a player's channel lines, tells and says, or hear them\n  again. ignore alone lists whom you ignore."

// channelRole is the role a channel names.
func channelRole(ch *content.Channel) role {
	switch ch.Role {
	case "admin":
		return roleAdmin
	case "builder":
		return roleBuilder
	}
	return rolePlayer
}

// channel runs word as a channel if it names one c may use, and reports
// whether it did. Like a social, a channel's name beats a command it only
// abbreviates, never a command of that exact name.
func (z *Zone) channel(c *Char, word, args string) bool {
	ch := z.set.Channel(word)
	if ch == nil || c.pl == nil || c.role() < channelRole(ch) {
		return false
	}
	for i := range commands {
		if commands[i].name == word && commands[i].role <= c.role() {
			return false
		}
	}
	st := &c.pl.comm
	args = strings.TrimSpace(args)
	switch strings.ToLower(args) {
	case "":
		on := !st.hears(ch)
		if st.rec.Channels == nil {
			st.rec.Channels = map[string]bool{}
		}
		st.rec.Channels[ch.Name] = on
		z.dirty(c)
		if on {
			z.sendLine(c, "You hear "+ch.Name+" again.")
		} else {
			z.sendLine(c, "You no longer hear "+ch.Name+". Type "+ch.Name+" to hear it again.")
		}
		return true
	case "history":
		z.channelHistory(c, ch)
		return true
	}
	if !st.hears(ch) {
		z.sendLine(c, "You have "+ch.Name+" turned off. Type "+ch.Name+" to turn it on.")
		return true
	}
	if utf8.RuneCountInString(args) > maxChannelRunes {
		z.sendLine(c, fmt.Sprintf("That is too long for a channel: %d characters at most.", maxChannelRunes))
		return true
	}
	text := cleanText(args)
	if text == "" {
		z.sendLine(c, capFirst(ch.Name)+" what?")
		return true
	}
	if st.rates == nil {
		st.rates = map[string]*window{}
	}
	w := st.rates[ch.Name]
	if w == nil {
		w = &window{}
		st.rates[ch.Name] = w
	}
	now := time.Now()
	if !w.allow(now, ch.Rate, time.Duration(ch.PerSecs)*time.Second) {
		z.sendLine(c, fmt.Sprintf("You are talking too fast on %s: %d lines in %d seconds at most. Wait a moment.", ch.Name, ch.Rate, ch.PerSecs))
		return true
	}
	l := &ChannelLine{
		Channel: ch.Name, Role: channelRole(ch), From: c.name, Text: text, At: now, Keep: ch.History,
		Line: channelLineText(ch, c.name, text),
	}
	// Encoded once for the world, not once per listener.
	b, err := json.Marshal(gmcpChannelText{Channel: ch.Name, Talker: c.name, Text: markup.Strip(text)})
	if err == nil {
		l.GMCP = b
	}
	z.deliverChannel(l)
	z.shard.Comm().Channel(l, z)
	return true
}

// channelLineText is how a channel line is shown: [Gossip] Aria: hello.
func channelLineText(ch *content.Channel, from, text string) string {
	color, end := ch.Color, ""
	if color != "" {
		end = "{x}"
	}
	return color + "[" + capFirst(ch.Name) + "] " + from + ": " + text + end
}

// deliverChannel shows a channel line to every player here who hears it:
// connected, of the channel's role, listening, and not ignoring the
// talker. The line is news, as comings and goings are (newsGap): a
// listener who had output in the last second gets it when that second is
// up, with whatever else came meanwhile, or sooner with an answer; anyone
// else at once. A world-wide channel is a line to every player; told at
// once, each was a write to each of them.
func (z *Zone) deliverChannel(l *ChannelLine) {
	ch := z.set.Channel(l.Channel)
	if ch == nil {
		return // the channel went with a reload this zone has seen
	}
	var gmcp any // made an interface once for the line, not once a listener
	if l.GMCP != nil {
		gmcp = l.GMCP
	}
	z.lazyOut = true
	defer func() { z.lazyOut = false }()
	for _, o := range z.players {
		p := o.pl
		if p.sess == nil || o.role() < l.Role || !p.comm.hears(ch) || p.comm.ignores(l.From) {
			continue
		}
		z.sendLine(o, l.Line)
		if gmcp != nil {
			z.holdGMCP(o, "Comm.Channel.Text", gmcp)
		}
	}
}

// channelHistory shows c the channel's last lines, from the store.
func (z *Zone) channelHistory(c *Char, ch *content.Channel) {
	if ch.History == 0 {
		z.sendLine(c, capFirst(ch.Name)+" keeps no history.")
		return
	}
	name := c.name
	z.shard.Comm().History(ch.Name, ch.History, func(lines []HistoryLine, err error) {
		z.send(historyMsg{to: name, channel: ch.Name, lines: lines, err: err})
	})
}

// handleHistory shows a channel's history to the player who asked, here
// or wherever they went while the store was read.
func (z *Zone) handleHistory(m historyMsg) {
	c := z.players[m.to]
	if c == nil {
		z.forward(m, m.to)
		return
	}
	ch := z.set.Channel(m.channel)
	switch {
	case ch == nil:
		return
	case m.err != nil:
		z.sendLine(c, "The history of "+ch.Name+" cannot be read right now.")
		return
	}
	var b strings.Builder
	b.WriteString("The last lines on " + ch.Name + ":")
	n := 0
	for _, l := range m.lines {
		if c.pl.comm.ignores(l.From) {
			continue
		}
		n++
		b.WriteString("\n" + l.At.UTC().Format("15:04") + " " + channelLineText(ch, l.From, l.Text))
	}
	if n == 0 {
		b.WriteString("\n  (nothing yet)")
	}
	z.sendLine(c, b.String())
}

// cmdChannels lists the channels c may use.
func (z *Zone) cmdChannels(c *Char, args string) {
	var b strings.Builder
	b.WriteString("Channels:")
	n := 0
	for _, ch := range z.set.Channels {
		if c.role() < channelRole(ch) {
			continue
		}
		n++
		state := "{G}on {x}"
		if !c.pl.comm.hears(ch) {
			state = "{R}off{x}"
		}
		fmt.Fprintf(&b, "\n  %-8s %s  %s", ch.Name, state, ch.Description)
	}
	if n == 0 {
		z.sendLine(c, "This world has no channels.")
		return
	}
	b.WriteString("\nType a channel's name to turn it off or on; " + z.set.Channels[0].Name + " <text> to speak.")
	z.sendLine(c, b.String())
}

// cmdIgnore lists, adds or removes a player c ignores.
func (z *Zone) cmdIgnore(c *Char, args string) {
	st := &c.pl.comm
	word, _ := firstWord(args)
	if word == "" {
		if len(st.rec.Ignore) == 0 {
			z.sendLine(c, "You ignore nobody.")
			return
		}
		z.sendLine(c, "You ignore: "+strings.Join(st.rec.Ignore, ", ")+".")
		return
	}
	if !validPlayerName(word) {
		z.sendLine(c, "That is not a player's name.")
		return
	}
	name := normalName(word)
	switch {
	case name == c.name:
		z.sendLine(c, "You cannot ignore yourself.")
	case st.ignores(name):
		st.rec.Ignore = slices.DeleteFunc(slices.Clone(st.rec.Ignore), func(s string) bool { return s == name })
		z.dirty(c)
		z.sendLine(c, "You hear "+name+" again.")
	case len(st.rec.Ignore) >= maxIgnores:
		z.sendLine(c, fmt.Sprintf("You ignore %d players already; stop ignoring one first.", maxIgnores))
	default:
		st.rec.Ignore = append(slices.Clone(st.rec.Ignore), name)
		z.dirty(c)
		z.sendLine(c, "You ignore "+name+": you no longer hear their channel lines, tells or says.")
	}
}

// validPlayerName reports whether s could be a player's name: 2 to 20
// letters.
func validPlayerName(s string) bool {
	if len(s) < 2 || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
