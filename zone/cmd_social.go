package zone

import (
	"strings"

	"zonemud/content/social"
)

const socialsUsage = "socials\n  List the socials: small acts like smile, nod or wave. Type one alone\n  (smile) or at someone here (smile aria)."

// social runs word as a social if it names one and no command of that
// exact name is there for c, and reports whether it did. A social's name
// beats a command it only abbreviates: "nod" nods, though n is north.
func (z *Zone) social(c *Char, word, args string) bool {
	s := z.set.Socials.Find(word)
	if s == nil {
		return false
	}
	for i := range commands {
		if commands[i].name == word && commands[i].role <= c.role() {
			return false
		}
	}
	if posRank(c.pos) < s.MinPos {
		z.sendLine(c, socialPosRefusal(c.pos))
		return true
	}
	me := personOf(c)
	target, _ := firstWord(args)
	if target == "" || !s.Targeted() {
		z.sendLine(c, social.Act(s.CharNoArg, me, me))
		if s.OthersNoArg != "" {
			z.toRoom(c.room, c, social.Act(s.OthersNoArg, me, me))
		}
		return true
	}
	v := z.findChar(c, strings.ToLower(target), true)
	switch {
	case v == nil:
		// What was typed is never echoed: it may hold anything.
		if s.NotFound != "" {
			z.sendLine(c, social.Act(s.NotFound, me, me))
		} else {
			z.sendLine(c, "They aren't here.")
		}
	case v == c:
		if s.CharAuto == "" {
			z.sendLine(c, "You can't do that to yourself.")
			return true
		}
		z.sendLine(c, social.Act(s.CharAuto, me, me))
		z.toRoom(c.room, c, social.Act(s.OthersAuto, me, me))
	default:
		them := personOf(v)
		z.sendLine(c, social.Act(s.CharFound, me, them))
		z.sendLine(v, social.Act(s.VictFound, me, them))
		z.actPair(c, v, social.Act(s.OthersFound, me, them))
	}
	return true
}

// personOf is c as a social names it: players are "they", mobs "it".
func personOf(c *Char) social.Person {
	if c.pl != nil {
		return social.Them(c.short())
	}
	return social.It(c.short())
}

// posRank is a position in the order socials rank them.
func posRank(p position) social.Position {
	switch p {
	case posSleeping:
		return social.Sleeping
	case posResting:
		return social.Resting
	case posSitting:
		return social.Sitting
	}
	return social.Standing
}

func socialPosRefusal(p position) string {
	switch p {
	case posSleeping:
		return "In your dreams, or what?"
	case posResting, posSitting:
		return "You had better stand up first."
	}
	return "You can't do that now."
}

// cmdSocials lists the socials.
func (z *Zone) cmdSocials(c *Char, args string) {
	names := z.set.Socials.Names()
	if len(names) == 0 {
		z.sendLine(c, "This world has no socials.")
		return
	}
	z.sendLine(c, "Socials:\n"+wrap(strings.Join(names, " "), z.width(c)))
}
