package zone

import (
	"strings"
	"unicode/utf8"

	"zonemud/content"
)

// command is one verb. Every handler has the same signature; its usage text
// is its in-game help, one source for both.
type command struct {
	name  string
	fn    func(z *Zone, c *Char, args string)
	usage string
	// exact: the whole word must be typed (quit), so an abbreviation never
	// does something drastic.
	exact bool
	// role is the least role that may use it; to anyone below it the
	// command does not exist.
	role role
	// hidden commands are left out of `commands` but work and have help.
	hidden bool
	// async commands may be answered off the zone's goroutine (later):
	// their prompt waits for the answer.
	async bool
}

// commands is the command table in priority order: a typed word runs the
// first command it abbreviates, so `n` is north, `l` look and `i` inventory
// (Diku order). It is built once at init and never changes.
var commands []command

// maxLineRunes caps what one command may be. The gate caps lines in bytes
// too; this keeps every handler's input small.
const maxLineRunes = 1000

func init() {
	commands = nil
	for d := content.Dir(0); d < content.NumDirs; d++ {
		d := d
		commands = append(commands, command{
			name:  d.String(),
			fn:    func(z *Zone, c *Char, args string) { z.cmdMove(c, d) },
			usage: "Walk " + d.String() + " (or type " + d.Short() + ").",
		})
	}
	commands = append(commands, cmdTable...)
	commands = append(commands, commTable...)
}

// cmdTable is every command but the directions.
var cmdTable = []command{
	{name: "look", fn: (*Zone).cmdLook, usage: lookUsage},
	{name: "kill", fn: (*Zone).cmdKill, usage: killUsage},
	{name: "get", fn: (*Zone).cmdGet, usage: getUsage},
	{name: "inventory", fn: (*Zone).cmdInventory, usage: "inventory\n  List what you carry (i for short)."},
	{name: "say", fn: (*Zone).cmdSay, usage: "say <text>\n  Speak to everyone in the room. ' is short for say: 'hello"},
	{name: "tell", fn: (*Zone).cmdTell, usage: "tell <player> <text>\n  Speak to one player, wherever they are."},
	{name: "reply", fn: (*Zone).cmdReply, usage: "reply <text>\n  Answer the last player who told you something."},
	{name: "who", fn: (*Zone).cmdWho, usage: "who [name]\n  List the players in the world, or those whose name starts with name."},
	{name: "exits", fn: (*Zone).cmdExits, usage: "exits\n  List the ways out of this room and where they lead."},
	{name: "examine", fn: (*Zone).cmdExamine, usage: "examine <thing>\n  Look closely at something or someone."},
	{name: "read", fn: (*Zone).cmdRead, usage: "read <thing>\n  Read a notice, a sign or a board: read board is look board."},
	{name: "emote", fn: (*Zone).cmdEmote, usage: "emote <action>\n  Show the room what you do: emote smiles. becomes 'Aria smiles.'"},
	{name: "drop", fn: (*Zone).cmdDrop, usage: dropUsage},
	{name: "give", fn: (*Zone).cmdGive, usage: "give <item> <player>\n  Hand something you carry to someone here. give all.bread aria gives every bread; give 10 gold aria gives coins."},
	{name: "junk", fn: (*Zone).cmdJunk, usage: junkUsage},
	{name: "keep", fn: (*Zone).cmdKeep, usage: keepUsage},
	{name: "unkeep", fn: (*Zone).cmdUnkeep, usage: unkeepUsage},
	{name: "quest", fn: (*Zone).cmdQuest, usage: questUsage},
	{name: "list", fn: (*Zone).cmdList, usage: "list\n  See what the shopkeeper here sells, and for how much."},
	{name: "buy", fn: (*Zone).cmdBuy, usage: "buy [n] <item>\n  Buy from the shopkeeper here: buy ale, buy 3 bread (up to 50 at once)."},
	{name: "sell", fn: (*Zone).cmdSell, usage: "sell <item> | sell all[.item]\n  Sell what you carry to the shopkeeper here. What you wear comes off first; sell all leaves what you keep alone."},
	{name: "value", fn: (*Zone).cmdValue, usage: "value <item>\n  Ask the shopkeeper here what they would pay for something."},
	{name: "help", fn: (*Zone).cmdHelp, usage: "help [topic]\n  Read about a command or a topic. help alone lists topics."},
	{name: "commands", fn: (*Zone).cmdCommands, usage: "commands\n  List every command."},
	{name: "score", fn: (*Zone).cmdScore, usage: "score\n  Show your character."},
	{name: "time", fn: (*Zone).cmdTime, usage: "time\n  Show the time of day in the game, and how long the world and you have been up."},
	{name: "save", fn: (*Zone).cmdSave, usage: saveUsage},
	{name: "areas", fn: (*Zone).cmdAreas, usage: areasUsage},
	{name: "color", fn: (*Zone).cmdColor, usage: colorUsage},
	{name: "colour", fn: (*Zone).cmdColor, usage: colorUsage, hidden: true},
	{name: "screenreader", fn: (*Zone).cmdScreenReader, usage: "screenreader [on | off]\n  Output for screen readers: no colour, plain lists, no decorations."},
	{name: "brief", fn: (*Zone).cmdBrief, usage: "brief\n  Turn room descriptions on arrival off or on again; look always shows them."},
	{name: "wizinvis", fn: (*Zone).cmdWizinvis, hidden: true, usage: wizinvisUsage},
	{name: "holylight", fn: (*Zone).cmdHolylight, hidden: true, usage: holylightUsage},
	{name: "vitals", fn: (*Zone).cmdVitals, usage: "vitals\n  Show your hit points, mana and moves in the prompt, or stop."},
	{name: "sshkey", fn: (*Zone).cmdSSHKey, async: true, usage: sshkeyUsage},
	{name: "flee", fn: (*Zone).cmdFlee, usage: "flee\n  Run from a fight through a random way out. It may fail."},
	{name: "assist", fn: (*Zone).cmdAssist, usage: "assist <friend>\n  Join a friend's fight."},
	{name: "consider", fn: (*Zone).cmdConsider, usage: "consider <target>\n  Judge how a fight with someone would go."},
	{name: "wear", fn: (*Zone).cmdWear, usage: wearUsage},
	{name: "wield", fn: (*Zone).cmdWield, usage: "wield <weapon>\n  Take a weapon in hand."},
	{name: "hold", fn: (*Zone).cmdHold, usage: "hold <item>\n  Hold something: a light, a torch, a trinket."},
	{name: "remove", fn: (*Zone).cmdRemove, usage: "remove <item> | remove all\n  Stop wearing or holding something."},
	{name: "equipment", fn: (*Zone).cmdEquipment, usage: "equipment\n  List what you wear and hold."},
	{name: "eat", fn: (*Zone).cmdEat, usage: eatUsage},
	{name: "drink", fn: (*Zone).cmdDrink, usage: drinkUsage},
	{name: "put", fn: (*Zone).cmdPut, usage: "put <item> in <container>\n  Put something into a bag, a chest or a box."},
	{name: "open", fn: (*Zone).cmdOpen, usage: "open <door or container>\n  Open a door (by name or direction) or a container."},
	{name: "close", fn: (*Zone).cmdClose, usage: "close <door or container>\n  Close a door or a container."},
	{name: "lock", fn: (*Zone).cmdLock, usage: "lock <door or container>\n  Lock it, if you carry the key."},
	{name: "unlock", fn: (*Zone).cmdUnlock, usage: "unlock <door or container>\n  Unlock it, if you carry the key."},
	{name: "rest", fn: (*Zone).cmdRest, usage: "rest\n  Sit and rest: you recover faster. stand to get up."},
	{name: "sit", fn: (*Zone).cmdSit, usage: "sit\n  Sit down."},
	{name: "stand", fn: (*Zone).cmdStand, usage: "stand\n  Stand up."},
	{name: "sleep", fn: (*Zone).cmdSleep, usage: "sleep\n  Sleep: you recover fastest, but see nothing. wake to wake."},
	{name: "wake", fn: (*Zone).cmdWake, usage: "wake\n  Wake up."},
	{name: "affects", fn: (*Zone).cmdAffects, usage: "affects\n  List what affects you, and for how long."},
	{name: "ask", fn: (*Zone).cmdAsk, usage: askUsage},
	{name: "abilities", fn: (*Zone).cmdAbilities, usage: "abilities\n  List your abilities. Use one by name: strike rat, heal, bless aria."},
	{name: "follow", fn: (*Zone).cmdFollow, usage: followUsage},
	{name: "group", fn: (*Zone).cmdGroup, usage: groupUsage},
	{name: "ungroup", fn: (*Zone).cmdUngroup, usage: ungroupUsage},
	{name: "unfollow", fn: (*Zone).cmdUnfollow, usage: unfollowUsage},
	{name: "gsay", fn: (*Zone).cmdGsay, usage: gsayUsage},
	{name: "gtell", fn: (*Zone).cmdGsay, usage: gsayUsage},
	{name: "pvp", fn: (*Zone).cmdPvP, usage: "pvp\n  Agree, or stop agreeing, to fights with other players who agree too."},
	{name: "prompt", fn: (*Zone).cmdPrompt, usage: promptUsage},
	{name: "quit", fn: (*Zone).cmdQuit, exact: true, usage: "quit\n  Leave the world. Your character is saved where it stands."},
	{name: "reload", fn: (*Zone).cmdReload, async: true, exact: true, role: roleBuilder, usage: reloadUsage},
	{name: "rstat", fn: (*Zone).cmdRstat, async: true, role: roleBuilder, usage: rstatUsage},
	{name: "mstat", fn: (*Zone).cmdMstat, async: true, role: roleBuilder, usage: mstatUsage},
	{name: "ostat", fn: (*Zone).cmdOstat, async: true, role: roleBuilder, usage: ostatUsage},
	{name: "where", fn: (*Zone).cmdWhere, async: true, role: roleBuilder, usage: whereUsage},
	{name: "purge", fn: (*Zone).cmdPurge, async: true, exact: true, role: roleBuilder, usage: purgeUsage},
	{name: "load", fn: (*Zone).cmdLoad, exact: true, role: roleBuilder, usage: loadUsage},
	{name: "zreset", fn: (*Zone).cmdZreset, exact: true, role: roleBuilder, usage: zresetUsage},
	{name: "scripterrors", fn: (*Zone).cmdScripterrors, async: true, role: roleBuilder, usage: scripterrorsUsage},
	{name: "advance", fn: (*Zone).cmdAdvance, exact: true, role: roleAdmin, usage: "advance <player> <level>\n  Set a player's level (in this zone). (admin)"},
	{name: "grant", fn: (*Zone).cmdGrant, async: true, exact: true, role: roleAdmin, usage: grantUsage},
	{name: "revoke", fn: (*Zone).cmdRevoke, async: true, exact: true, role: roleAdmin, usage: grantUsage},
	{name: "shutdown", fn: (*Zone).cmdShutdown, exact: true, role: roleAdmin, usage: shutdownUsage},
	{name: "reboot", fn: (*Zone).cmdReboot, exact: true, role: roleAdmin, usage: rebootUsage},
	{name: "wall", fn: (*Zone).cmdWall, exact: true, role: roleAdmin, usage: wallUsage},
	{name: "goto", fn: (*Zone).cmdGoto, async: true, exact: true, role: roleBuilder, usage: gotoUsage},
	{name: "transfer", fn: (*Zone).cmdTransfer, async: true, exact: true, role: roleAdmin, usage: transferUsage},
	{name: "stat", fn: (*Zone).cmdStat, async: true, exact: true, role: roleAdmin, usage: statUsage},
	{name: "sessions", fn: (*Zone).cmdSessions, async: true, exact: true, role: roleAdmin, usage: sessionsUsage},
	{name: "ban", fn: (*Zone).cmdBan, async: true, exact: true, role: roleAdmin, usage: banUsage},
	{name: "unban", fn: (*Zone).cmdUnban, async: true, exact: true, role: roleAdmin, usage: unbanUsage},
	{name: "snoop", fn: (*Zone).cmdSnoop, exact: true, role: roleAdmin, usage: snoopUsage},
	{name: "force", fn: (*Zone).cmdForce, async: true, exact: true, role: roleAdmin, usage: forceUsage},
	{name: "freeze", fn: (*Zone).cmdFreeze, async: true, exact: true, role: roleAdmin, usage: freezeUsage},
	{name: "log", fn: (*Zone).cmdLog, async: true, exact: true, role: roleAdmin, usage: logUsage},
	{name: "instances", fn: (*Zone).cmdInstances, exact: true, role: roleAdmin, usage: instancesUsage},
	{name: "backup", fn: (*Zone).cmdBackup, async: true, exact: true, role: roleAdmin, usage: "backup\n  Write a consistent copy of the database into the data folder's backups\n  folder while everyone plays on. (admin)"},
}

// interpret runs one line of input.
func (z *Zone) interpret(c *Char, line string) {
	if c.pl != nil && c.pl.draft != nil {
		z.composeLine(c, line) // a chain's next command after mail NAME
		return
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	if utf8.RuneCountInString(line) > maxLineRunes {
		z.sendLine(c, "That is too long to be a command.")
		return
	}
	if c.pl != nil && c.pl.frozen && !strings.EqualFold(firstOf(line), "quit") {
		z.sendLine(c, frozenRefusal)
		return
	}
	// ' and " are short for say, as on every Diku.
	if line[0] == '\'' || line[0] == '"' {
		z.cmdSay(c, strings.TrimSpace(line[1:]))
		return
	}
	word, args := firstWord(line)
	word = strings.ToLower(word)
	// quit always quits: no script may keep a player in the world.
	if word != "quit" && z.scriptCommand(c, word, args) {
		return
	}
	if z.channel(c, word, args) || z.social(c, word, args) {
		return
	}
	cmd := lookupCommand(word, c.role())
	if cmd == nil {
		if ab := z.lookupAbility(word); ab != nil {
			z.cmdAbility(c, ab, args)
			return
		}
		z.sendLine(c, "Huh? (Type commands for a list, or help.)")
		return
	}
	if c.pos == posSleeping && !sleepOK[cmd.name] {
		z.sendLine(c, "In your dreams, or what?")
		return
	}
	if cmd.exact && word != cmd.name {
		z.sendLine(c, "To "+cmd.name+", type the whole word: "+cmd.name+".")
		return
	}
	z.running = cmd
	cmd.fn(z, c, args)
	z.running = nil
}

// sleepOK are the commands a sleeping character may use.
var sleepOK = map[string]bool{
	"wake": true, "stand": true, "quit": true, "score": true, "save": true, "areas": true, "inventory": true, "equipment": true,
	"who": true, "help": true, "commands": true, "affects": true, "time": true, "color": true,
	"colour": true, "screenreader": true, "brief": true, "vitals": true, "prompt": true, "sshkey": true, "tell": true,
	"reply": true, "abilities": true, "look": true, "sleep": true, "rest": true, "sit": true,
	"group": true, "instances": true, "gsay": true, "gtell": true, "alias": true, "unalias": true,
	"mail": true,
}

// lookupAbility finds an ability by its name or an unambiguous start of it.
func (z *Zone) lookupAbility(word string) *content.Ability {
	if ab := z.set.Game.Ability(word); ab != nil {
		return ab
	}
	var found *content.Ability
	for _, ab := range z.set.Game.Abilities {
		if len(word) >= 2 && strings.HasPrefix(ab.Name, word) {
			if found != nil {
				return nil
			}
			found = ab
		}
	}
	return found
}

// lookupCommand finds the command a typed word names for someone of role
// r: an exact name first, then the first command in priority order it
// abbreviates. Commands above r are not there.
func lookupCommand(word string, r role) *command {
	if d, ok := content.ParseDir(word); ok {
		return &commands[d]
	}
	for i := range commands {
		if commands[i].name == word && commands[i].role <= r {
			return &commands[i]
		}
	}
	for i := range commands {
		if strings.HasPrefix(commands[i].name, word) && commands[i].role <= r {
			return &commands[i]
		}
	}
	return nil
}
