package sshd

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Config is the [ssh] section of config.toml.
type Config struct {
	// HostKeyFile is the host key's file name inside data_dir. It is
	// created on first start and must never be replaced: clients pin it.
	HostKeyFile string `toml:"host_key_file"`
	// MaxAuthTries is how many failed authentication attempts one
	// connection may make.
	MaxAuthTries int `toml:"max_auth_tries"`
	// HandshakeTimeoutSecs is how long a connection may go without a game
	// session: to finish the SSH handshake and log in, and again after its
	// last session ends.
	HandshakeTimeoutSecs int `toml:"handshake_timeout_secs"`
	// MaxChannels is how many session channels one connection may have
	// open; further opens are refused.
	MaxChannels int `toml:"max_channels"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{
		HostKeyFile:          "ssh_host_ed25519_key",
		MaxAuthTries:         6,
		HandshakeTimeoutSecs: 10,
		MaxChannels:          2,
	}
}

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	name := c.HostKeyFile
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("ssh.host_key_file: must not be empty")
	case name == "." || name == ".." || filepath.Base(name) != name || strings.ContainsAny(name, `/\`):
		return fmt.Errorf("ssh.host_key_file: %q must be a file name inside data_dir, not a path", name)
	}
	type rng struct {
		key       string
		v, lo, hi int
	}
	for _, r := range []rng{
		{"ssh.max_auth_tries", c.MaxAuthTries, 1, 100},
		{"ssh.handshake_timeout_secs", c.HandshakeTimeoutSecs, 1, 3600},
		{"ssh.max_channels", c.MaxChannels, 1, 64},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("%s: %d is out of range %d to %d", r.key, r.v, r.lo, r.hi)
		}
	}
	return nil
}
