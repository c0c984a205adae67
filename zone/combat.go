package zone

import (
	"zonemud/content"
	"zonemud/internal/act"
)

// Combat runs in rounds: one driver per zone, every round_pulses, started
// by the first fight and cancelled when nobody fights. Each round every
// fighter, in the order it joined, swings as many times as its attacks
// allow: to-hit, then the victim's dodge, then damage dice, less soak.
// Everything random comes from the zone's seeded RNG, so a fight replays
// exactly from the same seed.

// canHarm says whether a may attack v, and why not if it may not: safe
// rooms, protection after death, and players who have not both agreed to
// player fights (unless the room allows them).
func (z *Zone) canHarm(a, v *Char) (bool, string) {
	switch {
	case v == nil || a == v:
		return false, "You cannot attack yourself."
	case a.room == nil || v.room != a.room:
		return false, "They are not here."
	case a.room.proto.Flags.Has(content.RoomSafe):
		return false, "This is a place of peace; you cannot fight here."
	case v.mob != nil && v.mob.Flags.Has(content.MobPeaceful):
		return false, capFirst(v.short()) + " is not someone you can fight."
	case z.pulses.now < v.protected:
		return false, capFirst(v.short()) + " is still under the protection of the gods."
	case a.pl != nil && v.pl != nil && !a.room.proto.Flags.Has(content.RoomPvP) && !(a.pl.settings.PvP && v.pl.settings.PvP):
		return false, "You may only fight players who have agreed to it (pvp), or where the place allows it."
	case a.prevented("fight") != nil:
		return false, "You cannot fight while " + a.prevented("fight").a.Show + "."
	}
	return true, ""
}

// startFight makes a fight at v, and v at a if v is not already busy.
func (z *Zone) startFight(a, v *Char) {
	if a.fighting == nil {
		a.fighting = v
		z.joinCombat(a)
	}
	if v.fighting == nil {
		v.fighting = a
		z.joinCombat(v)
	}
	if a.pos != posStanding {
		a.pos = posStanding
	}
	if v.pos == posSleeping {
		v.pos = posStanding
		z.sendLine(v, "You wake with a start!")
	}
	a.hunting, v.hunting = nil, nil
	if a.pl != nil {
		a.protected = 0 // attacking ends one's own protection
	}
}

func (z *Zone) joinCombat(c *Char) {
	for _, f := range z.fighters {
		if f == c {
			return
		}
	}
	z.fighters = append(z.fighters, c)
	if !z.combat.active() {
		z.combat = z.pulses.every(uint64(z.set.Game.Combat.RoundPulses), z.combatRound)
	}
	z.wake(c)
}

// stopFighting ends c's fight. Everyone fighting c turns on another of
// their attackers in the room, if they have one, or stops.
func (z *Zone) stopFighting(c *Char) {
	c.fighting = nil
	for _, f := range z.fighters {
		if f.fighting == c {
			f.fighting = z.nextFoe(f, c)
		}
	}
}

// nextFoe is the first character in f's room, other than gone, that is
// fighting f and still held by the zone, or nil. The order is the order
// fighters joined, so the choice replays from the seed.
func (z *Zone) nextFoe(f, gone *Char) *Char {
	if f.room == nil || !z.holds(f) {
		return nil
	}
	for _, o := range z.fighters {
		if o != gone && o != f && o.fighting == f && o.room == f.room && z.holds(o) {
			return o
		}
	}
	return nil
}

// fightBack makes v, hit or swung at by a, fight a if v fights nobody:
// whoever is attacked defends themself, however the attack began.
func (z *Zone) fightBack(v, a *Char) {
	if v.fighting != nil || v == a || v.room == nil || v.room != a.room || !z.holds(v) {
		return
	}
	v.fighting = a
	v.hunting = nil
	z.joinCombat(v)
}

// combatRound is one round of every fight in the zone.
func (z *Zone) combatRound() {
	round := append(z.roundBuf[:0], z.fighters...)
	defer func() {
		clear(round)
		z.roundBuf = round[:0]
	}()
	for _, c := range round {
		v := c.fighting
		if v == nil || !z.holds(c) {
			continue
		}
		if !z.holds(v) || v.room != c.room || c.room == nil {
			c.fighting = z.nextFoe(c, v)
			continue
		}
		if c.pos == posSleeping {
			continue
		}
		if c.mob != nil && z.mobAbility(c, v) {
			if !z.holds(v) || c.fighting == nil {
				continue
			}
		}
		for i := 0; i < c.st.attacks && c.fighting == v; i++ {
			if z.swing(c, v) {
				break // v died
			}
		}
	}
	// Keep only those still fighting; stop the driver when nobody is.
	keep := z.fighters[:0]
	for _, c := range z.fighters {
		if c.fighting != nil && z.holds(c) {
			keep = append(keep, c)
		}
	}
	clear(z.fighters[len(keep):])
	z.fighters = keep
	if len(z.fighters) == 0 {
		z.combat.cancel()
	}
	for _, c := range round {
		if c.pl != nil && c.pl.sess != nil && z.holds(c) {
			z.prompt(c)
		}
	}
}

// hitChance is a's percent chance to land a swing on v, before v dodges.
func (z *Zone) hitChance(a, v *Char) int {
	g := z.set.Game
	vars := z.combatVars(a, v)
	chance := z.evalOr(g.Combat.HitChance, vars, 75)
	return min(max(chance, g.Combat.MinHit), g.Combat.MaxHit)
}

// combatVars resolves combat formula variables for a attacking v. Like
// vars, the value is the zone's own and reused.
func (z *Zone) combatVars(a, v *Char) content.Vars {
	z.cv = charVars{g: z.set.Game, c: a, victim: v}
	return &z.cv
}

// weapon is what a swings with: its wielded weapon, or nil.
func (z *Zone) weapon(a *Char) *Item {
	if i := z.slotIndex("wield"); i >= 0 && i < len(a.eq) {
		return a.eq[i]
	}
	return nil
}

// swing is one swing of a at v. It reports whether v died.
func (z *Zone) swing(a, v *Char) bool {
	g := z.set.Game
	verb := "hit"
	dice := g.Combat.UnarmedDamage
	switch w := z.weapon(a); {
	case w != nil:
		verb, dice = w.proto.AttackVerb, w.proto.Damage
	case a.mob != nil:
		verb, dice = a.mob.AttackVerb, a.mob.Damage
	default:
		verb = "punch"
	}
	z.fightBack(v, a)
	if z.rng.IntN(100) >= z.hitChance(a, v) {
		z.combatMsg(a, v, verb, -1)
		return false
	}
	if dodge := min(max(v.st.dodge, 0), g.Combat.MaxDodge); dodge > 0 && z.rng.IntN(100) < dodge {
		z.combatMsg(a, v, verb, -2)
		return false
	}
	dmg := dice.Roll(z.rng.IntN) + a.st.damroll
	dmg -= max(0, z.evalOr(g.Combat.Soak, z.combatVars(a, v), v.st.armor/3))
	dmg = max(dmg, 0)
	z.combatMsg(a, v, verb, dmg)
	return z.hurt(v, dmg, a, a.name)
}

// hurt takes hit points from v. by (may be nil) gets the kill. It reports
// whether v died.
func (z *Zone) hurt(v *Char, dmg int, by *Char, byName string) bool {
	if dmg <= 0 || !z.holds(v) {
		return false
	}
	v.hp -= dmg
	v.lastHit = byName
	if v.pl != nil {
		z.dirty(v)
	}
	z.wake(v)
	if v.hp > 0 {
		if v.pos == posSleeping {
			v.pos = posResting
			z.sendLine(v, "The pain wakes you!")
		}
		return false
	}
	if by == nil && byName != "" {
		// Damage over time kills in the name of whoever applied it: if
		// they are still in the zone, the kill, its experience and the
		// first claim on the corpse are theirs.
		if p := z.players[byName]; p != nil && p != v && p.room != nil {
			by = p
		}
	}
	z.die(v, by)
	return true
}

// damageWord says how hard a hit was, for messages: a verb phrase with
// the victim's slot ($N) where the words put it ("strikes $N hard").
func damageWord(dmg int) string {
	switch {
	case dmg <= 0:
		return "glances off $N"
	case dmg <= 2:
		return "scratches $N"
	case dmg <= 5:
		return "hits $N"
	case dmg <= 9:
		return "strikes $N hard"
	case dmg <= 15:
		return "mauls $N"
	case dmg <= 24:
		return "devastates $N"
	}
	return "obliterates $N"
}

// combatMsg tells attacker, victim and room about a swing. dmg -1 is a
// miss, -2 a dodge.
func (z *Zone) combatMsg(a, v *Char, verb string, dmg int) {
	if a.room == nil || a.room.nplayers == 0 {
		return // nobody to read it: mobs fighting mobs
	}
	av, vv := capFirst(a.short()), v.short()
	switch dmg {
	case -1:
		z.sendLine(a, "Your "+verb+" misses "+vv+".")
		z.sendLine(v, av+"'s "+verb+" misses you.")
		z.actPair(a, v, av+"'s "+verb+" misses "+vv+".")
	case -2:
		z.sendLine(a, capFirst(vv)+" dodges your "+verb+".")
		z.sendLine(v, "You dodge "+a.short()+"'s "+verb+".")
		z.actPair(a, v, capFirst(vv)+" dodges "+a.short()+"'s "+verb+".")
	default:
		hit := act.Escape(verb) + " " + damageWord(dmg) + "."
		z.sendLine(a, act.Format("Your "+hit, "", vv)+" {G}("+itoa(dmg)+"){x}")
		z.sendLine(v, act.Format("$n's "+hit, a.short(), "you")+" {R}("+itoa(dmg)+"){x}")
		z.actPair(a, v, act.Format("$n's "+hit, a.short(), vv))
	}
}

// actPair tells the room, except a and v.
func (z *Zone) actPair(a, v *Char, text string) {
	if a.room == nil || a.room.nplayers == 0 {
		return
	}
	for _, o := range a.room.people {
		if o != a && o != v {
			z.sendLine(o, text)
		}
	}
}

// aggro has aggressive mobs in room go for c, after the configured delay.
func (z *Zone) aggro(room *Room, c *Char) {
	if c.pl == nil || room.proto.Flags.Has(content.RoomSafe) {
		return
	}
	for _, m := range room.mobs {
		if m.mob == nil || !m.mob.Flags.Has(content.MobAggressive) || m.fighting != nil || m.pos == posSleeping {
			continue
		}
		m := m
		z.pulses.after(uint64(max(1, z.set.Game.Combat.AggroDelayPulses)), func() {
			if !z.holds(m) || !z.holds(c) || m.room != c.room || m.fighting != nil {
				return
			}
			if ok, _ := z.canHarm(m, c); !ok {
				return
			}
			z.sendLine(c, "{R}"+capFirst(m.short())+" attacks you!{x}")
			z.act(m.room, c, m, "$n attacks "+c.short()+"!")
			z.startFight(m, c)
			z.prompt(c)
		})
	}
}

// mobAbility lets a mob use one of its abilities this round. It reports
// whether it did.
func (z *Zone) mobAbility(m, v *Char) bool {
	for _, name := range m.mob.Abilities {
		ab := z.set.Game.Ability(name)
		if ab == nil || ab.MobChance == 0 || z.pulses.now < m.cooldown[name] {
			continue
		}
		if z.rng.IntN(100) >= ab.MobChance {
			continue
		}
		target := v
		if ab.Target == "self" || ab.Target == "ally" {
			target = m
		}
		z.useAbility(m, ab, target)
		return true
	}
	return false
}
