package gate_test

import (
	"net"
	"strings"
	"testing"

	"zonemud/net/gate"
	"zonemud/server/servertest"
)

func tcp(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000} }

// An IPv6 address counts as its block of ipv6_prefix bits, an IPv4 one
// (mapped into IPv6 or not) as itself.
func TestLimits_IPv6Key(t *testing.T) {
	for _, c := range []struct {
		bits   int
		a, b   string
		shared bool
	}{
		{64, "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", true},
		{64, "2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{128, "2001:db8:1:2::1", "2001:db8:1:2::2", false},
		{48, "2001:db8:1:2::1", "2001:db8:1:ffff::1", true},
		{64, "192.0.2.1", "::ffff:192.0.2.1", true},
		{64, "192.0.2.1", "192.0.2.2", false},
	} {
		cfg := gate.DefaultConfig()
		cfg.IPv6Prefix = c.bits
		g := gate.NewForTest(cfg)
		ka, kb := g.IPKeyForTest(tcp(c.a)), g.IPKeyForTest(tcp(c.b))
		if (ka == kb) != c.shared || ka == "" {
			t.Errorf("/%d: %s counts as %q, %s as %q; want shared %v", c.bits, c.a, ka, c.b, kb, c.shared)
		}
	}
}

// Every address of one /64 is one address to the per-address limits: the
// connection cap and the shut-out after failed logins (over SSH's way in
// here) count the block once, and another /64 is untouched.
func TestLimits_IPv6BlockCountedOnce(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Gate.MaxConnsPerIP = 2
	cfg.Gate.MaxLoginFailures = 3
	srv := servertest.Start(t, cfg)
	owner := servertest.Dial(t, srv.TelnetAddr())
	owner.Create("Owner", "owner-pass")
	owner.Quit()
	g := srv.Gate()

	block := []string{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::3"}
	other := "2001:db8:1:3::1"
	for _, a := range block[:2] {
		why, release := g.AdmitForTest(tcp(a))
		if why != "" {
			t.Fatalf("connection from %s refused: %q", a, why)
		}
		defer release()
	}
	if why, release := g.AdmitForTest(tcp(block[2])); !strings.Contains(why, "Too many connections from your address") {
		if release != nil {
			release()
		}
		t.Fatalf("a third connection from the /64: %q, want refused by max_conns_per_ip", why)
	}
	why, release := g.AdmitForTest(tcp(other))
	if why != "" {
		t.Fatalf("a connection from another /64 refused: %q", why)
	}
	release()

	for _, a := range block {
		if g.CheckPassword("Owner", "wrong", tcp(a)) {
			t.Fatalf("a wrong password from %s opened the account", a)
		}
	}
	if why := g.AddressRefused(tcp("2001:db8:1:2:abcd::9")); why == "" {
		t.Fatal("a fresh address of the /64 that failed three times is not shut out")
	}
	if why := g.AddressRefused(tcp(other)); why != "" {
		t.Fatalf("another /64 is shut out: %q", why)
	}
	if !g.CheckPassword("Owner", "owner-pass", tcp(other)) {
		t.Fatal("the owner's right password from another /64 was refused")
	}
}
