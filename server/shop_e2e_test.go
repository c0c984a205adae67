package server_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/servertest"
	"zonemud/store"
)

const smithy = "emberfall:room:smithy"

// trader makes a character standing in Brannoc's smithy with gold coins,
// written through the store while it is out of the world, and logs it in.
func trader(t *testing.T, srv *server.Server, name string, gold int) *servertest.Client {
	t.Helper()
	c := servertest.Dial(t, srv.TelnetAddr())
	c.Create(name, "trade-pass")
	c.DoExpect("east", "Exits:")
	c.DoExpect("north", "Brannoc")
	c.Quit()
	db := srv.Store()
	var rec *store.Character
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, err := db.Character(name)
		if err == nil && r.Place.Room == smithy {
			rec = r
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's quit in the smithy was never saved: %v", name, err)
		}
	}
	rec.Gold = gold
	res, err := db.Commit([]*store.Batch{{Zone: "shop-test-setup", Chars: []*store.Character{rec}}})
	if err != nil || res[0] != nil {
		t.Fatalf("setting %s's gold: %v %v", name, err, res)
	}
	c = servertest.Dial(t, srv.TelnetAddr())
	c.Login(name, "trade-pass")
	return c
}

// stored is a character's gold and the prototypes it holds, from the
// store, once its quit is written.
func stored(t *testing.T, srv *server.Server, c *servertest.Client, name string) (int, []string) {
	t.Helper()
	c.Quit()
	if !c.WaitClosed(10 * time.Second) {
		t.Fatalf("%s's quit did not close the connection", name)
	}
	srv.World().Flush()
	if _, err := srv.Store().Census(); err != nil {
		t.Fatalf("census: %v", err)
	}
	r, err := srv.Store().Character(name)
	if err != nil {
		t.Fatal(err)
	}
	var protos []string
	for _, it := range r.Items {
		protos = append(protos, it.Proto)
	}
	return r.Gold, protos
}

// Two players type "buy spear" at the same moment for the smithy's one
// spear: exactly one gets it and pays, the other is told it has sold out
// and keeps their gold; the store agrees.
func TestShop_TwoBuyersOfTheLastItem(t *testing.T) {
	srv := servertest.Start(t, nil)
	a := trader(t, srv, "Ansel", 100)
	b := trader(t, srv, "Berit", 100)
	a.Skip()
	b.Skip()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, c := range []*servertest.Client{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The say after it proves the buy was answered: what came
			// before it is all the buyer was told.
			c.Send("buy spear")
			c.Send("say done")
			outs[i] = c.Expect("You say, 'done'")
		}()
	}
	wg.Wait()
	const got, refused = "You buy a watch spear for 38 gold.", "Brannoc the smith has sold the last of a watch spear; come back after the next restock."
	wins := 0
	for i, out := range outs {
		switch {
		case strings.Contains(out, got):
			wins++
		case !strings.Contains(out, refused):
			t.Errorf("buyer %d was told %q, want %q or %q", i, out, got, refused)
		}
	}
	if wins != 1 {
		t.Fatalf("%d buyers got the one spear: %q", wins, outs)
	}
	ga, ia := stored(t, srv, a, "Ansel")
	gb, ib := stored(t, srv, b, "Berit")
	spears := strings.Count(strings.Join(append(ia, ib...), " "), "emberfall:item:spear")
	if spears != 1 || ga+gb != 200-38 {
		t.Fatalf("the store holds %d spears and %d+%d gold; want 1 spear and %d gold", spears, ga, gb, 200-38)
	}
}

// Bad input at a shop gets a clear line each, and nothing is lost or made:
// buying with exactly the price, with no money, with a count below one or
// past any purse, and selling what one does not have or is wearing.
func TestShop_BadInputOverTelnet(t *testing.T) {
	srv := servertest.Start(t, nil)
	c := trader(t, srv, "Cosmo", 8) // a leather cap costs 8
	for _, tc := range []struct{ line, want string }{
		{"buy -1 cap", "A count to buy is a whole number from 1 to 50."},
		{"buy 0 cap", "A count to buy is a whole number from 1 to 50."},
		{"buy 99999999999999999999 cap", "A count to buy is a whole number from 1 to 50."},
		{"buy 51 cap", "A count to buy is a whole number from 1 to 50."},
		{"buy 2 cap", "2 x a leather cap cost 16 gold; you have 8."},
		{"sell cap", "You do not have that."},
		{"sell all.cap", "You do not have that."},
		{"buy cap", "You buy a leather cap for 8 gold."}, // exactly the price
		{"buy cap", "A leather cap costs 8 gold; you have 0."},
		{"wear cap", "You wear a leather cap."},
		{"sell cap", "You are wearing a leather cap; remove it first."},
		{"sell all", "You carry nothing like that; what you wear, remove first."},
		{"buy 3 unicorn", "Brannoc the smith sells nothing called 'unicorn'."},
		{"sell 99999.cap", "Sell what?"},
	} {
		if out := c.DoExpect(tc.line, "> "); !strings.Contains(out, tc.want) {
			t.Errorf("%s: %q, want %q", tc.line, out, tc.want)
		}
	}
	gold, items := stored(t, srv, c, "Cosmo")
	if gold != 0 || len(items) != 1 || items[0] != "emberfall:item:leather_cap" {
		t.Fatalf("the store holds %d gold and %v; want 0 and the one cap", gold, items)
	}
}
