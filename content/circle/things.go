package circle

import (
	"fmt"
	"strings"
)

// clamp keeps v in [lo, hi], noting when it had to.
func (c *conv) clamp(v, lo, hi int, where at, z *outZone, what string) int {
	if v < lo || v > hi {
		nv := min(max(v, lo), hi)
		c.note(where, z, KindApproximated, "%s %d is out of zonemud's range %d to %d; written as %d", what, v, lo, hi, nv)
		return nv
	}
	return v
}

// diceString writes dice for the schema, kept inside its bounds.
func (c *conv) diceString(d dice, minRoll, maxRoll int, where at, z *outZone, what string) string {
	n, s, b := d.N, d.S, d.B
	if n < 0 || s < 0 {
		c.note(where, z, KindApproximated, "%s %dd%d%+d has a negative count or size; taken as %d", what, d.N, d.S, d.B, max(b, minRoll))
		n, s = 0, 0
	}
	if n > maxDiceN || s > maxDiceS {
		avg := int64(n)*int64(s+1)/2 + int64(b)
		c.note(where, z, KindApproximated, "%s %dd%d%+d has more dice than zonemud rolls; written as its average", what, d.N, d.S, d.B)
		n, s, b = 0, 0, int(min(avg, 1<<31-1))
	}
	lo, hi := b, int64(n)*int64(s)+int64(b)
	if n > 0 && s > 0 {
		lo = n + b
	}
	if lo < minRoll {
		c.note(where, z, KindApproximated, "%s %dd%d%+d can roll below %d; raised", what, d.N, d.S, d.B, minRoll)
		b += minRoll - lo
		hi += int64(minRoll - lo)
	}
	if hi > int64(maxRoll) || b > maxDiceB {
		c.note(where, z, KindApproximated, "%s %dd%d%+d is beyond zonemud's range (at most %d); cut", what, d.N, d.S, d.B, maxRoll)
		n, s, b = 0, 0, min(maxRoll, maxDiceB)
	}
	if n == 0 || s == 0 {
		return fmt.Sprint(b)
	}
	if b == 0 {
		return fmt.Sprintf("%dd%d", n, s)
	}
	return fmt.Sprintf("%dd%d%+d", n, s, b)
}

func (c *conv) mobKeywords(m *Mob, z *outZone, what string) []string {
	kw := keywords(stripMarkup(c.str(m.Keywords, maxShort, m.at, z, what+" keywords")))
	if len(kw) == 0 {
		kw = []string{"mob"}
		c.note(m.at, z, KindApproximated, "%s has no keywords; it answers to \"mob\"", what)
	}
	return kw
}

func (c *conv) writeMob(b *strings.Builder, z *outZone, m *Mob) {
	if c.mobZone[m.Vnum] != z {
		return
	}
	z.stat.Mobs++
	what := fmt.Sprintf("mob %d", m.Vnum)
	fmt.Fprintf(b, "\n[mobs.%s]\n", localName("mob", m.Vnum))
	kw := c.mobKeywords(m, z, what)
	fmt.Fprintf(b, "keywords = %s\n", list(kw))
	short := oneLine(c.str(m.Short, maxShort, m.at, z, what+" short description"))
	if short == "" {
		short = kw[0]
		c.note(m.at, z, KindApproximated, "%s has no short description; it is %q", what, short)
	}
	fmt.Fprintf(b, "short = %s\n", quote(short))
	long := oneLine(c.str(m.Long, maxLong, m.at, z, what+" long description"))
	if long == "" {
		long = capFirst(short) + " is here."
		c.note(m.at, z, KindApproximated, "%s has no long description; it is %q", what, long)
	}
	fmt.Fprintf(b, "long = %s\n", quote(long))
	if d := c.str(m.Desc, maxText, m.at, z, what+" description"); strings.TrimSpace(d) != "" {
		fmt.Fprintf(b, "description = %s\n", multi(d))
	}
	fmt.Fprintf(b, "level = %d\n", c.clamp(m.Level, 0, maxLevel, m.at, z, what+" level"))
	var fl []string
	if !m.Flags.has(1) {
		fl = append(fl, "wander")
	}
	for _, bit := range m.Flags.bits() {
		switch bit {
		case 1, 3, 6, 19: // SENTINEL (no wander), ISNPC, STAY_ZONE (zonemud mobs keep to their zone), NOTDEADYET
		case 5:
			fl = append(fl, "aggressive")
		case 8, 9, 10:
			fl = append(fl, "aggressive")
			c.note(m.at, z, KindApproximated, "%s: %s attacks by alignment; zonemud has none, so it attacks every player", what, name2(mobFlagNames, bit))
		case 18:
			fl = append(fl, "peaceful")
		case 0:
			c.note(m.at, z, KindDropped, "%s: SPEC, a special procedure written in C; rewrite it as a script", what)
		default:
			c.note(m.at, z, KindDropped, "%s: flag %s has no zonemud equivalent", what, name2(mobFlagNames, bit))
		}
	}
	if len(fl) > 0 {
		fmt.Fprintf(b, "flags = %s\n", list(dedupe(fl)))
	}
	tba := m.Wide
	for _, bit := range m.Affects.bits() {
		i := bit
		if tba {
			i-- // tbaMUD numbers the affects from 1
		}
		if i < 0 {
			continue
		}
		c.note(m.at, z, KindDropped, "%s: affect %s has no zonemud equivalent (zonemud affects are timed)", what, name2(affectNames, i))
	}
	fmt.Fprintf(b, "hp = %s\n", quote(c.diceString(m.HP, 1, maxHP, m.at, z, what+" hit points")))
	fmt.Fprintf(b, "damage = %s\n", quote(c.diceString(m.Damage, 0, 100000, m.at, z, what+" damage")))
	if at, ok := m.ESpecs["BareHandAttack"]; ok {
		if at >= 0 && at < len(attacks) {
			fmt.Fprintf(b, "damage_type = %s\nattack_verb = %s\n", quote(attacks[at].kind), quote(attacks[at].verb))
		} else {
			c.note(m.at, z, KindDropped, "%s: BareHandAttack %d is not an attack type", what, at)
		}
	}
	if armor := (10 - m.AC) / 4; armor != 0 {
		fmt.Fprintf(b, "armor = %d\n", c.clamp(armor, -1000, 1000, m.at, z, what+" armour"))
	}
	if hr := (20 - m.THAC0) / 4; hr != 0 {
		fmt.Fprintf(b, "hitroll = %d\n", c.clamp(hr, -1000, 1000, m.at, z, what+" hitroll"))
	}
	if m.Gold != 0 {
		fmt.Fprintf(b, "gold = %s\n", quote(fmt.Sprint(c.clamp(m.Gold, 0, maxDiceB, m.at, z, what+" gold"))))
	}
	if m.Exp != 0 {
		fmt.Fprintf(b, "exp = %d\n", c.clamp(m.Exp, 0, 1<<31-1, m.at, z, what+" experience"))
	}
	if m.Sex != 0 {
		c.note(m.at, z, KindDropped, "%s: sex %d; zonemud mobs have none", what, m.Sex)
	}
	if m.Align != 0 {
		c.note(m.at, z, KindDropped, "%s: alignment %d; zonemud has no alignment", what, m.Align)
	}
	if m.DefPos != 8 || m.LoadPos != 8 {
		c.note(m.at, z, KindDropped, "%s: positions %s/%s; zonemud mobs stand", what, name2(positions, m.LoadPos), name2(positions, m.DefPos))
	}
	for _, k := range sortedStrings(m.ESpecs) {
		if k != "BareHandAttack" {
			c.note(at{m.File, m.ESpecLines[k]}, z, KindDropped, "%s: %s: %d has no zonemud equivalent", what, k, m.ESpecs[k])
		}
	}
	lua, converted := c.trigScript("mob", m.Trigs)
	if lua != "" {
		fmt.Fprintf(b, "script = %s\n", multi(lua))
	}
	c.trigNotes(m.at, z, what, fmt.Sprintf("mob %d (%s)", m.Vnum, z.id), m.Trigs, converted)
	c.writeShop(b, z, m)
}

func sortedStrings[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func capFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// itemSlot is the slot an object is worn in, "" for none.
func (c *conv) itemSlot(o *Obj) string {
	if o.Type == 1 {
		return "light"
	}
	for _, bit := range wearOrder {
		if o.Wear.has(bit) {
			if s, ok := wearTo[bit]; ok {
				return s
			}
		}
	}
	return ""
}

func (c *conv) writeObj(b *strings.Builder, z *outZone, o *Obj) {
	if c.objZone[o.Vnum] != z {
		return
	}
	z.stat.Items++
	what := fmt.Sprintf("object %d", o.Vnum)
	fmt.Fprintf(b, "\n[items.%s]\n", localName("item", o.Vnum))
	kw := keywords(stripMarkup(c.str(o.Keywords, maxShort, o.at, z, what+" keywords")))
	if len(kw) == 0 {
		kw = []string{"thing"}
		c.note(o.at, z, KindApproximated, "%s has no keywords; it answers to \"thing\"", what)
	}
	fmt.Fprintf(b, "keywords = %s\n", list(kw))
	short := oneLine(c.str(o.Short, maxShort, o.at, z, what+" short description"))
	if short == "" {
		short = kw[0]
		c.note(o.at, z, KindApproximated, "%s has no short description; it is %q", what, short)
	}
	fmt.Fprintf(b, "short = %s\n", quote(short))
	long := oneLine(c.str(o.Long, maxLong, o.at, z, what+" long description"))
	if long == "" {
		long = capFirst(short) + " lies here."
		c.note(o.at, z, KindApproximated, "%s has no long description; it is %q", what, long)
	}
	fmt.Fprintf(b, "long = %s\n", quote(long))
	// What `look` shows: the extra description named by the object's
	// own keyword, as the engine shows it; a note's text is its action
	// description.
	var desc string
	action := strings.TrimSpace(o.Desc)
	if o.Type == 16 && action != "" {
		desc = c.str(o.Desc, maxText, o.at, z, what+" text")
	} else {
		if action != "" {
			c.note(o.at, z, KindDropped, "%s: its action description (the message when it is used) has no zonemud equivalent", what)
		}
		for _, e := range o.Extras {
			if ekw := keywords(e.Keywords); len(ekw) > 0 && contains(ekw, kw[0]) {
				desc = c.str(e.Text, maxText, o.at, z, what+" extra description")
				break
			}
		}
	}
	if strings.TrimSpace(desc) != "" {
		fmt.Fprintf(b, "description = %s\n", multi(desc))
	}
	typ, ok := objTypeTo[o.Type]
	if !ok {
		typ = "other"
		switch {
		case objMagic[o.Type]:
			c.note(o.at, z, KindDropped, "%s is a %s: it converts as an ordinary item, its spells (%s) are not converted", what, name2(objTypeNames, o.Type), spells(o))
		default:
			c.note(o.at, z, KindApproximated, "%s: type %s has no zonemud equivalent; it is an ordinary item", what, name2(objTypeNames, o.Type))
		}
	}
	fmt.Fprintf(b, "type = %s\n", quote(typ))
	slot := c.itemSlot(o)
	if slot != "" {
		fmt.Fprintf(b, "wear = %s\n", quote(slot))
	} else if typ == "weapon" {
		fmt.Fprintf(b, "wear = %s\n", quote("wield"))
	}
	for _, bit := range o.Wear.bits() {
		if bit == 0 {
			continue
		}
		if _, ok := wearTo[bit]; !ok || wearTo[bit] != slot {
			if bit == 13 && typ == "weapon" {
				continue
			}
			c.note(o.at, z, KindDropped, "%s: wear position %s is not its one zonemud slot (%s)", what, name2(wearNames, bit), orNone(slot))
		}
	}
	fmt.Fprintf(b, "weight = %d\n", c.clamp(o.Weight, 0, 100000, o.at, z, what+" weight"))
	value := o.Cost
	if typ == "money" {
		value = o.Values[0]
	}
	fmt.Fprintf(b, "value = %d\n", c.clamp(value, 0, 1_000_000_000, o.at, z, what+" value"))
	if o.Level > 0 {
		fmt.Fprintf(b, "level = %d\n", c.clamp(o.Level, 0, maxLevel, o.at, z, what+" level"))
	}
	if o.Rent != 0 {
		c.note(o.at, z, KindDropped, "%s: rent %d a day; zonemud has no rent", what, o.Rent)
	}
	var fl []string
	if !o.Wear.has(0) {
		fl = append(fl, "notake")
	}
	for _, bit := range o.Extra.bits() {
		if to, ok := extraFlagTo[bit]; ok {
			fl = append(fl, to)
			continue
		}
		c.note(o.at, z, KindDropped, "%s: flag %s has no zonemud equivalent", what, name2(extraFlagNames, bit))
	}
	if len(fl) > 0 {
		fmt.Fprintf(b, "flags = %s\n", list(dedupe(fl)))
	}
	v := o.Values
	switch typ {
	case "weapon":
		d := c.diceString(dice{N: v[1], S: v[2]}, 0, 100000, o.at, z, what+" damage")
		if d == "0" {
			d = "1d2"
			c.note(o.at, z, KindApproximated, "%s: a weapon with no damage dice; given 1d2", what)
		}
		fmt.Fprintf(b, "damage = %s\n", quote(d))
		if v[3] >= 0 && v[3] < len(attacks) {
			fmt.Fprintf(b, "damage_type = %s\nattack_verb = %s\n", quote(attacks[v[3]].kind), quote(attacks[v[3]].verb))
		} else {
			c.note(o.at, z, KindDropped, "%s: weapon type %d is not an attack type", what, v[3])
		}
	case "armor":
		if a := armorOf(v[0]); a != 0 {
			fmt.Fprintf(b, "armor = %d\n", c.clamp(a, -1000, 1000, o.at, z, what+" armour"))
		}
	case "container":
		fmt.Fprintf(b, "capacity = %d\n", c.clamp(max(v[0], 1), 1, 1000, o.at, z, what+" capacity"))
		closeable, closed, locked := v[1]&1 != 0, v[1]&4 != 0, v[1]&8 != 0
		key := ""
		if v[2] > 0 {
			if kz, ok := c.objZone[v[2]]; ok {
				key = c.ref(kz, "item", v[2], z)
			} else {
				c.note(o.at, z, KindBroken, "%s: its key, object %d, does not exist; it has no key", what, v[2])
			}
		}
		if locked && key == "" {
			locked = false
			c.note(o.at, z, KindApproximated, "%s is locked with no key; zonemud needs a key, so it is only closed", what)
		}
		if v[1]&2 != 0 {
			c.note(o.at, z, KindApproximated, "%s: pick-proof; zonemud locks cannot be picked at all", what)
		}
		if closeable || closed || locked {
			b.WriteString("closeable = true\n")
		}
		if closed || locked {
			b.WriteString("closed = true\n")
		}
		if locked {
			b.WriteString("locked = true\n")
		}
		if key != "" {
			fmt.Fprintf(b, "key = %s\n", quote(key))
		}
	case "drink":
		c.note(o.at, z, KindDropped, "%s: holds %d of %d units of liquid %d; zonemud drinks have no liquids", what, v[1], v[0], v[2])
	case "food":
		if v[3] != 0 {
			c.note(o.at, z, KindDropped, "%s: poisoned food; zonemud food is never poisoned", what)
		}
	case "light":
		if v[2] >= 0 {
			c.note(o.at, z, KindApproximated, "%s: a light of %d hours; zonemud lights never burn out", what, v[2])
		}
	}
	apply := map[string]int{}
	var applyOrder []string
	for _, a := range o.Applies {
		if a.Loc == 0 {
			continue
		}
		stat, ok := applyTo[a.Loc]
		if !ok {
			c.note(at{o.File, a.Line}, z, KindDropped, "%s: apply %s %+d has no zonemud equivalent", what, name2(applyNames, a.Loc), a.Mod)
			continue
		}
		mod := a.Mod
		if stat == "armor" {
			mod = -a.Mod / 10 // the source's armour class falls as it gets better, in tenths
			if mod == 0 {
				c.note(at{o.File, a.Line}, z, KindDropped, "%s: apply ARMOR %+d is less than one point of zonemud armour", what, a.Mod)
				continue
			}
		}
		if _, ok := apply[stat]; !ok {
			applyOrder = append(applyOrder, stat)
		}
		apply[stat] += mod
	}
	if len(applyOrder) > 0 {
		var parts []string
		for _, s := range applyOrder {
			parts = append(parts, fmt.Sprintf("%s = %d", s, c.clamp(apply[s], -1000, 1000, o.at, z, what+" apply "+s)))
		}
		fmt.Fprintf(b, "apply = { %s }\n", strings.Join(parts, ", "))
	}
	for _, t := range o.Trigs {
		c.useTrig(t, fmt.Sprintf("object %d (%s)", o.Vnum, z.id))
		c.note(o.at, z, KindDropped, "%s: trigger %d is attached; DG Scripts are not converted (see Triggers)", what, t)
	}
	extras := map[string]string{}
	var order []string
	for _, e := range o.Extras {
		k := strings.Join(keywords(stripMarkup(c.str(e.Keywords, maxShort, o.at, z, what+" extra keywords"))), " ")
		if k == "" {
			c.note(o.at, z, KindDropped, "%s: an extra description with no keywords", what)
			continue
		}
		if _, ok := extras[k]; !ok {
			order = append(order, k)
			extras[k] = c.str(e.Text, maxText, o.at, z, what+" extra description")
		}
	}
	c.writeExtras(b, "items."+localName("item", o.Vnum), extras, order)
}

// armorOf is the zonemud armour of an ARMOR object's AC-apply: a point
// for every four, at least one for any.
func armorOf(ac int) int {
	switch {
	case ac > 0:
		return max(1, ac/4)
	case ac < 0:
		return min(-1, ac/4)
	}
	return 0
}

func spells(o *Obj) string {
	v := o.Values
	switch o.Type {
	case 3, 4:
		return fmt.Sprintf("spell %d at level %d", v[3], v[0])
	}
	var s []string
	for _, n := range v[1:4] {
		if n > 0 {
			s = append(s, fmt.Sprint(n))
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return fmt.Sprintf("spells %s at level %d", strings.Join(s, ", "), v[0])
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
