package zone

import (
	"fmt"
	"strings"

	"zonemud/content"
)

// Item commands handle at most maxAll items at once, so `get all` in a room
// with ten thousand items is one bounded command, not a stall.
const (
	maxAll   = 50
	maxCarry = 200 // items a character can carry, containers' contents not counted
)

const getUsage = `get <item> [from <container>]
  Pick something up. get all takes everything; get all.coin every coin;
  get 2.sword the second sword. get <item> from <container> takes it out.`

const dropUsage = `drop <item> | drop <n> gold
  Put something you carry on the ground. drop all drops everything you
  carry but what you wear and what you keep (see keep). drop 5 gold
  leaves a pile of coins.`

// cmdGet picks items up from the room.
func (z *Zone) cmdGet(c *Char, args string) {
	defer z.questFetch(c)
	what, from := splitFrom(args)
	if what == "" {
		z.sendLine(c, "Get what?")
		return
	}
	if from == "" {
		what, from = z.impliedFrom(c, what)
	}
	spec, ok := parseTarget(what)
	if !ok {
		z.sendLine(c, "You do not see that here.")
		return
	}
	if from != "" {
		z.getFrom(c, spec, from)
		return
	}
	items := pickItems(spec, c.room.items)
	if len(items) == 0 {
		z.sendLine(c, "You do not see that here.")
		return
	}
	z.takeItems(c, items, "")
}

// takeItems moves items into c's hands, telling c and the room.
func (z *Zone) takeItems(c *Char, items []*Item, from string) {
	var got []*Item
	gold := 0
	for i, it := range items {
		if i == maxAll {
			z.sendLine(c, fmt.Sprintf("You stop after %d; there is more.", maxAll))
			break
		}
		if it.proto.Flags.Has(content.ItemNoTake) {
			z.sendLine(c, "You cannot take "+it.short()+".")
			continue
		}
		if it.proto.Type == content.ItemMoney {
			gold += z.pocket(c, it)
			continue
		}
		if len(c.inv) >= maxCarry {
			z.sendLine(c, "Your hands are full.")
			break
		}
		z.itemToChar(it, c)
		got = append(got, it)
	}
	suffix := "."
	if from != "" {
		suffix = " from " + from + "."
	}
	if gold > 0 {
		z.sendLine(c, "You get "+coinShort(gold)+suffix)
		z.act(c.room, c, c, "$n gets some gold"+suffix)
	}
	for _, line := range groupItems(got, (*Item).short) {
		z.sendLine(c, "You get "+line+suffix)
		z.act(c.room, c, c, "$n gets "+line+suffix)
	}
}

// getFrom takes items out of a container carried or in the room.
func (z *Zone) getFrom(c *Char, spec targetSpec, from string) {
	cont := findItem(c, from)
	if cont == nil {
		z.sendLine(c, "You do not see that container here.")
		return
	}
	if !cont.isContainer() {
		z.sendLine(c, capFirst(cont.short())+" is not a container.")
		return
	}
	if cont.closed {
		z.sendLine(c, capFirst(cont.short())+" is closed.")
		return
	}
	if cont.owner != "" && cont.owner != c.name && z.pulses.now < cont.ownerUntil {
		z.sendLine(c, capFirst(cont.short())+" is not yours to loot; it belongs to "+cont.owner+" for now.")
		return
	}
	items := pickItems(spec, cont.contents)
	if len(items) == 0 {
		z.sendLine(c, "There is nothing like that in "+cont.short()+".")
		return
	}
	z.takeItems(c, items, cont.short())
}

// letGo moves items out of c's hands with move, as drop, give and put do:
// at most maxAll of them, an item that may not leave c's hands refused by
// name. fits says why one cannot go (and whether that stops the rest).
func (z *Zone) letGo(c *Char, items []*Item, fits func(*Item) (why string, stop bool), move func(*Item)) []*Item {
	var moved []*Item
	for i, it := range items {
		if i == maxAll {
			z.sendLine(c, fmt.Sprintf("You stop after %d.", maxAll))
			break
		}
		if it.proto.Flags.Has(content.ItemNoDrop) {
			z.sendLine(c, "You cannot let go of "+it.short()+".")
			continue
		}
		why, stop := fits(it)
		if why != "" {
			z.sendLine(c, why)
		}
		if stop {
			break
		}
		if why == "" {
			move(it)
			moved = append(moved, it)
		}
	}
	return moved
}

// cmdDrop puts carried items on the ground.
func (z *Zone) cmdDrop(c *Char, args string) {
	if z.dropGold(c, args) {
		return
	}
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, "Drop what?")
		return
	}
	items := z.pickCarried(c, spec)
	if len(items) == 0 {
		return
	}
	dropped := z.letGo(c, items, func(*Item) (string, bool) {
		if len(c.room.items) >= z.cfg.MaxRoomItems {
			return "There is no room here for anything more.", true
		}
		return "", false
	}, func(it *Item) { z.itemToRoom(it, c.room) })
	for _, line := range groupItems(dropped, (*Item).short) {
		z.sendLine(c, "You drop "+line+".")
		z.act(c.room, c, c, "$n drops "+line+".")
	}
}

// cmdGive hands items to another character in the room.
func (z *Zone) cmdGive(c *Char, args string) {
	fields := strings.Fields(args)
	if len(fields) < 2 {
		z.sendLine(c, "Give what to whom?")
		return
	}
	whoWord := fields[len(fields)-1]
	if z.giveGold(c, args) {
		return
	}
	what := strings.Join(fields[:len(fields)-1], " ")
	if len(fields) > 2 && fields[len(fields)-2] == "to" {
		what = strings.Join(fields[:len(fields)-2], " ")
	}
	spec, ok := parseTarget(what)
	if !ok {
		z.sendLine(c, "You do not have that.")
		return
	}
	to := z.findChar(c, whoWord, false)
	if to == nil {
		z.sendLine(c, "There is nobody here by that name.")
		return
	}
	items := z.pickCarried(c, spec)
	if len(items) == 0 {
		return
	}
	given := z.letGo(c, items, func(*Item) (string, bool) {
		if len(to.inv) >= maxCarry {
			return capFirst(to.short()) + " cannot carry any more.", true
		}
		return "", false
	}, func(it *Item) { z.itemToChar(it, to) })
	for _, line := range groupItems(given, (*Item).short) {
		z.sendLine(c, "You give "+line+" to "+to.short()+".")
		z.sendLine(to, capFirst(c.short())+" gives you "+line+".")
		for _, o := range c.room.people {
			if o != c && o != to {
				z.sendLine(o, capFirst(c.short())+" gives "+line+" to "+to.short()+".")
			}
		}
	}
	if to.mob != nil {
		for _, it := range given {
			z.questGive(c, to, it)
		}
	} else {
		z.questFetch(to)
	}
}

// impliedFrom reads "get all corpse" as "get all from corpse", as every
// Diku does: two words, the second naming a container here or carried.
func (z *Zone) impliedFrom(c *Char, what string) (string, string) {
	first, second := firstWord(what)
	if second == "" || strings.ContainsRune(second, ' ') {
		return what, ""
	}
	if cont := findItem(c, second); cont != nil && cont.isContainer() {
		return first, second
	}
	return what, ""
}

// splitFrom splits "sword from chest" into "sword" and "chest".
func splitFrom(args string) (what, from string) {
	args = strings.TrimSpace(args)
	for _, sep := range []string{" from ", " out of "} {
		if i := strings.Index(args, sep); i >= 0 {
			return strings.TrimSpace(args[:i]), strings.TrimSpace(args[i+len(sep):])
		}
	}
	return args, ""
}

const eatUsage = `eat <food>
  Eat something you carry. Food heals a little. Nobody goes hungry here:
  eat when you are hurt, not because you must.`

const drinkUsage = `drink <drink>
  Drink something you carry. Nobody goes thirsty here; a drink that heals
  heals you.`

// cmdEat eats carried food.
func (z *Zone) cmdEat(c *Char, args string) { z.consume(c, args, "eat", content.ItemFood) }

// cmdDrink drinks a carried drink.
func (z *Zone) cmdDrink(c *Char, args string) { z.consume(c, args, "drink", content.ItemDrink) }

// consume eats or drinks one carried item of kind: it is gone, and its
// heal dice, if any, heal. There is no hunger or thirst to satisfy.
func (z *Zone) consume(c *Char, args, verb string, kind content.ItemType) {
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, capFirst(verb)+" what?")
		return
	}
	if spec.all {
		z.sendLine(c, "One at a time.")
		return
	}
	it := pickItem(spec, c.inv)
	if it == nil {
		z.sendLine(c, "You do not have that.")
		return
	}
	if it.proto.Type != kind {
		z.sendLine(c, "You cannot "+verb+" "+it.short()+".")
		return
	}
	z.sendLine(c, "You "+verb+" "+it.short()+".")
	z.act(c.room, c, c, "$n "+verb+"s "+it.short()+".")
	heal := max(0, it.proto.Heal.Roll(z.rng.IntN))
	z.extractItem(it)
	if heal > 0 && c.hp < c.maxHP {
		z.healBy(c, heal)
		z.sendLine(c, "You feel a little better.")
	}
}
