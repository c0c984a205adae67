package world

import (
	"net/netip"
	"strings"
	"sync/atomic"
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
	// A mapped block is judged by the IPv4 block it stands for.
	for _, bad := range []string{"0.0.0.0/0", "10.0.0.0/7", "::/8", "::ffff:0.0.0.0/96", "::ffff:1.2.3.4/100", "::ffff:0:0/80", "a b", "x", "$%^"} {
		if _, _, why := parseBanTarget(bad); why == "" {
			t.Errorf("ban target %q accepted", bad)
		}
	}
}

// FuzzParseBanTarget feeds the ban command's target parser what an admin
// might type. Whatever it accepts is a name of letters, or an address block
// in its canonical form that is no wider than the parser allows (an IPv4
// block /8 or narrower, an IPv6 one /16), so that a ban read back from the
// store means what was typed.
func FuzzParseBanTarget(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "203.0.113.0/24", "2001:db8::/32", "::ffff:203.0.113.9",
		"::ffff:1.2.3.4/100", "::ffff:0.0.0.0/96", "10.0.0.0/7", "bob", "Bob", "a b", "fe80::1%eth0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, target, why := parseBanTarget(s)
		if why != "" {
			if kind != "" || target != "" {
				t.Fatalf("%q refused (%s) but still gave %s %q", s, why, kind, target)
			}
			return
		}
		switch kind {
		case store.BanName:
			if len(target) < 2 || len(target) > 20 || strings.Trim(target, "abcdefghijklmnopqrstuvwxyz") != "" {
				t.Fatalf("%q banned as the name %q", s, target)
			}
		case store.BanAddress:
			p, err := netip.ParsePrefix(target)
			if err != nil || p.String() != target || p != p.Masked() {
				t.Fatalf("%q banned as %q, which is not a canonical block (%v)", s, target, err)
			}
			if p.Addr().Is4In6() || p.Addr().Zone() != "" {
				t.Fatalf("%q banned as %q: a mapped or zoned address never matches a connection", s, target)
			}
			if p.Addr().Is4() && p.Bits() < 8 || p.Addr().Is6() && p.Bits() < 16 {
				t.Fatalf("%q banned as %q, wider than the parser allows", s, target)
			}
		default:
			t.Fatalf("%q: kind %q", s, kind)
		}
	})
}

// Two admins banning at once each see their ban hold: the list kept in
// memory is never a read older than the last ban written. The first ban
// is held between reading the list and keeping it while a second ban is
// made; the second cannot be written until the first is kept (then the
// hold waits out its bound, which only slows the test). If it could, the
// test sees it finish during the hold, and the first would keep a list
// without it.
func TestBans_AtOnceBothHold(t *testing.T) {
	w := testWorld(t)
	done := make(chan string, 2)
	second := make(chan struct{})
	var first, raced atomic.Bool
	testHookBansRead = func() {
		if first.Swap(true) {
			return
		}
		go w.Admin().Ban("Bea", "203.0.113.2", time.Time{}, "", func(s string) { done <- s; close(second) })
		select {
		case <-second:
			raced.Store(true) // written and kept while the first held its read
		case <-time.After(2 * time.Second):
		}
	}
	t.Cleanup(func() { testHookBansRead = nil })
	w.Admin().Ban("Ada", "203.0.113.1", time.Time{}, "", func(s string) { done <- s })
	for range 2 {
		if s := <-done; !strings.HasPrefix(s, "Banned") {
			t.Fatalf("a ban answered %q", s)
		}
	}
	if raced.Load() {
		t.Error("a second ban was written while the first was between its read and keeping it")
	}
	for _, a := range []string{"203.0.113.1", "203.0.113.2"} {
		if w.Banned(netip.MustParseAddr(a), "") == "" {
			t.Errorf("%s is banned in the store but let in", a)
		}
	}
}
