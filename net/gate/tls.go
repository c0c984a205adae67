package gate

import (
	"bufio"
	"crypto/tls"
	"log/slog"
	"net"
	"os"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/run"
)

// ServeTelnetTLS accepts telnet over TLS on l. A client that speaks plain
// telnet to this port gets one line saying so, instead of a TLS error it
// cannot read.
func (g *Gate) ServeTelnetTLS(l net.Listener, cfg *tls.Config, plainPort string) error {
	if !g.addListener(l) {
		return nil
	}
	tc := g.cfg.telnetConfig()
	return acceptLoop(l, &g.stopping, g.log, frontTLS, func(raw net.Conn) {
		if why := g.admit(raw.RemoteAddr()); why != "" {
			_ = raw.Close()
			return
		}
		g.gr.GoWith(tlsLabels, func() {
			c, ok := startTLS(raw, cfg, plainPort, g.log)
			if !ok {
				g.conns.Add(-1)
				g.byIP.Done(g.ipKey(raw.RemoteAddr()))
				return
			}
			g.run(raw.RemoteAddr(), frontTLS, func(s *Session) conn { return newTelnetConn(c, tc, s.raw) }, nil, true)
		})
	})
}

// tlsLabels mark a TLS connection's first goroutine in profiles: its
// handshake and login.
var tlsLabels = run.NewLabels("session", "tls")

// startTLS looks at the first byte: a TLS client speaks first, with a
// handshake record (0x16). Anything else, or silence for two seconds (a
// plain telnet client waits for the server), is a plain client on the
// wrong port.
func startTLS(raw net.Conn, cfg *tls.Config, plainPort string, log *slog.Logger) (net.Conn, bool) {
	_ = raw.SetDeadline(time.Now().Add(2 * time.Second))
	br := bufio.NewReaderSize(raw, 16)
	first, err := br.Peek(1)
	if err != nil && !os.IsTimeout(err) {
		_ = raw.Close()
		return nil, false
	}
	_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
	if err != nil || first[0] != 0x16 {
		msg := "This port speaks telnet over TLS. Use a client with TLS turned on"
		if plainPort != "" {
			msg += ", or plain telnet on port " + plainPort
		}
		_, _ = raw.Write([]byte(msg + ".\r\n"))
		_ = raw.Close()
		return nil, false
	}
	tc := tls.Server(&peeked{Conn: raw, r: br}, cfg)
	if err := tc.Handshake(); err != nil {
		log.Debug("gate: a TLS handshake failed", logev.ID(2002), logev.Remote(raw.RemoteAddr().String()), "err", err)
		_ = raw.Close()
		return nil, false
	}
	_ = raw.SetDeadline(time.Time{})
	return tc, true
}

// peeked is a conn whose first bytes were read into a buffer.
type peeked struct {
	net.Conn
	r *bufio.Reader
}

func (p *peeked) Read(b []byte) (int, error) { return p.r.Read(b) }
