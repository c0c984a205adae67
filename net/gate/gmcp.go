package gate

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"zonemud/internal/logev"
	"zonemud/net/telnet"
)

// maxGMCPPackages caps the packages one client may ask for.
const maxGMCPPackages = 64

// handleGMCP handles what a client sends out of band: Core.Hello and the
// Core.Supports family, which say which packages it wants. Anything else is
// ignored. A payload that is not JSON is refused with a log line.
func (s *Session) handleGMCP(pkg string, data []byte) {
	switch strings.ToLower(pkg) {
	case "core.hello":
		var hello struct {
			Client  string `json:"client"`
			Version string `json:"version"`
		}
		if len(data) > 0 && json.Unmarshal(data, &hello) != nil {
			s.g.log.Debug("gate: a GMCP message from the client does not read", logev.ID(2005), logev.Session(s.id), "pkg", "Core.Hello")
		}
	case "core.supports.set", "core.supports.add", "core.supports.remove":
		var list []string
		if err := json.Unmarshal(data, &list); err != nil {
			s.g.log.Debug("gate: a GMCP message from the client does not read", logev.ID(2005), logev.Session(s.id), "pkg", "Core.Supports", "err", err)
			return
		}
		s.mu.Lock()
		if strings.HasSuffix(strings.ToLower(pkg), ".set") || s.gmcpPkgs == nil {
			s.gmcpPkgs = map[string]bool{}
		}
		remove := strings.HasSuffix(strings.ToLower(pkg), ".remove")
		for _, item := range list {
			name, _, _ := strings.Cut(strings.TrimSpace(item), " ")
			name = strings.ToLower(name)
			if name == "" || len(name) > 64 {
				continue
			}
			if remove {
				delete(s.gmcpPkgs, name)
			} else if len(s.gmcpPkgs) < maxGMCPPackages {
				s.gmcpPkgs[name] = true
			}
		}
		s.gmcpWants = nil
		s.gmcpAny.Store(len(s.gmcpPkgs) > 0)
		s.mu.Unlock()
	case "core.ping":
		s.raw(s.c.gmcpFrame("Core.Ping", nil))
	}
}

// msspFrame is the MSSP answer for listing crawlers.
func (s *Session) msspFrame() []byte {
	g := s.g
	n := g.w.Counts()
	vars := []telnet.MSSPVar{
		{Name: "NAME", Values: []string{g.w.GameName()}},
		{Name: "PLAYERS", Values: []string{strconv.Itoa(g.w.Players())}},
		{Name: "UPTIME", Values: []string{strconv.FormatInt(g.w.Started().Unix(), 10)}},
		{Name: "CODEBASE", Values: []string{"zonemud"}},
		{Name: "FAMILY", Values: []string{"Custom"}},
		{Name: "AREAS", Values: []string{strconv.Itoa(n.Zones)}},
		{Name: "ROOMS", Values: []string{strconv.Itoa(n.Rooms)}},
		{Name: "MOBILES", Values: []string{strconv.Itoa(n.Mobs)}},
		{Name: "OBJECTS", Values: []string{strconv.Itoa(n.Items)}},
		{Name: "HELPFILES", Values: []string{strconv.Itoa(n.Help)}},
		{Name: "ANSI", Values: []string{"1"}},
		{Name: "UTF-8", Values: []string{"1"}},
		{Name: "XTERM 256 COLORS", Values: []string{"1"}},
		{Name: "XTERM TRUE COLORS", Values: []string{"1"}},
		{Name: "GMCP", Values: []string{"1"}},
		{Name: "MCCP", Values: []string{"1"}},
		{Name: "MSDP", Values: []string{"0"}},
		{Name: "MXP", Values: []string{"0"}},
		{Name: "SSL", Values: []string{"0"}},
		{Name: "CRAWL DELAY", Values: []string{"-1"}},
		{Name: "CREATED", Values: []string{strconv.Itoa(g.w.Created().Year())}},
	}
	vars = slices.DeleteFunc(vars, func(v telnet.MSSPVar) bool {
		return slices.ContainsFunc(g.msspExtra, func(x telnet.MSSPVar) bool { return x.Name == v.Name })
	})
	vars = append(vars, g.msspExtra...)
	return telnet.MSSPFrame(vars)
}
