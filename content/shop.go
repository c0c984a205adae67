package content

import "fmt"

// Shops. A shopkeeper mob may declare a shop: what it always has for sale,
// what it pays for and charges, the item types it buys, its opening hours
// in game time and how often its stock comes back. The zone runs the
// trading (zone/shop.go); this is the definition builders write:
//
//	[mobs.chandler.shop]
//	stock = [{ item = "lantern", count = 3 }, { item = "candle" }]
//	buy_factor = 1.2    # a buyer pays the item's value times this
//	sell_factor = 0.5   # a seller gets the item's value times this
//	trades = ["light", "container"]
//	open = 6            # game hours; open == close means always open
//	close = 20
//	restock_secs = 600

// Shop is a shopkeeper's shop. Immutable once loaded.
type Shop struct {
	Stock       []ShopStock
	BuyFactor   float64 // price a buyer pays = value × BuyFactor, at least 1
	SellFactor  float64 // price a seller gets = value × SellFactor, rounded down
	Trades      []ItemType
	Open, Close int // game hours 0-23; Open == Close: always open
	RestockSecs int // seconds between refills of the counted stock
}

// ShopStock is one line of a shop's stock: Count of them after every
// restock, or without end when Count is 0 (a "producing" item).
type ShopStock struct {
	Item  string // item ref
	Count int
}

// OpenAt reports whether the shop is open at game hour h.
func (s *Shop) OpenAt(h int) bool {
	switch {
	case s.Open == s.Close:
		return true
	case s.Open < s.Close:
		return h >= s.Open && h < s.Close
	}
	return h >= s.Open || h < s.Close // open across midnight
}

// TradesIn reports whether the shop buys items of type t.
func (s *Shop) TradesIn(t ItemType) bool {
	for _, x := range s.Trades {
		if x == t {
			return true
		}
	}
	return false
}

type shopSpec struct {
	Stock       []shopStockSpec `toml:"stock"`
	BuyFactor   *float64        `toml:"buy_factor"`
	SellFactor  *float64        `toml:"sell_factor"`
	Trades      []string        `toml:"trades"`
	Open        int             `toml:"open"`
	Close       int             `toml:"close"`
	RestockSecs int             `toml:"restock_secs"`
}

type shopStockSpec struct {
	Item  string `toml:"item"`
	Count int    `toml:"count"`
}

// maxShopStock caps one stock line's count and a shop's lines.
const maxShopStock = 1000

func (l *loader) linkShop(file string, z *Zone, m *Mob, s *shopSpec) {
	if s == nil {
		return
	}
	key := "mobs." + m.Local + ".shop"
	sh := &Shop{BuyFactor: 1, SellFactor: 0.5, Open: s.Open, Close: s.Close, RestockSecs: s.RestockSecs}
	if s.BuyFactor != nil {
		sh.BuyFactor = *s.BuyFactor
	}
	if s.SellFactor != nil {
		sh.SellFactor = *s.SellFactor
	}
	if sh.BuyFactor < 0.01 || sh.BuyFactor > 100 {
		l.problem(file, key+".buy_factor", "%g is out of range 0.01 to 100", sh.BuyFactor)
	}
	if sh.SellFactor < 0 || sh.SellFactor > 100 {
		l.problem(file, key+".sell_factor", "%g is out of range 0 to 100", sh.SellFactor)
	}
	if sh.SellFactor > sh.BuyFactor {
		l.problem(file, key+".sell_factor", "%g is above buy_factor %g: a player could buy and sell back for profit", sh.SellFactor, sh.BuyFactor)
	}
	for _, h := range []struct {
		n string
		v int
	}{{"open", s.Open}, {"close", s.Close}} {
		if h.v < 0 || h.v > 23 {
			l.problem(file, key+"."+h.n, "%d is not a game hour 0 to 23", h.v)
		}
	}
	if sh.RestockSecs == 0 {
		sh.RestockSecs = 600
	}
	if sh.RestockSecs < 1 || sh.RestockSecs > 7*24*3600 {
		l.problem(file, key+".restock_secs", "%d is out of range 1 to a week", s.RestockSecs)
	}
	if len(s.Stock) > maxShopStock {
		l.problem(file, key+".stock", "%d lines is more than %d", len(s.Stock), maxShopStock)
	}
	seen := map[string]bool{}
	for i, st := range s.Stock {
		skey := fmt.Sprintf("%s.stock[%d]", key, i)
		ref, ok := l.protoRef(file, skey+".item", z.ID, KindItem, st.Item)
		if !ok {
			continue
		}
		if seen[ref] {
			l.problem(file, skey+".item", "%s is stocked twice", ref)
			continue
		}
		seen[ref] = true
		if st.Count < 0 || st.Count > maxShopStock {
			l.problem(file, skey+".count", "%d is out of range 0 to %d (0: never runs out)", st.Count, maxShopStock)
			continue
		}
		sh.Stock = append(sh.Stock, ShopStock{Item: ref, Count: st.Count})
	}
	for i, t := range s.Trades {
		found := false
		for _, k := range itemTypes {
			if string(k) == t {
				found = true
			}
		}
		if !found || t == string(ItemMoney) {
			l.problem(file, fmt.Sprintf("%s.trades[%d]", key, i), "%q is not an item type a shop can trade (known: %v, not money)", t, itemTypes)
			continue
		}
		sh.Trades = append(sh.Trades, ItemType(t))
	}
	m.Shop = sh
}
