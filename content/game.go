package content

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// gameFile is areas/game.toml: the rules a builder tunes that belong to no
// one zone. Every number the game runs on lives here, not in Go.
type gameFile struct {
	World     gameWorld     `toml:"world"`
	Slots     []slotSpec    `toml:"slots"`
	Character characterSpec `toml:"character"`
	Combat    combatSpec    `toml:"combat"`
	Regen     regenSpec     `toml:"regen"`
	Party     partySpec     `toml:"party"`
	Abilities []abilitySpec `toml:"abilities"`
	Affects   []affectSpec  `toml:"affects"`
}

type gameWorld struct {
	Name       string `toml:"name"`
	StartRoom  string `toml:"start_room"`
	RecallRoom string `toml:"recall_room"`
}

type slotSpec struct {
	Name  string `toml:"name"`
	Label string `toml:"label"`
}

type characterSpec struct {
	MaxLevel   int            `toml:"max_level"`
	Attributes map[string]int `toml:"attributes"`
	MaxHP      string         `toml:"max_hp"`
	MaxMana    string         `toml:"max_mana"`
	MaxMoves   string         `toml:"max_moves"`
	ExpToLevel string         `toml:"exp_to_level"`
	Attacks    string         `toml:"attacks"`
	Hitroll    string         `toml:"hitroll"`
	Damroll    string         `toml:"damroll"`
	Dodge      string         `toml:"dodge"`
}

type combatSpec struct {
	RoundPulses      int    `toml:"round_pulses"`
	UnarmedDamage    *Dice  `toml:"unarmed_damage"`
	HitChance        string `toml:"hit_chance"`
	MinHit           int    `toml:"min_hit"`
	MaxHit           int    `toml:"max_hit"`
	MaxDodge         int    `toml:"max_dodge"`
	Soak             string `toml:"soak"`
	KillExp          string `toml:"kill_exp"`
	FleeChance       int    `toml:"flee_chance"`
	CorpseLootSecs   int    `toml:"corpse_loot_secs"`
	CorpseDecaySecs  int    `toml:"corpse_decay_secs"`
	ProtectionSecs   int    `toml:"protection_secs"`
	DeathExpLossPct  int    `toml:"death_exp_loss_percent"`
	DeathDropsItems  bool   `toml:"death_drops_items"`
	AggroDelayPulses int    `toml:"aggro_delay_pulses"`
}

type regenSpec struct {
	HP           string `toml:"hp"`
	Mana         string `toml:"mana"`
	Moves        string `toml:"moves"`
	RestPercent  int    `toml:"rest_percent"`
	SleepPercent int    `toml:"sleep_percent"`
}

type partySpec struct {
	ShareWeight  string `toml:"share_weight"`
	BonusPercent int    `toml:"bonus_percent"`
}

type abilitySpec struct {
	Name           string   `toml:"name"`
	Help           string   `toml:"help"`
	Target         string   `toml:"target"`
	Level          int      `toml:"level"`
	CostMana       int      `toml:"cost_mana"`
	CostMoves      int      `toml:"cost_moves"`
	CooldownPulses int      `toml:"cooldown_pulses"`
	LagPulses      int      `toml:"lag_pulses"`
	Damage         *Dice    `toml:"damage"`
	DamageBonus    string   `toml:"damage_bonus"`
	Heal           *Dice    `toml:"heal"`
	Apply          string   `toml:"apply"`
	Messages       []string `toml:"messages"`
	MobChance      int      `toml:"mob_chance"`
}

type affectSpec struct {
	Name          string   `toml:"name"`
	Harmful       bool     `toml:"harmful"`
	Pulses        int      `toml:"pulses"`
	TickEvery     int      `toml:"tick_every"`
	TickDamage    *Dice    `toml:"tick_damage"`
	TickHeal      *Dice    `toml:"tick_heal"`
	Stacking      string   `toml:"stacking"`
	MaxStacks     int      `toml:"max_stacks"`
	Hitroll       int      `toml:"hitroll"`
	Damroll       int      `toml:"damroll"`
	Armor         int      `toml:"armor"`
	Dodge         int      `toml:"dodge"`
	Prevents      []string `toml:"prevents"`
	MessageApply  string   `toml:"message_apply"`
	MessageRoom   string   `toml:"message_room"`
	MessageExpire string   `toml:"message_expire"`
	Show          string   `toml:"show"`
}

// Game is the validated game data.
type Game struct {
	Name       string
	StartRoom  string // ref: where new characters begin
	RecallRoom string // ref: where the slain wake when their zone has no start room
	Slots      []Slot // equipment slots, in display order

	MaxLevel   int
	Attributes []Attribute // in declaration order, sorted by name
	MaxHP      *Formula
	MaxMana    *Formula
	MaxMoves   *Formula
	ExpToLevel *Formula // experience to go from level to level+1
	Attacks    *Formula // swings per round for a player
	Hitroll    *Formula
	Damroll    *Formula
	Dodge      *Formula // percent chance for a player to dodge a swing

	Combat Combat
	Regen  Regen
	Party  Party

	Abilities []*Ability
	Affects   map[string]*Affect
}

// Attribute is a character attribute and its starting value.
type Attribute struct {
	Name  string
	Start int
}

// Combat holds the numbers fights run on.
type Combat struct {
	RoundPulses      int
	UnarmedDamage    Dice
	HitChance        *Formula
	MinHit, MaxHit   int
	MaxDodge         int
	Soak             *Formula
	KillExp          *Formula
	FleeChance       int
	CorpseLootSecs   int
	CorpseDecaySecs  int
	ProtectionSecs   int
	DeathExpLossPct  int
	DeathDropsItems  bool
	AggroDelayPulses int
}

// Regen holds how fast characters recover, per ten seconds.
type Regen struct {
	HP, Mana, Moves           *Formula
	RestPercent, SleepPercent int
}

// Party holds how a party shares a kill's experience: the whole is the
// kill's experience raised by BonusPercent for each member in the room
// past the first, and each member in the room takes a part of it weighed
// by ShareWeight.
type Party struct {
	ShareWeight  *Formula // over the character variables; at least 1
	BonusPercent int
}

// Ability is something a character can do by name: a strike, a heal, a
// poison, a buff, a root.
type Ability struct {
	Name           string
	Help           string
	Target         string // enemy, self, ally or any
	Level          int
	CostMana       int
	CostMoves      int
	CooldownPulses int
	LagPulses      int
	Damage         Dice
	HasDamage      bool
	DamageBonus    *Formula
	Heal           Dice
	HasHeal        bool
	Apply          *Affect
	// Messages are to the user, the target and the room; $n is the user
	// and $N the target.
	Messages  [3]string
	MobChance int // percent chance per round that a mob with it uses it
}

// Stacking rules for an affect applied to someone who already has it.
const (
	StackStack   = "stack"   // add a stack, up to max_stacks, and refresh the duration
	StackRefresh = "refresh" // reset the duration
	StackExtend  = "extend"  // add the duration to what is left
	StackIgnore  = "ignore"  // leave the one already there
)

// Affect is a timed condition on a character.
type Affect struct {
	Name          string
	Harmful       bool
	Pulses        int
	TickEvery     int
	TickDamage    Dice
	TickHeal      Dice
	Stacking      string
	MaxStacks     int
	Hitroll       int
	Damroll       int
	Armor         int
	Dodge         int
	Prevents      []string
	MessageApply  string
	MessageRoom   string
	MessageExpire string
	Show          string
}

// PreventsAction reports whether the affect stops an action ("move",
// "fight", "cast").
func (a *Affect) PreventsAction(action string) bool {
	for _, p := range a.Prevents {
		if p == action {
			return true
		}
	}
	return false
}

// Slot finds a slot by name.
func (g *Game) Slot(name string) (Slot, bool) {
	for _, s := range g.Slots {
		if s.Name == name {
			return s, true
		}
	}
	return Slot{}, false
}

// Ability finds an ability by name.
func (g *Game) Ability(name string) *Ability {
	for _, a := range g.Abilities {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Slot is an equipment slot.
type Slot struct {
	Name  string // "head"
	Label string // "<worn on head>"
}

// Stat names gear and affects may modify besides attributes.
var statNames = []string{"hp", "mana", "moves", "hitroll", "damroll", "armor", "dodge"}

// characterVars are the variables character formulas may read.
func (g *Game) characterVars() []string {
	v := []string{"level"}
	for _, a := range g.Attributes {
		v = append(v, a.Name)
	}
	return v
}

// combatVars are the variables combat formulas may read.
func (g *Game) combatVars() []string {
	return append(g.characterVars(), "victim_level", "hitroll", "damroll", "armor", "victim_armor", "victim_dodge")
}

// validateGame reads game.toml into the Game, step by step in the order
// its problems are reported: the slots, the character, combat,
// regeneration, parties, the affects and then the abilities that apply
// them; the rooms it names and the abilities mobs name wait until every
// zone is read.
func (l *loader) validateGame() {
	gf := l.game
	g := &Game{Name: gf.World.Name, Affects: map[string]*Affect{}}
	if g.Name == "" {
		g.Name = "zonemud"
	}
	l.gameSlots(g, gf.Slots)
	l.set.Game = g
	l.gameCharacter(g, gf.Character)
	l.gameCombat(g, gf.Combat)
	l.gameRegen(g, gf.Regen)
	l.gameParty(g, gf.Party)
	l.gameAffects(g, gf.Affects)
	l.gameAbilities(g, gf.Abilities)
	l.pending = append(l.pending, func() { l.gameRefs(g, gf.World) })
}

// charRange checks a character formula over the levels and attributes
// a character may have.
func (l *loader) charRange(g *Game) func(*Formula) error {
	return func(f *Formula) error { return l.sweep(f, g, false) }
}

// gameSlots reads the equipment slots.
func (l *loader) gameSlots(g *Game, slots []slotSpec) {
	for i, s := range slots {
		key := fmt.Sprintf("slots[%d]", i)
		if !ValidName(s.Name) {
			l.problem(GameFile, key+".name", "%q is not a valid slot name", s.Name)
			continue
		}
		if _, dup := g.Slot(s.Name); dup {
			l.problem(GameFile, key+".name", "slot %q is declared twice", s.Name)
			continue
		}
		label := s.Label
		if label == "" {
			label = "<" + s.Name + ">"
		}
		g.Slots = append(g.Slots, Slot{Name: s.Name, Label: label})
	}
}

// gameCharacter reads the character: its level cap, its attributes and
// the formulas of its stats.
func (l *loader) gameCharacter(g *Game, ch characterSpec) {
	g.MaxLevel = orInt(ch.MaxLevel, 50)
	if g.MaxLevel < 1 || g.MaxLevel > maxLevel {
		l.problem(GameFile, "character.max_level", "%d is out of range 1 to %d", ch.MaxLevel, maxLevel)
		g.MaxLevel = 50
	}
	names := make([]string, 0, len(ch.Attributes))
	for n := range ch.Attributes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := ch.Attributes[n]
		if !ValidName(n) || contains(statNames, n) || n == "level" {
			l.problem(GameFile, "character.attributes."+n, "%q cannot be an attribute name", n)
			continue
		}
		if v < 0 || v > 1000 {
			l.problem(GameFile, "character.attributes."+n, "%d is out of range 0 to 1000", v)
		}
		g.Attributes = append(g.Attributes, Attribute{Name: n, Start: v})
	}
	cv, charRange := g.characterVars(), l.charRange(g)
	g.MaxHP = l.formula("character.max_hp", orStr(ch.MaxHP, "20 + level * 10"), cv, charRange, 1)
	g.MaxMana = l.formula("character.max_mana", orStr(ch.MaxMana, "10 + level * 5"), cv, charRange, 0)
	g.MaxMoves = l.formula("character.max_moves", orStr(ch.MaxMoves, "100 + level * 5"), cv, charRange, 1)
	g.ExpToLevel = l.formula("character.exp_to_level", orStr(ch.ExpToLevel, "level * level * 100"), cv, charRange, 1)
	g.Attacks = l.formula("character.attacks", orStr(ch.Attacks, "1"), cv, charRange, 1)
	g.Hitroll = l.formula("character.hitroll", orStr(ch.Hitroll, "0"), cv, charRange, -1000)
	g.Damroll = l.formula("character.damroll", orStr(ch.Damroll, "0"), cv, charRange, -1000)
	g.Dodge = l.formula("character.dodge", orStr(ch.Dodge, "0"), cv, charRange, 0)
}

// gameCombat reads combat: its numbers, each range-checked, and its
// formulas.
func (l *loader) gameCombat(g *Game, cb combatSpec) {
	g.Combat = Combat{
		RoundPulses: orInt(cb.RoundPulses, 10), MinHit: orInt(cb.MinHit, 5), MaxHit: orInt(cb.MaxHit, 95),
		MaxDodge: orInt(cb.MaxDodge, 50), FleeChance: orInt(cb.FleeChance, 66),
		CorpseLootSecs: orInt(cb.CorpseLootSecs, 60), CorpseDecaySecs: orInt(cb.CorpseDecaySecs, 300),
		ProtectionSecs: orInt(cb.ProtectionSecs, 5), DeathExpLossPct: cb.DeathExpLossPct,
		DeathDropsItems: cb.DeathDropsItems, AggroDelayPulses: orInt(cb.AggroDelayPulses, 2),
		UnarmedDamage: Dice{N: 1, S: 3},
	}
	if cb.UnarmedDamage != nil {
		g.Combat.UnarmedDamage = *cb.UnarmedDamage
	}
	for _, r := range []struct {
		key       string
		v, lo, hi int
	}{
		{"combat.round_pulses", g.Combat.RoundPulses, 1, 1000},
		{"combat.min_hit", g.Combat.MinHit, 0, 100},
		{"combat.max_hit", g.Combat.MaxHit, g.Combat.MinHit, 100},
		{"combat.max_dodge", g.Combat.MaxDodge, 0, 95},
		{"combat.flee_chance", g.Combat.FleeChance, 1, 100},
		{"combat.corpse_loot_secs", g.Combat.CorpseLootSecs, 0, 86400},
		{"combat.corpse_decay_secs", g.Combat.CorpseDecaySecs, 1, 86400},
		{"combat.protection_secs", g.Combat.ProtectionSecs, 0, 3600},
		{"combat.death_exp_loss_percent", g.Combat.DeathExpLossPct, 0, 100},
		{"combat.aggro_delay_pulses", g.Combat.AggroDelayPulses, 0, 100},
	} {
		if r.v < r.lo || r.v > r.hi {
			l.problem(GameFile, r.key, "%d is out of range %d to %d", r.v, r.lo, r.hi)
		}
	}
	combatRange := func(f *Formula) error { return l.sweep(f, g, true) }
	kv := g.combatVars()
	g.Combat.HitChance = l.formula("combat.hit_chance", orStr(cb.HitChance, "75 + (level - victim_level) * 4 + hitroll * 3 - victim_armor"), kv, combatRange, -1<<30)
	g.Combat.Soak = l.formula("combat.soak", orStr(cb.Soak, "victim_armor / 3"), kv, combatRange, 0)
	g.Combat.KillExp = l.formula("combat.kill_exp", orStr(cb.KillExp, "victim_level * victim_level * 12 + 20"), kv, combatRange, 0)
}

// gameRegen reads regeneration.
func (l *loader) gameRegen(g *Game, rg regenSpec) {
	cv, charRange := g.characterVars(), l.charRange(g)
	g.Regen = Regen{RestPercent: orInt(rg.RestPercent, 200), SleepPercent: orInt(rg.SleepPercent, 300)}
	g.Regen.HP = l.formula("regen.hp", orStr(rg.HP, "2 + level"), cv, charRange, 0)
	g.Regen.Mana = l.formula("regen.mana", orStr(rg.Mana, "2 + level"), cv, charRange, 0)
	g.Regen.Moves = l.formula("regen.moves", orStr(rg.Moves, "10"), cv, charRange, 0)
	if g.Regen.RestPercent < 100 || g.Regen.RestPercent > 10000 {
		l.problem(GameFile, "regen.rest_percent", "%d is out of range 100 to 10000", g.Regen.RestPercent)
	}
	if g.Regen.SleepPercent < 100 || g.Regen.SleepPercent > 10000 {
		l.problem(GameFile, "regen.sleep_percent", "%d is out of range 100 to 10000", g.Regen.SleepPercent)
	}
}

// gameParty reads parties: the bonus and how a kill's experience is
// shared.
func (l *loader) gameParty(g *Game, pt partySpec) {
	cv, charRange := g.characterVars(), l.charRange(g)
	g.Party = Party{BonusPercent: pt.BonusPercent}
	if pt.BonusPercent < 0 || pt.BonusPercent > 100 {
		l.problem(GameFile, "party.bonus_percent", "%d is out of range 0 to 100", pt.BonusPercent)
	}
	g.Party.ShareWeight = l.formula("party.share_weight", orStr(pt.ShareWeight, "level + 5"), cv, charRange, 1)
}

// gameAffects reads the affects, before the abilities that apply them.
func (l *loader) gameAffects(g *Game, specs []affectSpec) {
	for i, as := range specs {
		key := fmt.Sprintf("affects[%d]", i)
		a := &Affect{
			Name: as.Name, Harmful: as.Harmful, Pulses: as.Pulses, TickEvery: orInt(as.TickEvery, 4),
			Stacking: orStr(as.Stacking, StackRefresh), MaxStacks: orInt(as.MaxStacks, 1),
			Hitroll: as.Hitroll, Damroll: as.Damroll, Armor: as.Armor, Dodge: as.Dodge, Prevents: as.Prevents,
			MessageApply: as.MessageApply, MessageRoom: as.MessageRoom, MessageExpire: as.MessageExpire, Show: as.Show,
		}
		if !ValidName(a.Name) {
			l.problem(GameFile, key+".name", "%q is not a valid affect name", as.Name)
			continue
		}
		if g.Affects[a.Name] != nil {
			l.problem(GameFile, key+".name", "affect %q is declared twice", a.Name)
			continue
		}
		if as.Pulses < 1 || as.Pulses > 100000 {
			l.problem(GameFile, key+".pulses", "%d is out of range 1 to 100000: every affect must expire (permanent effects come from gear)", as.Pulses)
		}
		if a.TickEvery < 1 || a.TickEvery > 1000 {
			l.problem(GameFile, key+".tick_every", "%d is out of range 1 to 1000", as.TickEvery)
		}
		switch a.Stacking {
		case StackStack, StackRefresh, StackExtend, StackIgnore:
		default:
			l.problem(GameFile, key+".stacking", "want stack, refresh, extend or ignore, got %q", as.Stacking)
		}
		if a.MaxStacks < 1 || a.MaxStacks > 100 {
			l.problem(GameFile, key+".max_stacks", "%d is out of range 1 to 100", as.MaxStacks)
		}
		for _, p := range a.Prevents {
			if p != "move" && p != "fight" && p != "cast" {
				l.problem(GameFile, key+".prevents", "%q is not move, fight or cast", p)
			}
		}
		if as.TickDamage != nil {
			a.TickDamage = *as.TickDamage
		}
		if as.TickHeal != nil {
			a.TickHeal = *as.TickHeal
		}
		for _, m := range []struct{ k, v string }{{"message_apply", a.MessageApply}, {"message_room", a.MessageRoom}, {"message_expire", a.MessageExpire}, {"show", a.Show}} {
			l.text(GameFile, key+"."+m.k, m.v, maxShortBytes*2, false)
		}
		if a.Show == "" {
			a.Show = a.Name
		}
		g.Affects[a.Name] = a
	}
}

// gameAbilities reads the abilities.
func (l *loader) gameAbilities(g *Game, specs []abilitySpec) {
	cv, charRange := g.characterVars(), l.charRange(g)
	for i, as := range specs {
		key := fmt.Sprintf("abilities[%d]", i)
		a := &Ability{
			Name: as.Name, Help: as.Help, Target: orStr(as.Target, "enemy"), Level: orInt(as.Level, 1),
			CostMana: as.CostMana, CostMoves: as.CostMoves, CooldownPulses: as.CooldownPulses,
			LagPulses: as.LagPulses, MobChance: as.MobChance,
		}
		if !ValidName(a.Name) {
			l.problem(GameFile, key+".name", "%q is not a valid ability name", as.Name)
			continue
		}
		if g.Ability(a.Name) != nil {
			l.problem(GameFile, key+".name", "ability %q is declared twice", a.Name)
			continue
		}
		switch a.Target {
		case "enemy", "self", "ally", "any":
		default:
			l.problem(GameFile, key+".target", "want enemy, self, ally or any, got %q", as.Target)
		}
		for _, r := range []struct {
			k         string
			v, lo, hi int
		}{{"level", a.Level, 1, maxLevel}, {"cost_mana", a.CostMana, 0, 100000}, {"cost_moves", a.CostMoves, 0, 100000},
			{"cooldown_pulses", a.CooldownPulses, 0, 100000}, {"lag_pulses", a.LagPulses, 0, 1000}, {"mob_chance", a.MobChance, 0, 100}} {
			if r.v < r.lo || r.v > r.hi {
				l.problem(GameFile, key+"."+r.k, "%d is out of range %d to %d", r.v, r.lo, r.hi)
			}
		}
		if as.Damage != nil {
			a.Damage, a.HasDamage = *as.Damage, true
		}
		if as.Heal != nil {
			a.Heal, a.HasHeal = *as.Heal, true
		}
		if as.DamageBonus != "" {
			a.DamageBonus = l.formula(key+".damage_bonus", as.DamageBonus, cv, charRange, -1<<30)
		}
		if as.Apply != "" {
			if a.Apply = g.Affects[as.Apply]; a.Apply == nil {
				l.problem(GameFile, key+".apply", "no affect %q%s", as.Apply, suggest(as.Apply, keysOf(g.Affects)))
			}
		}
		if !a.HasDamage && !a.HasHeal && a.Apply == nil {
			l.problem(GameFile, key, "an ability needs damage, heal or apply")
		}
		if len(as.Messages) != 0 && len(as.Messages) != 3 {
			l.problem(GameFile, key+".messages", "want three messages (to the user, the target, the room), got %d", len(as.Messages))
		}
		copy(a.Messages[:], as.Messages)
		for j, m := range a.Messages {
			l.text(GameFile, fmt.Sprintf("%s.messages[%d]", key, j), m, maxShortBytes*2, false)
		}
		if a.Messages[0] == "" {
			a.Messages = [3]string{"You use " + a.Name + " on $N.", "$n uses " + a.Name + " on you.", "$n uses " + a.Name + " on $N."}
		}
		g.Abilities = append(g.Abilities, a)
	}
}

// gameRefs resolves what the game names across the zones, once every zone
// is read: the start and recall rooms, and the abilities mobs use.
func (l *loader) gameRefs(g *Game, w gameWorld) {
	if ref, ok := l.roomRef(GameFile, "world.start_room", "", w.StartRoom); ok {
		g.StartRoom = ref
		if l.set.Zones[RefZone(ref)] != nil && l.set.Zones[RefZone(ref)].Instanceable {
			l.problem(GameFile, "world.start_room", "%s is in an instanceable zone", ref)
		}
	}
	g.RecallRoom = g.StartRoom
	if w.RecallRoom != "" {
		if ref, ok := l.roomRef(GameFile, "world.recall_room", "", w.RecallRoom); ok {
			g.RecallRoom = ref
		}
	}
	for _, m := range l.set.Mobs {
		for _, ab := range m.Abilities {
			if g.Ability(ab) == nil {
				f := l.set.Zones[m.Zone].File
				l.problem(f, "mobs."+m.Local+".abilities", "no ability %q in %s%s", ab, GameFile, suggest(ab, abilityNames(g)))
			}
		}
	}
}

func abilityNames(g *Game) []string {
	var out []string
	for _, a := range g.Abilities {
		out = append(out, a.Name)
	}
	return out
}

// formula parses one formula of game.toml and checks it over the range its
// variables take, so a division by zero is a load error, not a fault in
// play. atLeast is the smallest sensible result; anything below is refused.
func (l *loader) formula(key, src string, vars []string, check func(*Formula) error, atLeast int) *Formula {
	f, err := ParseFormula(src, vars)
	if err != nil {
		l.problem(GameFile, key, "%v", err)
		f, _ = ParseFormula("0", nil)
		return f
	}
	if err := check(f); err != nil {
		l.problem(GameFile, key, "formula %q: %v", src, err)
		return f
	}
	if atLeast > -1<<30 {
		g := l.set.Game
		for lvl := 1; lvl <= g.MaxLevel; lvl++ {
			v, err := f.Eval(g.sampleVars(lvl, nil))
			if err == nil && v < atLeast {
				l.problem(GameFile, key, "formula %q gives %d at level %d; it must be at least %d", src, v, lvl, atLeast)
				break
			}
		}
	}
	return f
}

// sweep evaluates f over every level (and, for combat, a spread of the
// other side's numbers) and reports the first division by zero.
func (l *loader) sweep(f *Formula, g *Game, combat bool) error {
	others := []int{0}
	if combat {
		others = []int{-20, -5, -1, 0, 1, 2, 3, 5, 10, 50, 100}
	}
	for lvl := 1; lvl <= g.MaxLevel; lvl++ {
		for _, o := range others {
			vars := map[string]int{"victim_level": max(1, lvl+o), "hitroll": o, "damroll": o, "armor": o, "victim_armor": o, "victim_dodge": max(0, o)}
			if _, err := f.Eval(g.sampleVars(lvl, vars)); err != nil {
				if errors.Is(err, ErrDivZero) {
					return fmt.Errorf("divides by zero (at level %d with the other numbers at %d)", lvl, o)
				}
				return err
			}
		}
	}
	return nil
}

// sampleVars resolves variables for a character of a level with starting
// attributes, with extra values taking precedence.
func (g *Game) sampleVars(level int, extra map[string]int) Vars {
	return VarFunc(func(name string) int {
		if v, ok := extra[name]; ok {
			return v
		}
		if name == "level" {
			return level
		}
		for _, a := range g.Attributes {
			if a.Name == name {
				return a.Start
			}
		}
		return 0
	})
}

// KnownStat reports whether an item's apply may name s.
func (g *Game) KnownStat(s string) bool {
	if contains(statNames, s) {
		return true
	}
	for _, a := range g.Attributes {
		if a.Name == s {
			return true
		}
	}
	return false
}

// StatNames lists what an item's apply may name.
func (g *Game) StatNames() []string {
	out := append([]string(nil), statNames...)
	for _, a := range g.Attributes {
		out = append(out, a.Name)
	}
	return out
}

func orInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func orStr(v, d string) string {
	if strings.TrimSpace(v) == "" {
		return d
	}
	return v
}
