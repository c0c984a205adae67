package gate

import (
	"net"
	"net/netip"
	"time"

	"zonemud/internal/logev"
	"zonemud/net/boundary"
)

// Address bans behind a copyover holder. The bans live in the game's
// store, but the holder takes every connection, so it refuses a banned
// address itself, before any banner or handshake, as a gate does: the
// game tells it its address bans (boundary.Bans) when it links and again
// after every ban and unban, before the admin is answered, each with the
// line the gate would refuse with. The holder keeps the last list while
// no game is linked (bans change only in a game, so it is still the
// store's, and each ban's end is checked by the clock), and forgets it
// only when a game too old to send one links. Before the first game links
// it has none and refuses nobody: the game checks bans again at every
// login and SSH authentication, so a banned client it let through then
// gets no further.

// holderBan is one address ban as the holder applies it.
type holderBan struct {
	block netip.Prefix
	until time.Time // zero: for ever
	line  string
}

// AddressRefused is the ban line for a client from remote, "" if the
// game's last list bans no block holding it. The SSH front asks it before
// the handshake and at every authentication; the holder's admission asks
// it for every other front.
func (h *Holder) AddressRefused(remote net.Addr) string {
	list := h.bans.Load()
	if list == nil {
		return ""
	}
	a := addrOf(remote)
	if !a.IsValid() {
		return ""
	}
	now := time.Now()
	for _, b := range *list {
		if b.block.Contains(a) && (b.until.IsZero() || now.Before(b.until)) {
			return b.line
		}
	}
	return ""
}

// gotBans takes a Bans frame: its part of the list, and at the last part
// the whole list in place of the old one. Link reader only.
func (lk *holderLink) gotBans(f *boundary.Bans) {
	lk.banParts = append(lk.banParts, f.List...)
	if f.More {
		return
	}
	list := make([]holderBan, 0, len(lk.banParts))
	for _, b := range lk.banParts {
		p, err := netip.ParsePrefix(b.Block) // the frame's decoder checked it
		if err != nil {
			continue
		}
		hb := holderBan{block: p, line: b.Line}
		if b.Expires != 0 {
			hb.until = time.Unix(b.Expires, 0)
		}
		list = append(list, hb)
	}
	lk.banParts = nil
	lk.h.bans.Store(&list)
}

// watchBans sends the holder the game's address bans now and after every
// change, until the returned stop; nothing on a link too old for them.
func (l *gameLink) watchBans(version uint32) (stop func()) {
	if version < boundary.BansVersion {
		return func() {}
	}
	stop = l.g.w.WatchBans(l.sendBans)
	l.sendBans()
	return stop
}

// sendBans queues the game's address bans for the holder. The list is
// read under wmu, so of two sends at once the later carries the newer
// list; and it is queued before the admin's answer to the ban that
// changed it, so the holder has it before the admin reads that answer.
func (l *gameLink) sendBans() {
	l.wmu.Lock()
	var list []boundary.AddressBan
	for _, b := range l.g.w.AddressBans() {
		ab := boundary.AddressBan{Block: b.Block.String(), Line: b.Line}
		if !b.Until.IsZero() {
			ab.Expires = b.Until.Unix()
		}
		list = append(list, ab)
	}
	for {
		n := min(len(list), boundary.MaxBans)
		if err := l.w.Write(&boundary.Bans{More: n < len(list), List: list[:n]}); err != nil {
			l.g.log.Warn("gate: a link frame was refused", logev.ID(2403), "err", err)
		}
		list = list[n:]
		if len(list) == 0 {
			break
		}
	}
	n := l.w.Buffered()
	l.wmu.Unlock()
	_ = l.queued(n)
}
