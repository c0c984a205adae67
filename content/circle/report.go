package circle

import (
	"fmt"
	"sort"
	"strings"
)

// report writes IMPORT.md: per zone what converted, then every note with
// its source file and line, then the triggers, quests and shops a builder
// has to rewrite by hand.
func report(w *World, c *conv, res *Result) []byte {
	var b strings.Builder
	b.WriteString("# Import report\n\n")
	b.WriteString("Written by `zonemud import circle`. Every room, mob, object and reset of the\n" +
		"source is below: converted, approximated (the nearest zonemud feature), dropped\n" +
		"(no equivalent) or left out (broken in the source). Lines are `file:line`\n" +
		"in the source world.\n\n")
	fmt.Fprintf(&b, "Start room: `%s`.\n\n", res.Start)
	b.WriteString("## Zones\n\n")
	b.WriteString("| zone | file | rooms | mobs | items | resets | shops | approximated | dropped | broken | errors |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, z := range res.Zones {
		fmt.Fprintf(&b, "| %d %s | `%s` | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n",
			z.Vnum, mdCell(z.Name), z.File, z.Rooms, z.Mobs, z.Items, z.Resets, z.Shops, z.Approximated, z.Dropped, z.Broken, z.Errs)
	}
	fmt.Fprintf(&b, "\nIn all: %d zones, %d rooms, %d mobs, %d items, %d resets, %d of %d shops; %d triggers (%d converted to Lua) and %d quests listed to rewrite.\n\n",
		len(res.Zones), res.Rooms, res.Mobs, res.Items, res.Resets, res.Shops, res.ShopsSeen, res.Triggers, len(c.trigConverted), res.Quests)
	b.WriteString("## What maps to what\n\n" + mapping + "\n")

	byZone := map[int][]Note{}
	var zones []int
	for _, n := range res.Notes {
		if _, ok := byZone[n.Zone]; !ok {
			zones = append(zones, n.Zone)
		}
		byZone[n.Zone] = append(byZone[n.Zone], n)
	}
	sort.Ints(zones)
	names := map[int]string{-1: "the whole world"}
	for _, z := range res.Zones {
		names[z.Vnum] = fmt.Sprintf("zone %d, %s (`%s`)", z.Vnum, z.Name, z.File)
	}
	b.WriteString("## Notes\n")
	for _, zv := range zones {
		nm := names[zv]
		if nm == "" {
			nm = fmt.Sprintf("zone %d", zv)
		}
		fmt.Fprintf(&b, "\n### %s\n\n", nm)
		ns := byZone[zv]
		sort.SliceStable(ns, func(i, j int) bool {
			if ns[i].File != ns[j].File {
				return ns[i].File < ns[j].File
			}
			return ns[i].Line < ns[j].Line
		})
		for _, n := range ns {
			fmt.Fprintf(&b, "- %s: %s\n", n.Kind, mdText(n.String()))
		}
	}
	b.WriteString("\n## Triggers (DG Scripts)\n\nRewrite each as Lua (see Scripts in areas/README.md), but those marked converted:\nthose were a greeting or an echo, now a script of the room or mob.\n\n")
	if len(w.Triggers) == 0 && len(c.trigUse) == 0 {
		b.WriteString("None.\n")
	}
	attach := []string{"mob", "object", "room"}
	for _, v := range sortedKeys(w.Triggers) {
		t := w.Triggers[v]
		used := c.trigUse[v]
		if len(used) == 0 {
			used = []string{"nothing"}
		}
		done := ""
		if c.trigConverted[v] {
			done = "; converted to Lua, check it"
		}
		fmt.Fprintf(&b, "- trigger %d %q (%s trigger, types %s, %s:%d): attached to %s%s\n",
			v, oneLine(stripMarkup(mustText(t.Name))), attach[t.Attach], t.Types, t.File, t.Line, strings.Join(used, ", "), done)
	}
	for _, v := range sortedKeys(c.trigUse) {
		if w.Triggers[v] == nil {
			fmt.Fprintf(&b, "- trigger %d: not in the source, attached to %s\n", v, strings.Join(c.trigUse[v], ", "))
		}
	}
	b.WriteString("\n## Quests: not converted\n\n")
	if len(w.Quests) == 0 {
		b.WriteString("None.\n")
	}
	for _, q := range w.Quests {
		fmt.Fprintf(&b, "- %s:%d\n", q.File, q.Line)
	}
	b.WriteString("\n## Shops\n\nEach converted shop is the `shop` table of its keeper. The messages below have\n" +
		"no zonemud equivalent (the keepers say their own lines); rewrite them in a script\n" +
		"if they matter. Shops left out are in the notes above.\n\n")
	if len(c.shopsDone) == 0 {
		b.WriteString("None converted.\n")
	}
	for _, d := range c.shopsDone {
		fmt.Fprintf(&b, "- shop %d (%s:%d), kept by `%s`:\n", d.s.Vnum, d.s.File, d.s.Line, d.keeper)
		for i, m := range d.s.Messages {
			fmt.Fprintf(&b, "  - %s: %s\n", shopMessages[i], mdCode(oneLine(mustText(m))))
		}
	}
	return []byte(b.String())
}

func mustText(s string) string {
	t, _ := text(s)
	return t
}

func mdCell(s string) string { return strings.ReplaceAll(stripMarkup(s), "|", "\\|") }

// mdCode quotes text as Markdown code, whatever backticks it holds.
func mdCode(s string) string {
	if s == "" {
		return "(none)"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + s + " " + fence
}

func mdText(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// mapping is the part of the report that is the same for every import.
const mapping = `- Rooms: name, description and extra descriptions as written; the sector
  becomes the environment; DARK, NO_MOB, INDOORS and PEACEFUL become dark,
  nomob, indoors and safe; DEATH becomes a script that kills whoever enters.
  Other flags are listed below.
- Exits: D0 to D9 (north, east, south, west, up, down, then the diagonals).
  A door keeps its keywords and key; its state is the one its zone's first D
  reset sets, and every D reset stays a door reset. An exit description is
  kept as the door's extra description, or dropped where there is no door.
- Mobs: keywords, short, long and detailed text; level; hit point and damage
  dice; armour class as armour ((10 - AC) / 4); THAC0 as hitroll
  ((20 - THAC0) / 4); gold; experience. A mob without SENTINEL wanders
  (inside its zone: zonemud mobs never leave it); AGGRESSIVE (and the
  alignment-aggressive flags) is aggressive; NOKILL is peaceful.
  BareHandAttack is the attack verb. Alignment, sex, positions, other flags,
  affects and the other E-specs are listed below.
- Objects: keywords, texts, type, weight, cost as value, level, the first
  wear position that is a zonemud slot, GLOW and NODROP (and no TAKE as
  notake), weapon dice and attack type, armour AC-apply / 4, container
  capacity, lock and key, applies to attributes, hp, mana, moves, hitroll,
  damroll and armour. Scrolls, wands, staves and potions are ordinary items
  whose spells are listed.
- Resets: M, O, G, E, P and D become mob, item and door resets. Max counts
  become the reset's own max (the source counts copies in the whole world;
  zonemud counts the copies of one reset line). If-flags on M, O and D are
  dropped (every line runs); G and E follow their M, P its O. R, T and V are
  listed. Lifespan becomes reset_secs; mode 0 never resets.
- Shops: the shop table of the keeper mob. Products are stock that never
  runs out (what G resets give the keeper is sold too, as the engine sells
  it); the buy and sell profits are buy_factor and sell_factor (without the
  engine's charisma adjustment); trade types become the item types they
  converted to (keywords after a type are dropped: it buys the whole type);
  the two opening windows become one (open, close). Messages, temper, the
  shop flags, the trade-with flags and the shop's rooms (a zonemud keeper
  trades wherever it stands) are listed. The keeper's purse has no bottom.
- Colour: @x and \tx codes become {x} markup; codes with no markup
  (backgrounds, blink) are taken out and listed.
`
