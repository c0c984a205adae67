package zone

import (
	"strconv"
	"strings"

	"zonemud/content"
)

// Money. Gold is a number on the character, saved in the same record as
// its items, so a give, a purchase or a sale is one checkpoint: both sides
// or neither. Gold on the ground is a coin pile: an item with a durable id
// like any other (so the ledger's one-holder rule covers it in a storage
// room), whose amount is its own, not its prototype's. Picking up a pile,
// or any item of type money (a purse, a bag of wages), turns it into gold:
// the item is gone and its worth is on the character, in one step.

// coinRef names the coin pile's prototype. It is built in, not authored:
// the charset of refs has no way to write "zonemud" as a zone a builder
// owns by accident, and the loader never sees it.
const coinRef = "zonemud:item:coins"

// coinProto is the prototype of every coin pile. Immutable.
var coinProto = &content.Item{
	Ref: coinRef, Zone: "zonemud", Local: "coins",
	Keywords: []string{"coins", "coin", "gold", "pile", "money"},
	Short:    "some gold coins",
	Long:     "A pile of gold coins lies here.",
	Type:     content.ItemMoney,
}

// maxGold caps what one character or one pile may hold, far above any
// honest fortune, so no sum of gold can overflow.
const maxGold = 1_000_000_000

// coinShort is how a pile of n coins reads.
func coinShort(n int) string {
	switch {
	case n == 1:
		return "a single gold coin"
	case n <= 10:
		return strconv.Itoa(n) + " gold coins"
	case n <= 100:
		return "a small pile of " + strconv.Itoa(n) + " gold coins"
	}
	return "a pile of " + strconv.Itoa(n) + " gold coins"
}

// worth is what a money item turns into when picked up: a pile's own
// amount, an authored money item's value.
func (it *Item) worth() int {
	if it.proto == coinProto {
		return it.coins
	}
	return max(it.proto.Value, 0)
}

// newCoins makes a coin pile of n with a fresh durable id, not placed.
func (z *Zone) newCoins(n int) *Item {
	it := z.newItem(coinProto)
	it.coins = n
	return it
}

// pocket turns a money item c just took into gold: the item is destroyed
// and its worth added, both in this one step of the zone, so the next
// checkpoint carries both. It returns the amount.
func (z *Zone) pocket(c *Char, it *Item) int {
	n := it.worth()
	z.extractItem(it)
	z.addGold(c, n)
	return n
}

// addGold adds n (which may be negative) to c's gold, capped, and marks c
// changed.
func (z *Zone) addGold(c *Char, n int) {
	c.gold = min(max(c.gold+n, 0), maxGold)
	z.dirty(c)
}

// goldAmount reads "10 gold", "10 coins", "all gold" from the start of
// args: ok says the words are about gold at all (then the caller handles
// the command), n is the amount (0 with a refusal already said) and rest
// what follows.
func (z *Zone) goldAmount(c *Char, args string) (n int, rest string, ok bool) {
	fields := strings.Fields(args)
	if len(fields) < 2 || !isCoinWord(fields[1]) {
		return 0, "", false
	}
	rest = strings.Join(fields[2:], " ")
	if strings.EqualFold(fields[0], "all") {
		if c.gold == 0 {
			z.sendLine(c, "You have no gold.")
			return 0, rest, true
		}
		return c.gold, rest, true
	}
	for _, r := range fields[0] {
		if r < '0' || r > '9' {
			if r == '-' || r == '+' {
				z.sendLine(c, "A count of coins is a whole number above zero.")
				return 0, rest, true
			}
			return 0, "", false // "give sword gold..." is not about gold
		}
	}
	v, err := strconv.Atoi(fields[0])
	switch {
	case err != nil || v > maxGold:
		z.sendLine(c, "Nobody has that much gold.")
		return 0, rest, true
	case v == 0:
		z.sendLine(c, "A count of coins is a whole number above zero.")
		return 0, rest, true
	case v > c.gold:
		z.sendLine(c, "You do not have that much gold; you carry "+strconv.Itoa(c.gold)+".")
		return 0, rest, true
	}
	return v, rest, true
}

func isCoinWord(w string) bool {
	switch strings.ToLower(w) {
	case "gold", "coin", "coins":
		return true
	}
	return false
}

// dropGold handles "drop 5 gold": a pile on the ground, merged with a
// pile already there. It reports whether args were about gold.
func (z *Zone) dropGold(c *Char, args string) bool {
	n, _, ok := z.goldAmount(c, args)
	if !ok {
		return false
	}
	if n == 0 {
		return true
	}
	var pile *Item
	for _, it := range c.room.items {
		if it.proto == coinProto {
			pile = it
			break
		}
	}
	if pile == nil && len(c.room.items) >= z.cfg.MaxRoomItems {
		z.sendLine(c, "There is no room here for anything more.")
		return true
	}
	if pile != nil && pile.coins+n > maxGold {
		z.sendLine(c, "That pile cannot grow any bigger.")
		return true
	}
	z.addGold(c, -n)
	if pile == nil {
		z.itemToRoom(z.newCoins(n), c.room)
	} else {
		pile.coins += n
		z.itemsChanged(pile)
	}
	z.sendLine(c, "You drop "+coinShort(n)+".")
	z.act(c.room, c, c, "$n drops "+coinShort(n)+".")
	return true
}

// giveGold handles "give 10 gold bran" and "give 10 coins to bran". It
// reports whether args were about gold.
func (z *Zone) giveGold(c *Char, args string) bool {
	n, rest, ok := z.goldAmount(c, args)
	if !ok {
		return false
	}
	if n == 0 {
		return true
	}
	rest = strings.TrimSpace(rest)
	if w, r := firstWord(rest); strings.EqualFold(w, "to") && r != "" {
		rest = r
	}
	if rest == "" {
		z.sendLine(c, "Give the gold to whom?")
		return true
	}
	to := z.findChar(c, rest, false)
	if to == nil {
		z.sendLine(c, "There is nobody here by that name.")
		return true
	}
	if to.gold+n > maxGold {
		z.sendLine(c, capFirst(to.short())+" cannot carry that much gold.")
		return true
	}
	z.addGold(c, -n)
	z.addGold(to, n)
	z.sendLine(c, "You give "+coinShort(n)+" to "+to.short()+".")
	z.sendLine(to, capFirst(c.short())+" gives you "+coinShort(n)+".")
	for _, o := range c.room.people {
		if o != c && o != to {
			z.sendLine(o, capFirst(c.short())+" gives some gold to "+to.short()+".")
		}
	}
	return true
}
