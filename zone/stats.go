package zone

import (
	"zonemud/content"
	"zonemud/internal/logev"
)

// stats are the numbers combat reads, derived from level, attributes, gear
// and affects by recalc. They are never saved: they follow from what is.
type stats struct {
	attrs   []int // effective attributes (base + gear + affects)
	hitroll int
	damroll int
	armor   int
	dodge   int // percent
	attacks int
}

// position is how a character is placed: standing, sitting, resting,
// sleeping. Fighting is c.fighting != nil, whatever the position.
type position uint8

const (
	posStanding position = iota
	posSitting
	posResting
	posSleeping
)

func (p position) String() string {
	return [...]string{"standing", "sitting", "resting", "sleeping"}[p]
}

// attrsFromRecord reads saved attributes, starting values where missing.
func (z *Zone) attrsFromRecord(saved map[string]int) []int {
	g := z.set.Game
	out := make([]int, len(g.Attributes))
	for i, a := range g.Attributes {
		if v, ok := saved[a.Name]; ok && v >= 0 && v <= 1000 {
			out[i] = v
		} else {
			out[i] = a.Start
		}
	}
	return out
}

func (z *Zone) attrsRecord(c *Char) map[string]int {
	out := make(map[string]int, len(c.attrs))
	for i, a := range z.set.Game.Attributes {
		if i < len(c.attrs) {
			out[a.Name] = c.attrs[i]
		}
	}
	return out
}

// charVars resolves formula variables for a character: its level, stats
// and attributes; for combat formulas (victim set) the victim's too.
type charVars struct {
	g         *content.Game
	c, victim *Char
}

func (v *charVars) Var(name string) int {
	c := v.c
	switch name {
	case "level":
		return c.level
	case "hitroll":
		return c.st.hitroll
	case "damroll":
		return c.st.damroll
	case "armor":
		return c.st.armor
	}
	if v.victim != nil {
		switch name {
		case "victim_level":
			return v.victim.level
		case "victim_armor":
			return v.victim.st.armor
		case "victim_dodge":
			return v.victim.st.dodge
		}
	}
	if c.mob != nil {
		return 10 // mobs have no attributes: an average one
	}
	for i, a := range v.g.Attributes {
		if a.Name == name && i < len(c.st.attrs) {
			return c.st.attrs[i]
		}
	}
	return 0
}

// vars resolves formula variables for a character. The value it returns is
// the zone's own, reused: use it at once, not across another call.
func (z *Zone) vars(c *Char) content.Vars {
	z.cv = charVars{g: z.set.Game, c: c}
	return &z.cv
}

// evalOr evaluates a formula, answering d (and logging once per call site
// kind) if it fails; data is checked at load, so this is a safety net.
func (z *Zone) evalOr(f *content.Formula, vars content.Vars, d int) int {
	if f == nil {
		return d
	}
	v, err := f.Eval(vars)
	if err != nil {
		z.log.Warn("zone: a formula failed in play; using a default", logev.ID(7105), "formula", f.String(), "err", err)
		return d
	}
	return v
}

// recalc derives c's stats and maxima from what it is, wears and suffers.
// Call it when any of those change.
func (z *Zone) recalc(c *Char) {
	g := z.set.Game
	if len(c.st.attrs) != len(g.Attributes) {
		c.st.attrs = make([]int, len(g.Attributes))
	}
	for i, a := range g.Attributes {
		base := a.Start
		if i < len(c.attrs) {
			base = c.attrs[i]
		}
		c.st.attrs[i] = base
	}
	var gear struct{ hp, mana, moves, hitroll, damroll, armor, dodge int }
	for _, it := range c.eq {
		if it == nil {
			continue
		}
		gear.armor += it.proto.Armor
		for stat, v := range it.proto.Apply {
			switch stat {
			case "hp":
				gear.hp += v
			case "mana":
				gear.mana += v
			case "moves":
				gear.moves += v
			case "hitroll":
				gear.hitroll += v
			case "damroll":
				gear.damroll += v
			case "armor":
				gear.armor += v
			case "dodge":
				gear.dodge += v
			default:
				for i, a := range g.Attributes {
					if a.Name == stat {
						c.st.attrs[i] += v
					}
				}
			}
		}
	}
	var aff struct{ hitroll, damroll, armor, dodge int }
	for _, a := range c.affects {
		aff.hitroll += a.a.Hitroll * a.stacks
		aff.damroll += a.a.Damroll * a.stacks
		aff.armor += a.a.Armor * a.stacks
		aff.dodge += a.a.Dodge * a.stacks
	}
	if c.mob != nil {
		v := z.vars(c)
		c.regen = [3]int{z.evalOr(g.Regen.HP, v, 2+c.level), z.evalOr(g.Regen.Mana, v, 2+c.level), z.evalOr(g.Regen.Moves, v, 10)}
		c.st.hitroll = c.mob.Hitroll + gear.hitroll + aff.hitroll
		c.st.damroll = gear.damroll + aff.damroll
		c.st.armor = c.mob.Armor + gear.armor + aff.armor
		c.st.dodge = c.mob.Dodge + gear.dodge + aff.dodge
		c.st.attacks = max(1, c.mob.Attacks)
		return
	}
	v := z.vars(c)
	c.regen = [3]int{z.evalOr(g.Regen.HP, v, 2+c.level), z.evalOr(g.Regen.Mana, v, 2+c.level), z.evalOr(g.Regen.Moves, v, 10)}
	c.st.hitroll = z.evalOr(g.Hitroll, v, 0) + gear.hitroll + aff.hitroll
	c.st.damroll = z.evalOr(g.Damroll, v, 0) + gear.damroll + aff.damroll
	c.st.armor = gear.armor + aff.armor
	c.st.dodge = z.evalOr(g.Dodge, v, 0) + gear.dodge + aff.dodge
	c.st.attacks = min(max(1, z.evalOr(g.Attacks, v, 1)), 50)
	c.maxHP = max(1, z.evalOr(g.MaxHP, v, 20)+gear.hp)
	c.maxM = max(0, z.evalOr(g.MaxMana, v, 10)+gear.mana)
	c.maxMv = max(1, z.evalOr(g.MaxMoves, v, 100)+gear.moves)
	c.hp = min(c.hp, c.maxHP)
	c.mana = min(c.mana, c.maxM)
	c.mv = min(c.mv, c.maxMv)
}

// expToLevel is the experience c needs to rise from its level.
func (z *Zone) expToLevel(c *Char) int {
	return max(1, z.evalOr(z.set.Game.ExpToLevel, z.vars(c), 100*c.level*c.level))
}

// gainExp gives c experience and raises its level as far as it reaches.
func (z *Zone) gainExp(c *Char, n int) {
	if c.pl == nil || n <= 0 {
		return
	}
	c.exp += n
	z.sendLine(c, "You gain "+itoa(n)+" experience.")
	for c.level < z.set.Game.MaxLevel && c.exp >= z.expToLevel(c) {
		c.exp -= z.expToLevel(c)
		c.level++
		z.recalc(c)
		c.hp, c.mana, c.mv = c.maxHP, c.maxM, c.mv+(c.maxMv-c.mv)
		z.sendLine(c, "{Y}You rise to level "+itoa(c.level)+"!{x}")
		z.act(c.room, c, c, "$n looks more experienced.")
		if c.pl.sess != nil {
			c.pl.sess.GMCP("Char.Status", gmcpCharStatus{Level: c.level, Area: z.proto.Name, State: c.stateWord()})
		}
	}
	z.dirty(c)
}
