package zone

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"zonemud/content"
)

// Shops (content/shop.go defines them). A shopkeeper's shop is state of
// the keeper, on its zone's goroutine: the counted stock left since the
// last restock, and what players sold it (real items, in its inventory, so
// they can be bought back). Every trade is one step of the zone that moves
// the buyer's gold and items together; both live in the player's one
// record, so the next checkpoint saves both sides or neither. A keeper is
// not saved: a restart restocks it and forgets what it bought, as a
// reset would, and never gives an item or a coin to two holders.
//
// The keeper's purse is bottomless: it never refuses a sale for want of
// gold (tbaMUD's keepers can run dry; a small world would only frustrate
// its players with that).

// maxBuy caps one buy's count.
const maxBuy = 50

// shopState is a keeper's running shop.
type shopState struct {
	left        map[string]int // counted stock left, by item ref
	nextRestock uint64         // pulse of the next refill
}

// shopNow is the real time the shop reads the game hour from; tests
// set z.shopClock.
func (z *Zone) shopNow() time.Time {
	if z.shopClock != nil {
		return z.shopClock()
	}
	return time.Now()
}

// keeper is the first shopkeeper in c's room, or nil after saying so.
func (z *Zone) keeper(c *Char) *Char {
	if c.room != nil {
		for _, o := range c.room.people {
			if o.mob != nil && o.mob.Shop != nil && o.home != nil {
				return o
			}
		}
	}
	z.sendLine(c, "There is no shop here.")
	return nil
}

// openShop is k's shop state, restocked if due, or nil (said) if closed.
func (z *Zone) openShop(c, k *Char) *shopState {
	sh := k.mob.Shop
	hour, _, _ := gameClock(z.shopNow())
	if !sh.OpenAt(hour) {
		z.sendLine(c, capFirst(k.short())+" says, 'We are closed. Come back between "+hourWords(sh.Open)+" and "+hourWords(sh.Close)+".'")
		return nil
	}
	st := k.shop
	if st == nil {
		st = &shopState{}
		k.shop = st
	}
	if st.left == nil || z.pulses.now >= st.nextRestock {
		st.left = map[string]int{}
		for _, s := range sh.Stock {
			if s.Count > 0 {
				st.left[s.Item] = s.Count
			}
		}
		secs := uint64(time.Duration(sh.RestockSecs) * time.Second / PulseInterval)
		st.nextRestock = z.pulses.now + max(secs, 1)
	}
	return st
}

// buyPrice is what a buyer pays for one p at k's shop.
func buyPrice(sh *content.Shop, p *content.Item) int {
	return max(1, int(math.Ceil(float64(max(p.Value, 0))*sh.BuyFactor)))
}

// sellPrice is what k's shop pays for one p; 0 means it will not.
func sellPrice(sh *content.Shop, p *content.Item) int {
	return int(math.Floor(float64(max(p.Value, 0)) * sh.SellFactor))
}

// offer is one line of a shop's list: a stocked prototype or an item a
// player sold.
type offer struct {
	proto *content.Item
	left  int // -1: never runs out
	used  []*Item
}

// offers lists what k sells now: its stock in order, then what it bought.
func (z *Zone) offers(k *Char, st *shopState) []*offer {
	var out []*offer
	byRef := map[string]*offer{}
	for _, s := range k.mob.Shop.Stock {
		p := z.set.Items[s.Item]
		if p == nil {
			continue
		}
		o := &offer{proto: p, left: -1}
		if s.Count > 0 {
			o.left = st.left[s.Item]
		}
		out = append(out, o)
		byRef[p.Ref] = o
	}
	for _, it := range k.inv {
		o := byRef[it.proto.Ref]
		if o == nil {
			o = &offer{proto: it.proto}
			out = append(out, o)
			byRef[it.proto.Ref] = o
		}
		o.used = append(o.used, it)
	}
	return out
}

func (o *offer) count() int {
	if o.left < 0 {
		return -1
	}
	return o.left + len(o.used)
}

func (z *Zone) cmdList(c *Char, args string) {
	k := z.keeper(c)
	if k == nil {
		return
	}
	st := z.openShop(c, k)
	if st == nil {
		return
	}
	var b strings.Builder
	b.WriteString(capFirst(k.short()) + " sells:\n")
	n := 0
	for _, o := range z.offers(k, st) {
		cnt := o.count()
		if cnt == 0 {
			continue
		}
		n++
		left := "plenty"
		if cnt > 0 {
			left = strconv.Itoa(cnt) + " left"
		}
		// %-32s pads by characters, not bytes, so names with accents line up.
		fmt.Fprintf(&b, "  %-32s %d gold (%s)\n", o.proto.Short, buyPrice(k.mob.Shop, o.proto), left)
	}
	if n == 0 {
		b.WriteString("  nothing at the moment.\n")
	}
	z.sendLine(c, strings.TrimSuffix(b.String(), "\n"))
}

// shopCount reads "buy [n] <item>": the count and the item words.
func (z *Zone) shopCount(c *Char, args string) (int, string, bool) {
	w, rest := firstWord(strings.TrimSpace(args))
	if w == "" {
		z.sendLine(c, "Buy what? Type list to see what is for sale.")
		return 0, "", false
	}
	num := strings.TrimLeft(w, "+-")
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return 1, strings.TrimSpace(args), true
	}
	if rest == "" {
		z.sendLine(c, "Buy how many of what?")
		return 0, "", false
	}
	v, err := strconv.Atoi(num)
	if err != nil || w != num || v < 1 || v > maxBuy {
		z.sendLine(c, "A count to buy is a whole number from 1 to "+strconv.Itoa(maxBuy)+".")
		return 0, "", false
	}
	return v, rest, true
}

func (z *Zone) cmdBuy(c *Char, args string) {
	k := z.keeper(c)
	if k == nil {
		return
	}
	n, what, ok := z.shopCount(c, args)
	if !ok {
		return
	}
	st := z.openShop(c, k)
	if st == nil {
		return
	}
	spec, ok := parseTarget(what)
	var o *offer
	if ok && !spec.all {
		seen := 0
		for _, x := range z.offers(k, st) {
			if x.count() != 0 && matches(spec.word, x.proto.Keywords) {
				seen++
				if seen == spec.nth {
					o = x
					break
				}
			}
		}
	}
	if o == nil {
		// A stock line sold out since the last restock is named as such,
		// so the slower of two buyers of the last one knows why.
		for _, x := range z.offers(k, st) {
			if ok && !spec.all && x.count() == 0 && matches(spec.word, x.proto.Keywords) {
				z.sendLine(c, capFirst(k.short())+" has sold the last of "+x.proto.Short+"; come back after the next restock.")
				return
			}
		}
		z.sendLine(c, capFirst(k.short())+" sells nothing called '"+what+"'. Type list to see what is for sale.")
		return
	}
	if cnt := o.count(); cnt >= 0 && cnt < n {
		if n == 1 {
			z.sendLine(c, capFirst(k.short())+" has no more of those.")
		} else {
			z.sendLine(c, capFirst(k.short())+" has only "+strconv.Itoa(cnt)+" of those.")
		}
		return
	}
	price := buyPrice(k.mob.Shop, o.proto)
	total := price * n
	if total > c.gold {
		z.sendLine(c, capFirst(itemsWord(o.proto.Short, n))+" cost"+plural(n, "s", "")+" "+strconv.Itoa(total)+" gold; you have "+strconv.Itoa(c.gold)+".")
		return
	}
	if len(c.inv)+n > maxCarry {
		z.sendLine(c, "You cannot carry that many more things.")
		return
	}
	// One step: the gold and the items move together.
	z.addGold(c, -total)
	for i := 0; i < n; i++ {
		if len(o.used) > 0 {
			it := o.used[0]
			o.used = o.used[1:]
			z.itemToChar(it, c)
			continue
		}
		if o.left > 0 {
			o.left--
			st.left[o.proto.Ref]--
		}
		z.itemToChar(z.newItem(o.proto), c)
	}
	z.shopTrades.Add(1)
	z.sendLine(c, "You buy "+itemsWord(o.proto.Short, n)+" for "+strconv.Itoa(total)+" gold.")
	z.act(c.room, c, c, "$n buys "+itemsWord(o.proto.Short, n)+".")
}

// itemsWord is "a mug of ale" or "3 × a mug of ale".
func itemsWord(short string, n int) string {
	if n == 1 {
		return short
	}
	return strconv.Itoa(n) + " × " + short
}

// sellable says why k will not buy it, or "" with the price.
func (z *Zone) sellable(k *Char, it *Item) (int, string) {
	sh := k.mob.Shop
	switch {
	case it.proto == coinProto || it.proto.Type == content.ItemMoney:
		return 0, "Money is not for sale."
	case !sh.TradesIn(it.proto.Type):
		return 0, capFirst(k.short()) + " does not buy that kind of thing."
	case len(it.contents) > 0:
		return 0, "Empty " + it.short() + " first."
	}
	p := sellPrice(sh, it.proto)
	if p < 1 {
		return 0, capFirst(k.short()) + " says, '" + capFirst(it.short()) + " is worth nothing to me.'"
	}
	return p, ""
}

// shopItem finds the carried item args names for sell and value, saying
// why not when it is not there or worn.
func (z *Zone) shopItem(c *Char, args, verb string) *Item {
	spec, ok := parseTarget(args)
	if !ok {
		z.sendLine(c, capFirst(verb)+" what?")
		return nil
	}
	if spec.all {
		z.sendLine(c, "One at a time.")
		return nil
	}
	if items := z.pickCarried(c, spec); len(items) > 0 {
		return items[0]
	}
	return nil
}

func (z *Zone) cmdValue(c *Char, args string) {
	k := z.keeper(c)
	if k == nil {
		return
	}
	it := z.shopItem(c, args, "value")
	if it == nil || z.openShop(c, k) == nil {
		return
	}
	p, why := z.sellable(k, it)
	if why != "" {
		z.sendLine(c, why)
		return
	}
	z.sendLine(c, capFirst(k.short())+" would give you "+strconv.Itoa(p)+" gold for "+it.short()+".")
}

func (z *Zone) cmdSell(c *Char, args string) {
	k := z.keeper(c)
	if k == nil {
		return
	}
	args = strings.TrimSpace(args)
	spec, ok := parseTarget(args)
	var items []*Item
	if ok && spec.all {
		if items = z.pickCarried(c, spec); len(items) == 0 {
			return
		}
	} else {
		it := z.shopItem(c, args, "sell")
		if it == nil {
			return
		}
		items = []*Item{it}
	}
	if z.openShop(c, k) == nil {
		return
	}
	total, sold := 0, 0
	for _, it := range items {
		p, why := z.sellable(k, it)
		if why != "" {
			if !spec.all {
				z.sendLine(c, why)
			}
			continue
		}
		if len(k.inv) >= maxCarry {
			z.sendLine(c, capFirst(k.short())+" says, 'I have no room for more.'")
			break
		}
		if c.gold+p > maxGold {
			z.sendLine(c, "You cannot carry any more gold.")
			break
		}
		// One step: the item leaves and the gold arrives together.
		z.itemToChar(it, k)
		z.addGold(c, p)
		z.shopTrades.Add(1)
		total += p
		sold++
		z.sendLine(c, "You sell "+it.short()+" for "+strconv.Itoa(p)+" gold.")
		z.act(c.room, c, c, "$n sells "+it.short()+".")
	}
	if spec.all && sold == 0 {
		z.sendLine(c, capFirst(k.short())+" wants none of what you carry.")
	} else if spec.all && sold > 1 {
		z.sendLine(c, "You sell "+strconv.Itoa(sold)+" things for "+strconv.Itoa(total)+" gold in all.")
	}
}
