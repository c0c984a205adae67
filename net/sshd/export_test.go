package sshd

import (
	"net"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// AuthConfig is the x/crypto configuration a connection gets, so a test
// can drive its callbacks as a client would that changes its user name
// between attempts (which x/crypto's own client cannot do).
func (s *Server) AuthConfig() *gossh.ServerConfig { return s.serverConfig(nil) }

// Identify is identify for tests: whether the session would be
// authenticated, by which method, or why it is refused.
func (s *Server) Identify(user string, p *gossh.Permissions) (bool, string, error) {
	id, err := s.identify(user, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, p, nil)
	return id.authenticated, id.method, err
}

// SetWriteStall shortens writeStall; call it before Serve.
func (s *Server) SetWriteStall(d time.Duration) { s.stall = d }
