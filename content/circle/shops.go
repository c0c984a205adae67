package circle

import (
	"fmt"
	"strconv"
	"strings"
)

// Shops convert to the shop table of their keeper mob (content/shop.go):
// products are stock that never runs out, the profits are buy_factor and
// sell_factor, the trade types are the zonemud item types they became,
// the opening hours one window. Messages, temper, the shop's flags, whom
// it refuses and the rooms it is bound to have no zonemud field; they
// are noted, and the report lists each shop's messages for a builder.

// Limits of a zonemud shop (content/shop.go).
const (
	maxShopStock  = 1000
	minBuyFactor  = 0.01
	maxShopFactor = 100
)

// placeShops gives each shop its keeper, before any zone is written: a
// shop whose keeper does not convert is left out, and a keeper keeps the
// first shop that names it, as the engine uses only that one.
func (c *conv) placeShops() {
	c.shopOf = map[int]*Shop{}
	for _, v := range sortedKeys(c.w.Shops) {
		s := c.w.Shops[v]
		z, ok := c.mobZone[s.Keeper]
		if !ok {
			c.note(at{s.File, s.KeeperLine}, c.zoneOfVnum(s.Vnum), KindBroken, "shop %d: its keeper, mob %d, does not exist; the shop is left out", v, s.Keeper)
			continue
		}
		if first := c.shopOf[s.Keeper]; first != nil {
			c.note(s.at, z, KindDropped, "shop %d: mob %d already keeps shop %d (%s:%d), and a keeper has one shop (the engine, too, uses only the first); this one is left out", v, s.Keeper, first.Vnum, first.File, first.Line)
			continue
		}
		c.shopOf[s.Keeper] = s
	}
}

// zoneOfVnum is the output zone whose range holds vnum, or nil.
func (c *conv) zoneOfVnum(vnum int) *outZone {
	for _, z := range c.zones {
		if z.src != nil && vnum >= z.bot && vnum <= z.top {
			return z
		}
	}
	return nil
}

// writeShop writes the shop of keeper m, if it keeps one.
func (c *conv) writeShop(b *strings.Builder, z *outZone, m *Mob) {
	s := c.shopOf[m.Vnum]
	if s == nil {
		return
	}
	z.stat.Shops++
	c.shopsDone = append(c.shopsDone, convertedShop{s, c.ref(z, "mob", m.Vnum, nil)})
	what := fmt.Sprintf("shop %d", s.Vnum)
	fmt.Fprintf(b, "\n[mobs.%s.shop]\n", localName("mob", m.Vnum))

	var stock []string
	seen := map[int]bool{}
	for _, p := range s.Products {
		where := at{s.File, p.Line}
		oz, ok := c.objZone[p.Vnum]
		switch {
		case !ok:
			c.note(where, z, KindBroken, "%s: it makes object %d, which does not exist; left out of the stock", what, p.Vnum)
			continue
		case seen[p.Vnum]:
			c.note(where, z, KindDropped, "%s: object %d is listed twice; stocked once", what, p.Vnum)
			continue
		case len(stock) == maxShopStock:
			c.note(where, z, KindDropped, "%s: more than %d products; the rest are left out", what, maxShopStock)
		}
		if len(stock) == maxShopStock {
			break
		}
		seen[p.Vnum] = true
		stock = append(stock, "{ item = "+quote(c.ref(oz, "item", p.Vnum, z))+" }")
	}
	if len(stock) > 0 {
		fmt.Fprintf(b, "stock = [\n  %s,\n]\n", strings.Join(stock, ",\n  "))
	}

	where := at{s.File, s.BuyLine}
	buy, sell := s.BuyProfit, s.SellProfit
	if buy < minBuyFactor || buy > maxShopFactor {
		nb := min(max(buy, minBuyFactor), maxShopFactor)
		c.note(where, z, KindApproximated, "%s: buy profit %g is out of zonemud's range %g to %d; written as %g", what, buy, minBuyFactor, maxShopFactor, nb)
		buy = nb
	}
	if sell < 0 || sell > maxShopFactor {
		ns := min(max(sell, 0), maxShopFactor)
		c.note(at{s.File, s.BuyLine + 1}, z, KindApproximated, "%s: sell profit %g is out of zonemud's range 0 to %d; written as %g", what, sell, maxShopFactor, ns)
		sell = ns
	}
	if sell > buy {
		c.note(at{s.File, s.BuyLine + 1}, z, KindApproximated, "%s: sell profit %g is above buy profit %g, so a player could buy and sell back for profit; zonemud refuses that, so it is written as %g", what, sell, buy, buy)
		sell = buy
	}
	fmt.Fprintf(b, "buy_factor = %s\nsell_factor = %s\n", tomlFloat(buy), tomlFloat(sell))

	if trades := c.shopTrades(s, z, what); len(trades) > 0 {
		fmt.Fprintf(b, "trades = %s\n", list(trades))
	}

	open, shut, exact := shopHours(s.Hours)
	switch {
	case !exact && open == shut:
		c.note(at{s.File, s.HoursLine}, z, KindApproximated, "%s: hours %d-%d and %d-%d: it never opens; a zonemud shop cannot be shut for good, so it is open at all hours", what, s.Hours[0], s.Hours[1], s.Hours[2], s.Hours[3])
	case !exact:
		c.note(at{s.File, s.HoursLine}, z, KindApproximated, "%s: hours %d-%d and %d-%d are not one window; zonemud shops have one, so it is open %s", what, s.Hours[0], s.Hours[1], s.Hours[2], s.Hours[3], hoursText(open, shut))
	}
	if open != shut {
		fmt.Fprintf(b, "open = %d\nclose = %d\n", open, shut)
	}

	c.note(at{s.File, s.MsgLine}, z, KindDropped, "%s: its seven messages have no zonemud equivalent (zonemud's keepers say their own lines); the report lists them under Shops", what)
	c.note(at{s.File, s.TemperLine}, z, KindDropped, "%s: temper %d (what the keeper does at a buyer who cannot pay) has no zonemud equivalent", what, s.Temper)
	for _, bit := range s.Bits.bits() {
		c.note(at{s.File, s.BitsLine}, z, KindDropped, "%s: flag %s has no zonemud equivalent (zonemud keepers never attack and their purse has no bottom)", what, name2(shopBitNames, bit))
	}
	for _, bit := range s.WithWho.bits() {
		c.note(at{s.File, s.WhoLine}, z, KindDropped, "%s: trade-with flag %s (it refuses some players by alignment or class) has no zonemud equivalent; it trades with everyone", what, name2(tradeWithNames, bit))
	}
	c.shopRooms(s, z, m, what)
}

// shopTrades is the zonemud item types a shop buys, noting what they
// widen or drop.
func (c *conv) shopTrades(s *Shop, z *outZone, what string) []string {
	var out []string
	for _, t := range s.Types {
		where := at{s.File, t.Line}
		typ, ok := objTypeTo[t.Type]
		switch {
		case t.Type <= 0 || t.Type >= len(objTypeNames):
			c.note(where, z, KindDropped, "%s: trade type %d is not an object type", what, t.Type)
			continue
		case typ == "money":
			c.note(where, z, KindDropped, "%s: trade type MONEY; zonemud shops never buy money", what)
			continue
		case !ok:
			typ = "other"
			c.note(where, z, KindApproximated, "%s: trade type %s converts as ordinary items, so it buys every ordinary item", what, name2(objTypeNames, t.Type))
		}
		if t.Words != "" {
			c.note(where, z, KindApproximated, "%s: it buys %s only when named %q; zonemud shops buy by type alone, so it buys every %s item", what, name2(objTypeNames, t.Type), clip(t.Words), typ)
		}
		out = append(out, typ)
	}
	return dedupe(out)
}

// shopRooms notes where the keeper trades: a Circle keeper trades only in
// the shop's rooms, a zonemud keeper wherever it stands.
func (c *conv) shopRooms(s *Shop, z *outZone, m *Mob, what string) {
	in := map[int]bool{}
	for _, r := range s.Rooms {
		in[r.Vnum] = true
		if _, ok := c.roomZone[r.Vnum]; !ok {
			c.note(at{s.File, r.Line}, z, KindBroken, "%s: room %d does not exist", what, r.Vnum)
		}
	}
	if len(s.Rooms) == 0 {
		c.note(s.at, z, KindApproximated, "%s names no room, so the engine never trades there; zonemud keepers trade wherever they stand", what)
		return
	}
	if !m.Flags.has(1) {
		c.note(s.at, z, KindApproximated, "%s: its keeper wanders (no SENTINEL), and zonemud keepers trade wherever they stand, not only in the shop's rooms", what)
	}
	for _, oz := range c.zones {
		if oz.src == nil {
			continue
		}
		for _, cmd := range oz.src.Cmds {
			if cmd.Op == 'M' && cmd.A == m.Vnum && !in[cmd.C] {
				c.note(at{oz.src.File, cmd.Line}, z, KindApproximated, "%s: its keeper is loaded in room %d, which is not a room of the shop; the engine would not trade there, zonemud does", what, cmd.C)
			}
		}
	}
}

// shopHours turns the two windows of a Circle shop into zonemud's one:
// open from open to close (close not included, wrapping midnight; open ==
// close is always open). A Circle shop is open at hour h when open1 <= h
// <= close1, or h > close1 and open2 <= h <= close2. exact is false when
// the open hours are not one window: then it is the shortest window that
// holds them all (always open for a shop that never opens).
func shopHours(h [4]int) (open, shut int, exact bool) {
	var isOpen [24]bool
	n := 0
	for hr := range 24 {
		if (h[0] <= hr && hr <= h[1]) || (hr > h[1] && h[2] <= hr && hr <= h[3]) {
			isOpen[hr] = true
			n++
		}
	}
	switch n {
	case 24:
		return 0, 0, true
	case 0:
		return 0, 0, false
	}
	// The longest run of closed hours, going round the clock; the window
	// is the rest. It is exact when that is the only closed run.
	runs, best, bestAt := 0, 0, 0
	for start := range 24 {
		if isOpen[start] || !isOpen[(start+23)%24] {
			continue // not the first closed hour of a run
		}
		runs++
		l := 0
		for !isOpen[(start+l)%24] {
			l++
		}
		if l > best {
			best, bestAt = l, start
		}
	}
	return (bestAt + best) % 24, bestAt, runs == 1
}

func hoursText(open, shut int) string {
	if open == shut {
		return "at all hours"
	}
	return fmt.Sprintf("from %d to %d", open, shut)
}

// tomlFloat writes a float TOML reads as a float.
func tomlFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// convertedShop is a shop written, for the report.
type convertedShop struct {
	s      *Shop
	keeper string
}
