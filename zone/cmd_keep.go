package zone

import (
	"strings"

	"zonemud/content"
)

// The Diku details of letting go: a worn item has to come off before it
// is dropped, given, sold or junked; a kept item stays out of every "all"
// (drop all, give all, sell all, junk all) until it is unkept; junk
// destroys an item for good.

const keepUsage = `keep [<item> | all[.item]]
  Mark something you carry or wear as yours to keep: drop all, give all,
  sell all and junk all leave it alone (naming it still works). keep alone
  lists what you keep. unkeep takes the mark off.`

const unkeepUsage = `unkeep <item> | all[.item]
  Take the keep mark off something, so the all forms take it again.`

const junkUsage = `junk <item> | junk all[.item]
  Destroy something you carry, for good: it is gone from the world. junk
  all leaves what you keep and what you wear alone.`

// wornItems is what c wears, in slot order.
func wornItems(c *Char) []*Item {
	var out []*Item
	for _, it := range c.eq {
		if it != nil {
			out = append(out, it)
		}
	}
	return out
}

// pickCarried is what spec names among what c carries in its hands, for
// drop, give, sell and junk: one item by name even if kept, or with all
// every match that is not kept. When that is nothing it says why (a worn
// match has to be removed first, a kept one unkept) and returns nil.
func (z *Zone) pickCarried(c *Char, spec targetSpec) []*Item {
	items := pickItems(spec, c.inv)
	if spec.all {
		out := make([]*Item, 0, len(items))
		for _, it := range items {
			if !it.kept {
				out = append(out, it)
			}
		}
		switch {
		case len(out) > 0:
			return out
		case len(items) > 0:
			z.sendLine(c, "You keep all of that; unkeep it first.")
		case len(pickItems(spec, wornItems(c))) > 0:
			z.sendLine(c, "You carry nothing like that; what you wear, remove first.")
		default:
			z.sendLine(c, "You do not have that.")
		}
		return nil
	}
	if len(items) > 0 {
		return items
	}
	if it := pickItem(spec, wornItems(c)); it != nil {
		z.sendLine(c, "You are wearing "+it.short()+"; remove it first.")
		return nil
	}
	z.sendLine(c, "You do not have that.")
	return nil
}

func (z *Zone) cmdKeep(c *Char, args string)   { z.markKept(c, args, true) }
func (z *Zone) cmdUnkeep(c *Char, args string) { z.markKept(c, args, false) }

// markKept sets or clears the keep mark on what args names among what c
// carries and wears; keep with no words lists what is kept.
func (z *Zone) markKept(c *Char, args string, keep bool) {
	if strings.TrimSpace(args) == "" && keep {
		var kept []*Item
		for _, it := range c.carried() {
			if it.kept {
				kept = append(kept, it)
			}
		}
		if len(kept) == 0 {
			z.sendLine(c, "You keep nothing. keep <item> marks something so the all forms leave it alone.")
			return
		}
		z.sendLine(c, "You keep:\n  "+strings.Join(groupItems(kept, (*Item).short), "\n  "))
		return
	}
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, map[bool]string{true: "Keep what?", false: "Unkeep what?"}[keep])
		return
	}
	var items []*Item
	if spec.all {
		items = pickItems(spec, c.carried())
	} else if it := pickItem(spec, c.carried()); it != nil {
		items = []*Item{it}
	}
	if len(items) == 0 {
		z.sendLine(c, "You do not have that.")
		return
	}
	var changed []*Item
	for i, it := range items {
		if i == maxAll {
			break
		}
		if it.kept == keep {
			if !spec.all {
				if keep {
					z.sendLine(c, "You already keep "+it.short()+".")
				} else {
					z.sendLine(c, "You do not keep "+it.short()+".")
				}
			}
			continue
		}
		it.kept = keep
		z.itemsChanged(it)
		changed = append(changed, it)
	}
	for _, line := range groupItems(changed, (*Item).short) {
		if keep {
			z.sendLine(c, "You will keep "+line+".")
		} else {
			z.sendLine(c, "You no longer keep "+line+".")
		}
	}
	if spec.all && len(changed) == 0 {
		if keep {
			z.sendLine(c, "You already keep all of that.")
		} else {
			z.sendLine(c, "You keep none of that.")
		}
	}
}

// cmdJunk destroys carried items. Each is taken out of the character and
// out of the zone in this one step, so the next checkpoint saves the
// character without it and the store's ledger lets its id go: it is in
// no record after that save, and still in the character's before it.
func (z *Zone) cmdJunk(c *Char, args string) {
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, "Junk what?")
		return
	}
	items := z.pickCarried(c, spec)
	if len(items) == 0 {
		return
	}
	junked := z.letGo(c, items, func(it *Item) (string, bool) {
		if len(it.contents) > 0 {
			return "Empty " + it.short() + " first.", false
		}
		if it.proto.Type == content.ItemMoney {
			return "You would not throw away money.", false
		}
		return "", false
	}, func(it *Item) { z.extractItem(it) })
	for _, line := range groupItems(junked, (*Item).short) {
		z.sendLine(c, "You junk "+line+". It is gone.")
		z.act(c.room, c, c, "$n junks "+line+".")
	}
}
