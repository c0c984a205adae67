package world

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"zonemud/store"
)

// A ban holds until it expires, by name or by any address in its block,
// and an expired one holds nobody.
func TestBans_HoldUntilTheyExpire(t *testing.T) {
	w := testWorld(t)
	now := time.Now().Unix()
	for _, b := range []store.Ban{
		{Kind: store.BanAddress, Target: "203.0.113.0/24", Reason: "bots", By: "Ada", Created: now, Expires: now + 3600},
		{Kind: store.BanAddress, Target: "198.51.100.7/32", By: "Ada", Created: now - 7200, Expires: now - 3600},
		{Kind: store.BanName, Target: "bob", Reason: "cheating", By: "Ada", Created: now},
		{Kind: store.BanAddress, Target: "2001:db8::/32", By: "Ada", Created: now},
	} {
		if err := w.db.PutBan(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.loadBans(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, name string
		banned     bool
	}{
		{"203.0.113.200", "", true},
		{"::ffff:203.0.113.9", "", true},
		{"203.0.114.1", "", false},
		{"198.51.100.7", "", false}, // expired
		{"192.0.2.1", "Bob", true},
		{"192.0.2.1", "Bobby", false},
		{"2001:db8:1::5", "", true},
	} {
		why := w.Banned(netip.MustParseAddr(tc.addr), tc.name)
		if (why != "") != tc.banned {
			t.Errorf("%s %q: banned %q, want banned %v", tc.addr, tc.name, why, tc.banned)
		}
	}
	if why := w.Banned(netip.MustParseAddr("203.0.113.5"), ""); !strings.Contains(why, "until") || !strings.Contains(why, "(bots)") {
		t.Errorf("the line a banned address is told: %q, want its expiry and reason", why)
	}
	for _, bad := range []string{"0.0.0.0/0", "10.0.0.0/7", "::/8", "a b", "x", "$%^"} {
		if _, _, why := parseBanTarget(bad); why == "" {
			t.Errorf("ban target %q accepted", bad)
		}
	}
}
