package zone

import (
	"strconv"
	"strings"

	"zonemud/internal/act"
)

// Staff sight: wizinvis and holylight, as on a Diku MUD.
//
// A staff member (builder or admin) who types wizinvis is hidden from
// everyone whose sight is below their invisibility level: left out of
// who and of room listings, unseen coming and going, and named
// "Someone" in what they say and do. Levels are the game's levels, with
// the staff ranks above them: a builder counts as max level + 1 and an
// admin as max level + 2, so `wizinvis` alone hides a builder from every
// player and an admin from every player and builder; `wizinvis 10` hides
// only from characters below level 10.
//
// A character's sight is its level. A staff member with holylight on sees
// with their staff rank instead, and sees in dark rooms: holylight off,
// staff see the world as a player of their level does.

const wizinvisUsage = `wizinvis [level | off]
  Staff only. Hide from players (and staff) below your level: you are left
  out of who and of what they see in a room, they are not told when you
  come or go, and what you say or do reads as Someone. With no level, it
  switches between visible and your own rank (a builder's is max level + 1,
  an admin's max level + 2); wizinvis 10 hides you only from those below
  level 10; wizinvis off shows you again. Kept with your character.`

const holylightUsage = `holylight
  Staff only. Switch holylight on or off: with it you see in dark rooms and
  see staff who are wizinvis at your rank or below. Kept with your
  character.`

// staffRank is what c's level counts as against a wizinvis level when c
// looks with holylight, and the highest wizinvis level c may take: a
// player's level, max level + 1 for a builder, + 2 for an admin.
func (z *Zone) staffRank(c *Char) int {
	switch c.role() {
	case roleAdmin:
		return z.set.Game.MaxLevel + 2
	case roleBuilder:
		return z.set.Game.MaxLevel + 1
	}
	return c.level
}

// invisLevel is c's wizinvis level; 0 is visible. Only staff can be
// wizinvis: a level kept from a revoked role counts for nothing.
func (z *Zone) invisLevel(c *Char) int {
	if c == nil || c.pl == nil || c.role() == rolePlayer {
		return 0
	}
	return c.pl.settings.WizInvis
}

// holylight reports whether c sees as staff: in the dark, and through
// wizinvis up to its rank.
func holylight(c *Char) bool {
	return c != nil && c.pl != nil && c.role() > rolePlayer && c.pl.settings.Holylight
}

// sight is the level c sees with against wizinvis.
func (z *Zone) sight(c *Char) int {
	if holylight(c) {
		return z.staffRank(c)
	}
	return c.level
}

// canSee reports whether viewer sees o: o is viewer, o is not wizinvis,
// or viewer's sight reaches o's level.
func (z *Zone) canSee(viewer, o *Char) bool {
	if viewer == o {
		return true
	}
	lv := z.invisLevel(o)
	return lv == 0 || z.sight(viewer) >= lv
}

// seenName is how o is named to viewer: o's name, or "someone".
func (z *Zone) seenName(viewer, o *Char) string {
	if z.canSee(viewer, o) {
		return o.short()
	}
	return "someone"
}

// cmdWizinvis sets or clears c's wizinvis level.
func (z *Zone) cmdWizinvis(c *Char, args string) {
	if c.role() == rolePlayer {
		z.sendLine(c, "Only staff (builders and admins) can go wizinvis.")
		return
	}
	arg := strings.ToLower(strings.TrimSpace(args))
	top := z.staffRank(c)
	lv := 0
	switch arg {
	case "":
		if z.invisLevel(c) == 0 {
			lv = top
		}
	case "off", "0":
	default:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 || n > top {
			z.sendLine(c, "wizinvis [level | off]: a level from 1 to "+strconv.Itoa(top)+" (your rank), or off.")
			return
		}
		lv = n
	}
	was := z.invisLevel(c)
	if lv == was {
		if lv == 0 {
			z.sendLine(c, "You are already visible.")
		} else {
			z.sendLine(c, "You are already wizinvis at level "+strconv.Itoa(lv)+".")
		}
		return
	}
	// Those who saw c and no longer will see it go; those who start to
	// see it see it appear.
	if c.room != nil {
		for _, o := range c.room.people {
			if o == c || o.pl == nil || o.pl.sess == nil {
				continue
			}
			before := was == 0 || z.sight(o) >= was
			after := lv == 0 || z.sight(o) >= lv
			switch {
			case before && !after:
				z.sendLine(o, act.Format("$n slowly fades into nothingness.", c.short(), ""))
			case !before && after:
				z.sendLine(o, act.Format("$n slowly fades into existence.", c.short(), ""))
			}
		}
	}
	c.pl.settings.WizInvis = lv
	z.rosterOld = true
	z.dirty(c)
	if lv == 0 {
		z.sendLine(c, "You are visible again.")
		return
	}
	z.sendLine(c, "You are wizinvis at level "+strconv.Itoa(lv)+": those below it do not see you.")
}

// cmdHolylight switches c's holylight.
func (z *Zone) cmdHolylight(c *Char, args string) {
	if c.role() == rolePlayer {
		z.sendLine(c, "Only staff (builders and admins) have holylight.")
		return
	}
	c.pl.settings.Holylight = !c.pl.settings.Holylight
	z.dirty(c)
	if c.pl.settings.Holylight {
		z.sendLine(c, "Holylight on: you see in the dark, and staff wizinvis at your rank or below.")
	} else {
		z.sendLine(c, "Holylight off: you see as a player of your level does.")
	}
}
