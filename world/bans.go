package world

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"zonemud/internal/logev"
	"zonemud/store"
)

// Bans are kept in the store and, for the checks at every connection and
// login, in memory: an immutable list the world replaces whole whenever
// an admin bans or unbans, read without a lock.

// loadBans reads the bans from the store into memory.
func (w *World) loadBans() error {
	list, err := w.db.Bans()
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	if testHookBansRead != nil {
		testHookBansRead()
	}
	w.bans.Store(&list)
	return nil
}

// testHookBansRead, when a test sets it, runs between reading the bans
// and keeping them.
var testHookBansRead func()

// writeBans runs write (a ban written to or lifted from the store) and
// reads the bans back, under bansMu, so the list kept in memory is never
// an older read than the last write. An error is write's; a failed read
// back is logged and the old list stays.
// Those told of each change (WatchBans) are told after the lock is let
// go, before writeBans returns: before the admin's ban is answered.
func (w *World) writeBans(write func() error) error {
	w.bansMu.Lock()
	if err := write(); err != nil {
		w.bansMu.Unlock()
		return err
	}
	if err := w.loadBans(); err != nil {
		w.log.Error("world: the bans could not be read back", logev.ID(4702), "err", err)
	}
	w.bansMu.Unlock()
	w.banWatch.tell()
	return nil
}

// banWatchers are the functions WatchBans registered. A leaf lock.
type banWatchers struct {
	mu  sync.Mutex
	n   uint64
	fns map[uint64]func() // guarded by mu
}

func (b *banWatchers) tell() {
	b.mu.Lock()
	fns := slices.Collect(maps.Values(b.fns))
	b.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// WatchBans calls fn after every ban and unban, until stop is called; fn
// reads what it needs (AddressBans) itself: two changes at once may call
// it twice with the newer list. It runs on the goroutine that made the
// change, before the admin is answered, and must not block.
func (w *World) WatchBans(fn func()) (stop func()) {
	b := &w.banWatch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fns == nil {
		b.fns = map[uint64]func(){}
	}
	b.n++
	id := b.n
	b.fns[id] = fn
	return func() {
		b.mu.Lock()
		delete(b.fns, id)
		b.mu.Unlock()
	}
}

// AddressBan is a ban of a block of addresses, for a copyover holder to
// refuse its connections itself.
type AddressBan struct {
	Block netip.Prefix // masked
	Until time.Time    // zero: for ever
	Line  string       // what Banned says to a connection from the block
}

// AddressBans are the address bans in force now, each with the line
// Banned refuses a connection from its block with.
func (w *World) AddressBans() []AddressBan {
	list := w.bans.Load()
	if list == nil {
		return nil
	}
	now := time.Now()
	var out []AddressBan
	for _, b := range *list {
		if b.Kind != store.BanAddress || b.Expired(now) {
			continue
		}
		p, err := netip.ParsePrefix(b.Target)
		if err != nil {
			continue
		}
		ab := AddressBan{Block: p.Masked(), Line: banLine("Your address is banned from this world", b)}
		if b.Expires != 0 {
			ab.Until = time.Unix(b.Expires, 0)
		}
		out = append(out, ab)
	}
	return out
}

// Banned says why a connection from addr (and, once a name is typed, for
// name) is refused by a ban, or "" if it is not. It is for the gate, at
// every connection and login; it reads no store and takes no lock.
func (w *World) Banned(addr netip.Addr, name string) string {
	list := w.bans.Load()
	if list == nil {
		return ""
	}
	addr = addr.Unmap()
	now := time.Now()
	for _, b := range *list {
		if b.Expired(now) {
			continue
		}
		switch b.Kind {
		case store.BanAddress:
			if p, err := netip.ParsePrefix(b.Target); err == nil && addr.IsValid() && p.Contains(addr) {
				return banLine("Your address is banned from this world", b)
			}
		case store.BanName:
			if name != "" && strings.EqualFold(b.Target, name) {
				return banLine(capName(b.Target)+" is banned from this world", b)
			}
		}
	}
	return ""
}

// banLine tells the banned why, and until when.
func banLine(what string, b store.Ban) string {
	s := what
	if b.Expires != 0 {
		s += " until " + time.Unix(b.Expires, 0).UTC().Format("2006-01-02 15:04 UTC")
	}
	if b.Reason != "" {
		s += " (" + b.Reason + ")"
	}
	return s + "."
}

// parseBanTarget reads what an admin typed to ban: an address, a block
// (address/bits), or a character name.
func parseBanTarget(s string) (kind, target, why string) {
	if p, err := netip.ParsePrefix(s); err == nil {
		// A mapped block (::ffff:a.b.c.d/n) is the IPv4 block of n-96
		// bits: unmap it before judging its width, or ::ffff:0.0.0.0/96
		// would ban every IPv4 address.
		if p.Addr().Is4In6() {
			if p.Bits() < 96 {
				return "", "", "That block is too wide to ban; name a /8 or narrower (IPv6: /16)."
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		p = p.Masked()
		if p.Addr().Is4() && p.Bits() < 8 || p.Addr().Is6() && p.Bits() < 16 {
			return "", "", "That block is too wide to ban; name a /8 or narrower (IPv6: /16)."
		}
		return store.BanAddress, p.String(), ""
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return store.BanAddress, netip.PrefixFrom(a, a.BitLen()).String(), ""
	}
	if len(s) < 2 || len(s) > 20 || strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
		return "", "", fmt.Sprintf("%q is neither an address (203.0.113.7), a block (203.0.113.0/24) nor a character name.", s)
	}
	return store.BanName, strings.ToLower(s), ""
}

// matchBan reports whether a connection is caught by a ban of kind and
// target.
func matchBan(kind, target string) func(SessionInfo) bool {
	if kind == store.BanName {
		return func(s SessionInfo) bool { return strings.EqualFold(s.Name, target) }
	}
	p, _ := netip.ParsePrefix(target)
	return func(s SessionInfo) bool { return s.Addr.IsValid() && p.Contains(s.Addr.Unmap()) }
}

func (a admin) Ban(by, target string, expires time.Time, reason string, done func(string)) {
	w := a.w
	w.worker("ban", done, func() string {
		if target == "" {
			return w.listBans()
		}
		kind, key, why := parseBanTarget(target)
		if why != "" {
			return why
		}
		if kind == store.BanName {
			switch {
			case strings.EqualFold(key, by):
				return "You cannot ban yourself."
			case w.roles(key).Admin:
				return capName(key) + " is an admin; revoke that first."
			}
		} else if w.ops != nil {
			match := matchBan(kind, key)
			for _, s := range w.ops.Sessions() {
				if strings.EqualFold(s.Name, by) && match(s) {
					return fmt.Sprintf("That would ban your own address (%s): you would be shut out too.", s.Addr)
				}
			}
		}
		if len(reason) > 200 {
			reason = reason[:200]
		}
		b := store.Ban{Kind: kind, Target: key, Reason: reason, By: by, Created: time.Now().Unix()}
		if !expires.IsZero() {
			b.Expires = expires.Unix()
		}
		if err := w.writeBans(func() error { return w.db.PutBan(b) }); err != nil {
			w.log.Error("world: a ban could not be written", logev.ID(4701), "target", key, "err", err)
			return "The ban could not be written right now; nothing changed."
		}
		closed := 0
		if w.ops != nil {
			closed = w.ops.Kick(matchBan(kind, key), banLine("You are banned from this world", b))
		}
		w.log.Warn("world: admin banned", logev.ID(8110), "by", by, "kind", kind, "target", key, "reason", reason, "expires", expiry(b), "closed", closed)
		what := key
		if kind == store.BanName {
			what = capName(key)
		}
		return fmt.Sprintf("Banned %s %s%s; %d connections closed.", what, expiry(b), reasonPart(reason), closed)
	})
}

func (a admin) Unban(by, target string, done func(string)) {
	w := a.w
	w.worker("unban", done, func() string {
		kind, key, why := parseBanTarget(target)
		if why != "" {
			return why
		}
		err := w.writeBans(func() error { return w.db.DeleteBan(store.Ban{Kind: kind, Target: key}.Key()) })
		switch {
		case err == nil:
		case errors.Is(err, store.ErrNotFound):
			return "There is no ban on " + key + ". ban alone lists them."
		default:
			w.log.Error("world: a ban could not be lifted", logev.ID(4703), "target", key, "err", err)
			return "The ban could not be lifted right now."
		}
		w.log.Warn("world: admin lifted a ban", logev.ID(8111), "by", by, "kind", kind, "target", key)
		return "The ban on " + key + " is lifted."
	})
}

// listBans says what bans hold now.
func (w *World) listBans() string {
	list := w.bans.Load()
	now := time.Now()
	var live []store.Ban
	if list != nil {
		for _, b := range *list {
			if !b.Expired(now) {
				live = append(live, b)
			}
		}
	}
	if len(live) == 0 {
		return "Nobody is banned."
	}
	slices.SortFunc(live, func(a, b store.Ban) int { return strings.Compare(a.Key(), b.Key()) })
	var s strings.Builder
	fmt.Fprintf(&s, "%d bans:", len(live))
	for _, b := range live {
		fmt.Fprintf(&s, "\n  %-20s %s, by %s on %s%s", b.Target, expiry(b), b.By, day(b.Created), reasonPart(b.Reason))
	}
	return s.String()
}

func expiry(b store.Ban) string {
	if b.Expires == 0 {
		return "for ever"
	}
	return "until " + time.Unix(b.Expires, 0).UTC().Format("2006-01-02 15:04 UTC")
}

func reasonPart(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}
