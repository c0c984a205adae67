package zone

import (
	"strconv"
	"strings"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/markup"
)

// The admin commands. Each is an admin's act on the world or on a player;
// each is logged with an event id of its own (docs/LOG_EVENTS.md). A
// player in another zone is reached by a message to the zone that holds
// them (adminMsg, statMsg, snoopMsg), never by touching its state; acts on
// the whole server go through the shard's Admin.

const shutdownUsage = `shutdown [seconds] [reason] | shutdown cancel
  Stop the server after a countdown (60 seconds unless given; 0 is now),
  told to every player with the reason, then save everyone and exit.
  shutdown cancel stops the countdown. (admin)`

const rebootUsage = `reboot [seconds] [reason] | reboot cancel
  As shutdown, then start again: players can log back in a few seconds
  later. (admin)`

const wallUsage = `wall <message>
  Tell every player in the world. (admin)`

const gotoUsage = `goto <player> | goto <room ref>
  Go to a player, or to a room by its ref (emberfall:room:square), at
  once. Instance copies are entered through their entrances. A builder
  goes only into the zones they build. (builder)`

const transferUsage = `transfer <player> [room ref]
  Bring a player to you, or send them to a room. (admin)`

const statUsage = `stat <player>
  Show a player's account, roles, connection (address, client, options),
  room, owner epoch and idle time, and the builds of the running game (and
  copyover holder). (admin)`

const sessionsUsage = `sessions
  List every connection: front, name, client, colour, compression, idle
  time and address. (admin)`

const banUsage = `ban <name | address | address/bits> [duration] [reason]
ban
  Ban a character, an address or a block of addresses (203.0.113.0/24),
  for a duration (30m, 12h, 7d, 4w) or for ever, with a reason the banned
  are told. Their connections close, and the ban holds at connect and at
  login, across restarts. ban alone lists the bans. (admin)`

const unbanUsage = `unban <name | address | address/bits>
  Lift a ban. (admin)`

const snoopUsage = `snoop <player> | snoop
  Watch what a player sees and types. The player is told. snoop alone
  stops. (admin)`

const forceUsage = `force save
  Save every character now, and say when it is written. (admin)`

const freezeUsage = `freeze <player>
  Freeze a player, or thaw one frozen: a frozen player can only quit,
  and stays frozen across logins. (admin)`

const logUsage = `log <player>
  Write every line a player types into the server's log, or stop. (admin)`

// defaultCountdown is how long shutdown and reboot count down when not
// told: long enough for players to finish a fight and find an inn.
const defaultCountdown = 60

func (z *Zone) cmdShutdown(c *Char, args string) { z.stopCommand(c, args, false) }
func (z *Zone) cmdReboot(c *Char, args string)   { z.stopCommand(c, args, true) }

func (z *Zone) stopCommand(c *Char, args string, reboot bool) {
	words := strings.Fields(args)
	if len(words) > 0 && strings.EqualFold(words[0], "cancel") {
		z.sendLine(c, z.shard.Admin().CancelShutdown(c.name))
		return
	}
	secs := defaultCountdown
	if len(words) > 0 {
		if n, err := strconv.Atoi(words[0]); err == nil {
			secs, words = n, words[1:]
		}
	}
	if secs < 0 || secs > 24*3600 {
		z.sendLine(c, "Give the countdown in seconds, from 0 to 86400.")
		return
	}
	z.sendLine(c, z.shard.Admin().Shutdown(c.name, secs, strings.Join(words, " "), reboot))
}

func (z *Zone) cmdWall(c *Char, args string) {
	text := strings.TrimSpace(args)
	if text == "" {
		z.sendLine(c, "Tell everyone what?")
		return
	}
	line := "{Y}" + c.name + " announces: " + markup.Escape(text) + "{x}"
	for _, o := range z.shard.Zones() {
		o.Broadcast(line)
	}
	z.log.Info("zone: admin announced to everyone", logev.ID(8105), logev.Player(c.name), "text", text)
}

func (z *Zone) cmdGoto(c *Char, args string) {
	target := strings.TrimSpace(args)
	switch {
	case target == "":
		z.sendLine(c, "Go where? "+gotoUsage)
		return
	case strings.Contains(target, ":"):
		target = strings.ToLower(target)
		if why := buildRefusal(c, parseRef(target).zone); why != "" {
			z.sendLine(c, why)
			return
		}
		if why := z.teleport(c, target, nil, ""); why != "" {
			z.sendLine(c, why)
			return
		}
		z.log.Info("zone: admin went to a room", logev.ID(8106), logev.Player(c.name), "room", target)
		return
	}
	name := normalName(target)
	if name == c.name {
		z.sendLine(c, "You are already where you are.")
		return
	}
	where := z.shard.Where(name)
	if where == nil {
		z.sendLine(c, name+" is not in the world.")
		return
	}
	me, home, answer := c.name, z, z.later(c)
	if !where.send(adminMsg{op: adminLocate, target: name, by: me, reply: func(room string, in *Zone) {
		if room == "" {
			answer(name + " is on the move; try again.")
			return
		}
		// The room shown on arrival, or the refusal, is the answer.
		home.send(adminMsg{op: adminTeleport, target: me, by: me, room: room, dest: in, note: "goto " + name, reply: func(string, *Zone) { answer("") }})
	}}) {
		z.answerHere(c, name+" is on the move; try again.")
	}
}

func (z *Zone) cmdTransfer(c *Char, args string) {
	who, to := firstWord(args)
	if who == "" {
		z.sendLine(c, "Transfer whom? "+transferUsage)
		return
	}
	name := normalName(who)
	if name == c.name {
		z.sendLine(c, "To move yourself, use goto.")
		return
	}
	to = strings.ToLower(strings.TrimSpace(to))
	var dest *Zone
	if to == "" || to == "here" {
		if z.isInstance() {
			z.sendLine(c, "You stand in an instance copy; nobody is transferred into one. Instances are entered through their entrances.")
			return
		}
		to, dest = c.room.ref(), z
	}
	where := z.shard.Where(name)
	if where == nil {
		z.sendLine(c, name+" is not in the world.")
		return
	}
	answer := z.later(c)
	if !where.send(adminMsg{op: adminTeleport, target: name, by: c.name, room: to, dest: dest, reply: func(result string, _ *Zone) {
		answer(orGone(result, name))
	}}) {
		z.answerHere(c, name+" is on the move; try again.")
	}
}

func (z *Zone) cmdStat(c *Char, args string) {
	name := normalName(strings.TrimSpace(args))
	if name == "" {
		z.sendLine(c, "Stat whom? "+statUsage)
		return
	}
	z.shard.Admin().Stat(c.name, name, z.later(c))
}

func (z *Zone) cmdSessions(c *Char, args string) {
	z.shard.Admin().Sessions(c.name, z.later(c))
}

// escapeLines escapes the markup of a worker's answer line by line: the
// answer's own line breaks stay (a list of bans is one ban a line), while
// EscapeMarkup alone would take them out with every other control.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = markup.Escape(l)
	}
	return strings.Join(lines, "\n")
}

func (z *Zone) cmdBan(c *Char, args string) {
	me, answer := c.name, z.later(c)
	tell := func(reply string) { answer(escapeLines(reply)) }
	target, rest := firstWord(args)
	if target == "" {
		z.shard.Admin().Ban(me, "", time.Time{}, "", tell)
		return
	}
	var expires time.Time
	if d, ok := parseDuration(firstOf(rest)); ok {
		expires = time.Now().Add(d)
		_, rest = firstWord(rest)
	}
	z.shard.Admin().Ban(me, target, expires, strings.TrimSpace(rest), tell)
}

func (z *Zone) cmdUnban(c *Char, args string) {
	target := strings.TrimSpace(args)
	if target == "" {
		z.sendLine(c, "Unban what? "+unbanUsage)
		return
	}
	answer := z.later(c)
	z.shard.Admin().Unban(c.name, target, func(reply string) { answer(escapeLines(reply)) })
}

func (z *Zone) cmdSnoop(c *Char, args string) {
	a := z.shard.Admin()
	target := normalName(strings.TrimSpace(args))
	if target == "" || strings.EqualFold(target, "off") {
		was, in := a.Unsnoop(c.name)
		if was == "" {
			z.sendLine(c, "You are not watching anyone.")
			return
		}
		if in != nil {
			in.Snooped(was, c.name, nil)
		}
		z.sendLine(c, "You stop watching "+was+".")
		z.log.Info("zone: admin stopped snooping", logev.ID(8113), logev.Player(was), "by", c.name)
		return
	}
	if target == c.name {
		z.sendLine(c, "You cannot snoop yourself.")
		return
	}
	in, refusal := a.Snoop(c.name, target)
	if refusal != "" {
		z.sendLine(c, refusal)
		return
	}
	in.Snooped(target, c.name, c.pl.sess)
	z.sendLine(c, "You watch "+target+"'s screen. Lines marked % are theirs; snoop alone stops.")
	z.log.Info("zone: admin started snooping", logev.ID(8112), logev.Player(target), "by", c.name)
}

func (z *Zone) cmdForce(c *Char, args string) {
	if !strings.EqualFold(strings.TrimSpace(args), "save") {
		z.sendLine(c, forceUsage)
		return
	}
	z.sendLine(c, "Saving every character...")
	z.shard.Admin().SaveAll(c.name, z.later(c))
}

func (z *Zone) cmdFreeze(c *Char, args string) { z.adminAct(c, args, adminFreeze, freezeUsage) }
func (z *Zone) cmdLog(c *Char, args string)    { z.adminAct(c, args, adminLog, logUsage) }

// adminAct sends an act on a player to the zone that holds them, which
// answers the admin.
func (z *Zone) adminAct(c *Char, args string, op adminOp, usage string) {
	name := normalName(strings.TrimSpace(args))
	if name == "" {
		z.sendLine(c, usage)
		return
	}
	where := z.shard.Where(name)
	if where == nil {
		z.sendLine(c, name+" is not in the world.")
		return
	}
	answer := z.later(c)
	if !where.send(adminMsg{op: op, target: name, by: c.name, reply: func(result string, _ *Zone) {
		answer(orGone(result, name))
	}}) {
		z.answerHere(c, name+" is on the move; try again.")
	}
}

// orGone is an admin act's answer, or, when the act found nobody (the
// player left the world while it was on its way), a line that says so.
func orGone(result, name string) string {
	if result == "" {
		return name + " is no longer in the world."
	}
	return result
}

// handleAdmin carries out an admin's act on a player held here, or passes
// it on to the zone that holds the player now.
func (z *Zone) handleAdmin(m adminMsg) {
	c := z.players[m.target]
	if c == nil {
		if z.forward(m, m.target) {
			return
		}
		if m.reply != nil {
			m.reply("", nil)
		}
		return
	}
	answer := func(s string) {
		if m.reply != nil {
			m.reply(s, z)
		}
	}
	switch m.op {
	case adminLocate:
		if c.room == nil {
			answer("")
			return
		}
		answer(c.room.ref())
	case adminTeleport:
		note := ""
		if c.name != m.by {
			note = "{Y}" + m.by + " has moved you.{x}"
		} else if why := buildRefusal(c, destTemplate(m)); why != "" {
			z.sendLine(c, why)
			answer("")
			return
		}
		if why := z.teleport(c, m.room, m.dest, note); why != "" {
			if c.name == m.by {
				z.sendLine(c, why)
			}
			answer(why)
			return
		}
		if c.name != m.by {
			answer("You bring " + c.name + " to " + m.room + ".")
			z.log.Info("zone: admin moved a player", logev.ID(8107), logev.Player(c.name), "by", m.by, "room", m.room)
		} else {
			z.log.Info("zone: admin went to a player", logev.ID(8106), logev.Player(c.name), "to", m.note, "room", m.room)
			answer("")
		}
	case adminFreeze:
		p := c.pl
		switch {
		case p.admin:
			answer("Admins cannot be frozen.")
		case p.frozen:
			p.frozen = false
			z.dirty(c)
			z.sendLine(c, "{Y}You can move again.{x}")
			answer(c.name + " is thawed.")
			z.log.Info("zone: admin thawed a player", logev.ID(8116), logev.Player(c.name), "by", m.by)
		default:
			p.frozen = true
			z.stopFighting(c)
			z.dirty(c)
			z.sendLine(c, "{C}You are frozen solid. An admin has stopped you; you can only quit.{x}")
			answer(c.name + " is frozen: they can only quit, until you freeze them again.")
			z.log.Info("zone: admin froze a player", logev.ID(8115), logev.Player(c.name), "by", m.by)
		}
		z.prompt(c)
	case adminPurge:
		answer(z.purgeFrom(c, m.item, m.by))
	case adminLog:
		c.pl.logged = !c.pl.logged
		if c.pl.logged {
			answer("Every line " + c.name + " types now goes into the log (event 8119). log " + c.name + " again stops it.")
			z.log.Info("zone: admin started logging a player's input", logev.ID(8117), logev.Player(c.name), "by", m.by)
		} else {
			answer(c.name + "'s input is no longer logged.")
			z.log.Info("zone: admin stopped logging a player's input", logev.ID(8118), logev.Player(c.name), "by", m.by)
		}
	}
}

// teleport moves c to the room ref, in dest if given (a zone that holds a
// player an admin goes to) or else the zone the ref names, as goto and
// transfer do: out of any fight, seen to vanish and arrive. It returns
// what went wrong, or "".
func (z *Zone) teleport(c *Char, ref string, dest *Zone, note string) string {
	if dest != nil && dest != z && IsInstanceID(dest.ID()) {
		return "That is inside an instance copy of " + dest.Template() + "; nobody is moved into one. Instances are entered through their entrances."
	}
	if dest == nil || dest == z {
		if r := z.localRoom(ref); r != nil {
			if note != "" {
				z.sendLine(c, note)
			}
			z.stopFighting(c)
			c.pos = posStanding
			z.presence(c.room, c, c, noticeVanishes)
			c.room.removeChar(c)
			z.presence(r, nil, c, noticeArrives)
			r.addChar(c)
			z.showRoom(c)
			z.arrived(c, r)
			return ""
		}
		zoneID := parseRef(ref).zone
		zp := z.set.Zones[zoneID]
		switch {
		case z.set.Rooms[ref] == nil:
			return "There is no room " + ref + "."
		case zp != nil && zp.Instanceable:
			return zoneID + " is instanceable: its rooms exist only in its copies, which are entered through their entrances."
		}
		if dest = z.shard.Zone(zoneID); dest == nil {
			return "The zone " + zoneID + " is not running now."
		}
	}
	if note != "" {
		z.sendLine(c, note) // before the character is handed over
	}
	z.stopFighting(c)
	c.pos = posStanding
	z.presence(c.room, c, c, noticeVanishes)
	z.transferOut(c, dest, ref, "")
	return ""
}

// buildRefusal says why c may not go into a zone of template by goto, or
// "": a builder goes only into the zones they build.
func buildRefusal(c *Char, template string) string {
	if c.mayBuild(template) {
		return ""
	}
	return "You build only in " + describeZones(c.pl.buildZones) + "; goto takes you there."
}

// destTemplate is the template of the zone a teleport leads into.
func destTemplate(m adminMsg) string {
	if m.dest != nil {
		return m.dest.Template()
	}
	return parseRef(m.room).zone
}

// handleStat answers an admin's stat of a player held here.
func (z *Zone) handleStat(m statMsg) {
	c := z.players[m.name]
	if c == nil {
		// Crossing a border: the index names the zone the player is bound
		// for, and the ask follows them there, as admin acts do.
		if z.forward(m, m.name) {
			return
		}
		m.reply(StatInfo{}, false)
		return
	}
	p := c.pl
	si := StatInfo{
		Name: c.name, Zone: z.id, Template: z.template, Level: c.level, HP: c.hp, MaxHP: c.maxHP,
		Epoch: p.epoch, Idle: time.Since(p.lastInput), LinkDead: p.linkDead, Frozen: p.frozen, Logged: p.logged,
		Settings: p.settings,
	}
	if c.room != nil {
		si.Room, si.RoomName = c.room.ref(), c.room.proto.Name
	}
	for _, sn := range p.snoopers {
		si.Snoopers = append(si.Snoopers, sn.name)
	}
	m.reply(si, true)
}

// snooper is an admin watching a player's screen.
type snooper struct {
	name string
	sess Session
}

// handleSnoop starts or ends an admin's watch of a player held here.
func (z *Zone) handleSnoop(m snoopMsg) {
	c := z.players[m.target]
	if c == nil {
		z.forward(m, m.target)
		return
	}
	p := c.pl
	kept := p.snoopers[:0]
	for _, sn := range p.snoopers {
		if sn.name != m.by {
			kept = append(kept, sn)
		}
	}
	clear(p.snoopers[len(kept):])
	p.snoopers = kept
	if m.sess != nil {
		p.snoopers = append(p.snoopers, snooper{name: m.by, sess: m.sess})
		z.sendLine(c, "{Y}"+m.by+" is watching your screen.{x}")
	} else {
		z.sendLine(c, "{Y}"+m.by+" stops watching your screen.{x}")
	}
	z.prompt(c)
}

// snoopOut copies output going to c's screen to its snoopers, each line
// marked; a snooper whose connection has gone is dropped.
func (z *Zone) snoopOut(c *Char, out []byte) {
	p := c.pl
	var b []byte
	for _, line := range strings.SplitAfter(strings.TrimRight(string(out), "\n"), "\n") {
		b = append(b, "{K}%{x} "...)
		b = append(b, strings.TrimSuffix(line, "\n")...)
		b = append(b, '\n')
	}
	kept := p.snoopers[:0]
	for _, sn := range p.snoopers {
		if sn.sess.Write(b, false) {
			kept = append(kept, sn)
		}
	}
	clear(p.snoopers[len(kept):])
	p.snoopers = kept
}

// typed handles what watching admins see and the log records of a line a
// player typed.
func (z *Zone) typed(c *Char, s Session, line string) {
	p := c.pl
	if p.logged {
		z.log.Info("zone: a logged player typed a line", logev.ID(8119), logev.Player(c.name), logev.Session(s.ID()), "line", line)
	}
	if len(p.snoopers) > 0 {
		z.snoopOut(c, []byte("{K}[typed]{x} "+markup.Escape(line)+"\n"))
	}
}

// parseDuration reads a ban's duration: 30m, 12h, 7d, 4w.
func parseDuration(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n <= 0 || n > 100000 {
		return 0, false
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// firstOf is the first word of s.
func firstOf(s string) string {
	w, _ := firstWord(s)
	return w
}

// frozenRefusal answers a frozen player who typed anything but quit.
const frozenRefusal = "You are frozen solid. An admin has stopped you; you can only quit."
