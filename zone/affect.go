package zone

import (
	"strconv"
	"time"

	"zonemud/content"
)

// affect is one affect on a character.
type affect struct {
	a      *content.Affect
	left   int // pulses left
	stacks int
	tick   int // pulses since the last tick
	from   string
}

func itoa(n int) string { return strconv.Itoa(n) }

// applyAffect puts an affect on c under its stacking rule:
//
//	stack   another stack (up to max_stacks) and the time starts again
//	refresh the time starts again
//	extend  the time is added to what is left
//	ignore  the one already there stays as it is
//
// It reports whether anything changed.
func (z *Zone) applyAffect(c *Char, a *content.Affect, from *Char) bool {
	var have *affect
	for _, x := range c.affects {
		if x.a == a {
			have = x
			break
		}
	}
	switch {
	case have == nil:
		c.affects = append(c.affects, &affect{a: a, left: a.Pulses, stacks: 1, from: nameOf(from)})
	case a.Stacking == content.StackStack:
		have.stacks = min(have.stacks+1, a.MaxStacks)
		have.left = a.Pulses
	case a.Stacking == content.StackRefresh:
		have.left = a.Pulses
	case a.Stacking == content.StackExtend:
		// Extending is capped at what max_stacks doses would give, so an
		// affect applied in a loop still ends.
		have.left = min(have.left+a.Pulses, a.Pulses*max(1, a.MaxStacks))
	default: // ignore
		return false
	}
	z.recalc(c)
	if a.MessageApply != "" {
		z.sendLine(c, a.MessageApply)
	}
	if a.MessageRoom != "" {
		z.act(c.room, c, c, a.MessageRoom)
	}
	z.wake(c)
	z.dirty(c)
	return true
}

func nameOf(c *Char) string {
	if c == nil {
		return ""
	}
	return c.name
}

// removeAffect takes an affect off, with its expiry message.
func (z *Zone) removeAffect(c *Char, x *affect, quiet bool) {
	for i, y := range c.affects {
		if y == x {
			c.affects = append(c.affects[:i], c.affects[i+1:]...)
			break
		}
	}
	z.recalc(c)
	if !quiet && x.a.MessageExpire != "" {
		z.sendLine(c, x.a.MessageExpire)
	}
	z.dirty(c)
}

// prevented reports the affect that stops c doing action, if any.
func (c *Char) prevented(action string) *affect {
	for _, a := range c.affects {
		if a.a.PreventsAction(action) {
			return a
		}
	}
	return nil
}

// wake makes sure c's pulse runs while it has something to do each pulse:
// affects to tick, vitals to regenerate, lag to wait out.
func (z *Zone) wake(c *Char) {
	if c.ticker.active() {
		return
	}
	c.ticker = z.pulses.every(1, func() { z.charPulse(c) })
}

// regenPulses is how many pulses the regen formulas' "per ten seconds"
// spans.
const regenPulses = int(10 * time.Second / PulseInterval)

// charPulse is one pulse of a character: affects tick and expire,
// vitals regenerate (not while fighting), lag runs out. It stops itself
// when there is nothing left to do.
func (z *Zone) charPulse(c *Char) {
	if !z.holds(c) || c.room == nil {
		c.ticker.cancel()
		return
	}
	for i := 0; i < len(c.affects); i++ {
		x := c.affects[i]
		x.left--
		x.tick++
		if x.tick >= x.a.TickEvery {
			x.tick = 0
			if x.a.TickDamage.N > 0 || x.a.TickDamage.B > 0 {
				dmg := max(0, x.a.TickDamage.Roll(z.rng.IntN)) * x.stacks
				z.sendLine(c, "Being "+x.a.Show+" hurts you. {R}("+itoa(dmg)+"){x}")
				if z.hurt(c, dmg, nil, x.from) {
					return // it died of it
				}
			}
			if x.a.TickHeal.N > 0 || x.a.TickHeal.B > 0 {
				z.healBy(c, max(0, x.a.TickHeal.Roll(z.rng.IntN))*x.stacks)
			}
		}
		if x.left <= 0 {
			z.removeAffect(c, x, false)
			i--
		}
	}
	z.regen(c)
	if c.pl != nil && c.pl.backlog() && z.pulses.now >= c.lagUntil && c.pl.await == 0 {
		if len(c.pl.chain) > 0 {
			z.runChain(c)
		} else {
			line := c.pl.pending[0]
			c.pl.pending = c.pl.pending[1:]
			z.runLine(c, line)
		}
		if z.holds(c) && c.pl.sess != nil {
			z.prompt(c)
		}
	}
	if len(c.affects) == 0 && c.hp >= c.maxHP && c.mana >= c.maxM && c.mv >= c.maxMv &&
		z.pulses.now >= c.lagUntil && (c.pl == nil || !c.pl.backlog()) {
		c.ticker.cancel()
	}
}

// regen restores a little of each vital, every pulse, unless c fights.
func (z *Zone) regen(c *Char) {
	if c.fighting != nil || (c.hp >= c.maxHP && c.mana >= c.maxM && c.mv >= c.maxMv) {
		return
	}
	g := z.set.Game
	pct := 100
	switch c.pos {
	case posResting, posSitting:
		pct = g.Regen.RestPercent
	case posSleeping:
		pct = g.Regen.SleepPercent
	}
	per := c.regen
	vals := [3]*int{&c.hp, &c.mana, &c.mv}
	maxes := [3]int{c.maxHP, c.maxM, c.maxMv}
	before := c.hp
	for i := range per {
		if *vals[i] >= maxes[i] {
			c.acc[i] = 0
			continue
		}
		c.acc[i] += max(0, per[i]) * pct / 100
		if gain := c.acc[i] / regenPulses; gain > 0 {
			c.acc[i] -= gain * regenPulses
			*vals[i] = min(maxes[i], *vals[i]+gain)
		}
	}
	if c.pl != nil && c.hp != before {
		z.dirty(c)
	}
}

// healBy restores hit points.
func (z *Zone) healBy(c *Char, n int) {
	if n <= 0 {
		return
	}
	c.hp = min(c.maxHP, c.hp+n)
	z.dirty(c)
	z.wake(c)
}

// cmdAffects lists c's affects.
func (z *Zone) cmdAffects(c *Char, args string) {
	if len(c.affects) == 0 {
		z.sendLine(c, "You are not affected by anything.")
		return
	}
	b := "You are affected by:"
	for _, a := range c.affects {
		secs := (a.left*int(PulseInterval/time.Millisecond) + 999) / 1000
		line := "\n  " + a.a.Show
		if a.stacks > 1 {
			line += " (x" + itoa(a.stacks) + ")"
		}
		line += ", " + itoa(secs) + " more seconds"
		b += line
	}
	z.sendLine(c, b)
}
