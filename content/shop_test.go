package content

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestShop_LoadsAndRefusesNonsense(t *testing.T) {
	good := minimalWorld()
	good["shop.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Shop"
[rooms.store]
name = "A Store"
description = "Shelves."
[mobs.keeper]
keywords = ["keeper"]
short = "a keeper"
long = "A keeper is here."
[mobs.keeper.shop]
stock = [{ item = "ale", count = 2 }, { item = "bread" }]
buy_factor = 1.5
trades = ["drink"]
open = 20
close = 4
[items.ale]
keywords = ["ale"]
short = "an ale"
long = "An ale."
type = "drink"
value = 3
[items.bread]
keywords = ["bread"]
short = "a bread"
long = "A bread."
type = "food"
`)}
	set, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	sh := set.Mobs["shop:mob:keeper"].Shop
	if sh == nil || len(sh.Stock) != 2 || sh.Stock[0] != (ShopStock{Item: "shop:item:ale", Count: 2}) || sh.SellFactor != 0.5 || sh.RestockSecs != 600 {
		t.Fatalf("shop: %+v", sh)
	}
	if !sh.OpenAt(23) || !sh.OpenAt(2) || sh.OpenAt(4) || sh.OpenAt(12) || !sh.TradesIn(ItemDrink) || sh.TradesIn(ItemFood) {
		t.Fatalf("hours or trades wrong: %+v", sh)
	}

	bad := minimalWorld()
	bad["shop.toml"] = &fstest.MapFile{Data: []byte(`
[zone]
name = "Shop"
[rooms.store]
name = "A Store"
description = "Shelves."
[mobs.keeper]
keywords = ["keeper"]
short = "a keeper"
long = "A keeper is here."
[mobs.keeper.shop]
stock = [{ item = "nothing" }, { item = "ale", count = -1 }, { item = "ale" }, { item = "ale" }]
buy_factor = 0.5
sell_factor = 0.9
trades = ["money", "sparkles"]
open = 25
restock_secs = -3
[items.ale]
keywords = ["ale"]
short = "an ale"
long = "An ale."
`)}
	_, err = Load(bad)
	if err == nil {
		t.Fatal("a nonsense shop loaded")
	}
	for _, want := range []string{
		"mobs.keeper.shop.stock[0].item", "mobs.keeper.shop.stock[1].count", "stocked twice",
		"mobs.keeper.shop.sell_factor", "mobs.keeper.shop.trades[0]", "mobs.keeper.shop.trades[1]",
		"mobs.keeper.shop.open", "mobs.keeper.shop.restock_secs",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no problem about %s in:\n%v", want, err)
		}
	}
}
