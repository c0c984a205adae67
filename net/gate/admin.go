package gate

import (
	"net"
	"net/netip"
	"time"

	"zonemud/world"
)

// What the admin commands see of the gate (world.Ops): every connection,
// and a way to close those a ban catches.

// Sessions lists every open connection.
func (g *Gate) Sessions() []world.SessionInfo {
	g.mu.Lock()
	list := make([]*Session, 0, len(g.sessions))
	for _, s := range g.sessions {
		list = append(list, s)
	}
	g.mu.Unlock()
	out := make([]world.SessionInfo, 0, len(list))
	for _, s := range list {
		out = append(out, s.info())
	}
	return out
}

// Kick closes every connection match picks, line its last output.
func (g *Gate) Kick(match func(world.SessionInfo) bool, line string) int {
	n := 0
	for _, si := range g.Sessions() {
		if !match(si) {
			continue
		}
		g.mu.Lock()
		s := g.sessions[si.ID]
		g.mu.Unlock()
		if s != nil {
			s.Close(line)
			n++
		}
	}
	return n
}

// info describes the session for the admin commands.
func (s *Session) info() world.SessionInfo {
	inf := s.c.info()
	si := world.SessionInfo{
		ID: s.id, Front: s.front, Client: inf.name, Color: s.colorLevel(),
		MCCP: inf.mccp, UTF8: inf.utf8, Reader: inf.screenReader, Width: inf.width,
		Idle: time.Since(time.Unix(0, s.lastRead.Load())), Remote: s.remote.String(), Addr: addrOf(s.remote),
	}
	if n := s.name.Load(); n != nil {
		si.Name = *n
	}
	return si
}

// addrOf is the IP address of a remote address, or the zero Addr.
func addrOf(a net.Addr) netip.Addr {
	if t, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(t.IP)
		return ip.Unmap()
	}
	if a == nil {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}
