package zone

import (
	"strconv"
	"strings"

	"zonemud/content"
	"zonemud/internal/act"
	"zonemud/internal/logev"
)

const killUsage = `kill <target>
  Attack someone here. Fights run in rounds of about two and a half
  seconds until one side dies or flees. k is short for kill.`

// cmdKill starts a fight.
func (z *Zone) cmdKill(c *Char, args string) {
	if strings.TrimSpace(args) == "" {
		z.sendLine(c, "Kill whom?")
		return
	}
	v := z.findChar(c, args, false)
	if v == nil {
		z.sendLine(c, "There is nobody here by that name.")
		return
	}
	if c.fighting == v {
		z.sendLine(c, "You are doing your best already!")
		return
	}
	if ok, why := z.canHarm(c, v); !ok {
		z.sendLine(c, why)
		return
	}
	if c.pos == posSleeping {
		z.sendLine(c, "You are asleep.")
		return
	}
	z.sendLine(c, "You attack "+v.short()+"!")
	z.sendLine(v, capFirst(c.short())+" attacks you!")
	z.actPair(c, v, capFirst(c.short())+" attacks "+v.short()+"!")
	z.startFight(c, v)
	// The first swing lands now; later ones come with the rounds.
	z.swing(c, v)
}

// cmdFlee runs from a fight through a random open exit. It may fail.
func (z *Zone) cmdFlee(c *Char, args string) {
	if c.fighting == nil {
		z.sendLine(c, "You are not fighting anyone.")
		return
	}
	if a := c.prevented("move"); a != nil {
		z.sendLine(c, "You cannot flee: "+a.a.Show+"!")
		return
	}
	var ways []content.Dir
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if c.room.exitOpen(d) && z.canGo(c, d) {
			ways = append(ways, d)
		}
	}
	if len(ways) == 0 || z.rng.IntN(100) >= z.set.Game.Combat.FleeChance {
		z.sendLine(c, "PANIC! You could not get away!")
		z.act(c.room, c, c, "$n tries to flee, but cannot get away!")
		return
	}
	d := ways[z.rng.IntN(len(ways))]
	foe := c.fighting
	z.stopFighting(c)
	if foe != nil && foe.mob != nil && foe.mob.Flags.Has(content.MobStalker) {
		foe.hunting = c
	}
	z.sendLine(c, "You flee "+d.String()+"!")
	z.act(c.room, c, c, "$n panics and flees "+d.String()+"!")
	z.move(c, d)
}

// cmdAssist joins a friend's fight.
func (z *Zone) cmdAssist(c *Char, args string) {
	f := z.findChar(c, args, false)
	if f == nil {
		z.sendLine(c, "Assist whom?")
		return
	}
	v := f.fighting
	if v == nil {
		z.sendLine(c, capFirst(f.short())+" is not fighting anyone.")
		return
	}
	if v == c {
		z.sendLine(c, "You cannot help "+f.short()+" against yourself!")
		return
	}
	if ok, why := z.canHarm(c, v); !ok {
		z.sendLine(c, why)
		return
	}
	z.sendLine(c, "You join the fight against "+v.short()+"!")
	z.actPair(c, v, capFirst(c.short())+" joins the fight against "+v.short()+"!")
	z.startFight(c, v)
}

// cmdConsider compares c with a possible foe.
func (z *Zone) cmdConsider(c *Char, args string) {
	v := z.findChar(c, args, false)
	if v == nil {
		z.sendLine(c, "Consider whom?")
		return
	}
	diff := v.level - c.level
	var s string
	switch {
	case diff <= -10:
		s = "Now where did that chicken go?"
	case diff <= -5:
		s = "You could do it with a needle!"
	case diff <= -2:
		s = "Easy."
	case diff <= 1:
		s = "The perfect match!"
	case diff <= 3:
		s = "You would need some luck!"
	case diff <= 6:
		s = "You would need a lot of luck, and great equipment!"
	default:
		s = "Are you mad!?"
	}
	z.sendLine(c, capFirst(v.short())+": "+s)
}

// cmdAdvance sets a player's level. Admins use it to test content.
func (z *Zone) cmdAdvance(c *Char, args string) {
	who, lvl := firstWord(args)
	n, err := strconv.Atoi(strings.TrimSpace(lvl))
	var v *Char
	if strings.EqualFold(who, "self") || strings.EqualFold(who, "me") {
		v = c
	} else {
		v = z.players[normalName(who)]
	}
	if v == nil || err != nil || n < 1 || n > z.set.Game.MaxLevel {
		z.sendLine(c, "advance <player in this zone> <level 1 to "+itoa(z.set.Game.MaxLevel)+">")
		return
	}
	v.level, v.exp = n, 0
	z.recalc(v)
	v.hp, v.mana, v.mv = v.maxHP, v.maxM, v.maxMv
	z.dirty(v)
	z.log.Info("zone: an admin set a player's level", logev.ID(8121), logev.Player(v.name), "by", c.name, "level", n)
	z.sendLine(c, v.name+" is now level "+itoa(n)+".")
	if v != c {
		z.sendLine(v, "You are now level "+itoa(n)+".")
	}
}

// cmdPvP toggles consent to fights with other players.
func (z *Zone) cmdPvP(c *Char, args string) {
	c.pl.settings.PvP = !c.pl.settings.PvP
	z.dirty(c)
	if c.pl.settings.PvP {
		z.sendLine(c, "You are willing to fight other players who are willing too.")
	} else {
		z.sendLine(c, "You no longer fight other players (except where a place allows it).")
	}
}

// setPos changes c's position with messages.
func (z *Zone) setPos(c *Char, p position, self, room string) {
	if c.fighting != nil && p != posStanding {
		z.sendLine(c, "Not while you are fighting!")
		return
	}
	if c.pos == p {
		z.sendLine(c, "You are already "+p.String()+".")
		return
	}
	c.pos = p
	z.sendLine(c, self)
	z.act(c.room, c, c, room)
	z.wake(c)
}

func (z *Zone) cmdRest(c *Char, args string) {
	z.setPos(c, posResting, "You sit down and rest your tired bones.", "$n sits down and rests.")
}

func (z *Zone) cmdSit(c *Char, args string) {
	z.setPos(c, posSitting, "You sit down.", "$n sits down.")
}

func (z *Zone) cmdStand(c *Char, args string) {
	z.setPos(c, posStanding, "You stand up.", "$n stands up.")
}

func (z *Zone) cmdSleep(c *Char, args string) {
	z.setPos(c, posSleeping, "You lie down and go to sleep.", "$n lies down and falls asleep.")
}

func (z *Zone) cmdWake(c *Char, args string) {
	if c.pos != posSleeping {
		z.sendLine(c, "You are not asleep.")
		return
	}
	z.setPos(c, posSitting, "You wake and sit up.", "$n wakes and sits up.")
}

// useAbility is an ability's whole life: costs, cooldown and lag, then its
// damage, healing or affect. It reports whether it was used.
func (z *Zone) useAbility(c *Char, ab *content.Ability, target *Char) bool {
	now := z.pulses.now
	if c.pl != nil {
		switch {
		case c.level < ab.Level:
			z.sendLine(c, "You have not learned "+ab.Name+" yet (level "+itoa(ab.Level)+").")
			return false
		case now < c.cooldown[ab.Name]:
			z.sendLine(c, capFirst(ab.Name)+" is not ready yet.")
			return false
		case c.mana < ab.CostMana:
			z.sendLine(c, "You do not have the mana.")
			return false
		case c.mv < ab.CostMoves:
			z.sendLine(c, "You are too tired.")
			return false
		case c.prevented("cast") != nil:
			z.sendLine(c, "You cannot do that while "+c.prevented("cast").a.Show+".")
			return false
		}
	}
	// An ability aimed at anyone is harmful when it hurts or afflicts:
	// safe rooms and PvP consent apply to it as to an attack.
	harmful := ab.Target == "enemy" ||
		(target != c && (ab.HasDamage || (ab.Apply != nil && ab.Apply.Harmful)))
	if harmful {
		if ok, why := z.canHarm(c, target); !ok {
			z.sendLine(c, why)
			return false
		}
	}
	c.mana -= ab.CostMana
	c.mv -= ab.CostMoves
	if c.cooldown == nil {
		c.cooldown = map[string]uint64{}
	}
	c.cooldown[ab.Name] = now + uint64(ab.CooldownPulses)
	c.lagUntil = now + uint64(ab.LagPulses)
	z.wake(c)
	z.dirty(c)
	msg := func(s string) string {
		return act.Format(s, c.short(), target.short())
	}
	z.sendLine(c, msg(ab.Messages[0]))
	if target != c {
		z.sendLine(target, msg(ab.Messages[1]))
	}
	z.actPair(c, target, msg(ab.Messages[2]))
	if harmful {
		z.startFight(c, target)
	}
	if ab.HasDamage {
		dmg := ab.Damage.Roll(z.rng.IntN)
		if ab.DamageBonus != nil {
			dmg += z.evalOr(ab.DamageBonus, z.vars(c), 0)
		}
		dmg = max(dmg, 0)
		z.sendLine(c, "{G}("+itoa(dmg)+"){x}")
		z.sendLine(target, "{R}("+itoa(dmg)+"){x}")
		if z.hurt(target, dmg, c, c.name) {
			return true
		}
	}
	if ab.HasHeal {
		z.healBy(target, max(0, ab.Heal.Roll(z.rng.IntN)))
	}
	if ab.Apply != nil {
		z.applyAffect(target, ab.Apply, c)
	}
	return true
}

// cmdAbility runs an ability typed as a verb: `strike rat`, `heal aria`.
func (z *Zone) cmdAbility(c *Char, ab *content.Ability, args string) {
	if c.pos == posSleeping {
		z.sendLine(c, "You are asleep.")
		return
	}
	var target *Char
	args = strings.TrimSpace(args)
	switch ab.Target {
	case "self":
		target = c
	case "enemy":
		if args == "" {
			target = c.fighting
		}
	case "ally", "any":
		if args == "" {
			target = c
		}
	}
	if target == nil && args != "" {
		target = z.findChar(c, args, ab.Target != "enemy")
	}
	if target == nil {
		z.sendLine(c, capFirst(ab.Name)+" whom?")
		return
	}
	z.useAbility(c, ab, target)
}

// cmdAbilities lists the abilities c knows and when they are ready.
func (z *Zone) cmdAbilities(c *Char, args string) {
	var b strings.Builder
	b.WriteString("Your abilities:")
	for _, ab := range z.set.Game.Abilities {
		state := "ready"
		switch {
		case c.level < ab.Level:
			state = "at level " + itoa(ab.Level)
		case z.pulses.now < c.cooldown[ab.Name]:
			state = "ready in " + itoa(int((c.cooldown[ab.Name]-z.pulses.now+3)/4)) + "s"
		}
		cost := ""
		if ab.CostMana > 0 {
			cost += " " + itoa(ab.CostMana) + " mana"
		}
		if ab.CostMoves > 0 {
			cost += " " + itoa(ab.CostMoves) + " moves"
		}
		b.WriteString("\n  " + ab.Name + " (" + ab.Target + cost + "): " + state + ". " + ab.Help)
	}
	z.sendLine(c, b.String())
}
