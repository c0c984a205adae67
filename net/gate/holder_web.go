package gate

import (
	"net"

	"zonemud/net/boundary"
)

// The holder's web front (net/web over a Holder): the holder serves the
// page and keeps each WebSocket, so a page stays connected through the
// game's restart, exactly as a telnet connection does. The login runs in
// the game as for telnet; a page's Client.Resume goes to the game as
// Resume, and each game that puts the player in their character sends
// the page a fresh token (the tokens live in the game's memory).

// AddressKey is the key the holder's per-address limits count addr under.
func (h *Holder) AddressKey(addr net.Addr) string { return ipKey(h.cfg, addr) }

// Admit counts a new web connection against max_connections and
// max_conns_per_ip, or returns the line that says why it may not open: a
// banned address first, by the game's list (holder_bans.go).
func (h *Holder) Admit(addr net.Addr) string {
	_, why := h.admitAddr(addr)
	return why
}

// Release gives back a connection Admit counted that was never kept.
func (h *Holder) Release(addr net.Addr) { h.release(ipKey(h.cfg, addr)) }

// ServeWeb keeps an admitted gmcp.mudstandards.org connection; it returns
// at once.
func (h *Holder) ServeWeb(l WebLogin) {
	h.hold(newWebConn(l, h.cfg.MaxLine, nil), ipKey(h.cfg, l.Remote), frontWeb)
}

// ServeWebTelnet keeps an admitted telnet.mudstandards.org connection as
// a telnet one; it returns at once.
func (h *Holder) ServeWebTelnet(c net.Conn) {
	h.keep(c, ipKey(h.cfg, c.RemoteAddr()), frontWeb, h.cfg.telnetConfig())
}

// hold starts keeping a connection that needs no opening: attached to the
// linked game, if any, and read from now on.
func (h *Holder) hold(c conn, key, front string) {
	h.take(&held{h: h, id: h.nextID.Add(1), front: front, key: key, c: c}, nil)
}

// resumeFrame is a page's resume ask, for the game (a link too old to
// take it drops it: holderLink.send).
func resumeFrame(id uint64, ev event) boundary.Frame {
	return &boundary.Resume{Session: id, Token: ev.text, Name: ev.pkg}
}
