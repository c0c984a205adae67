package sshd_test

import (
	"strings"
	"testing"

	"zonemud/net/sshd"
)

func TestConfig_Validate(t *testing.T) {
	if err := sshd.DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*sshd.Config)
		key  string
	}{
		{"empty key file", func(c *sshd.Config) { c.HostKeyFile = "" }, "ssh.host_key_file"},
		{"key file path", func(c *sshd.Config) { c.HostKeyFile = "../etc/key" }, "ssh.host_key_file"},
		{"key file dotdot", func(c *sshd.Config) { c.HostKeyFile = ".." }, "ssh.host_key_file"},
		{"auth tries zero", func(c *sshd.Config) { c.MaxAuthTries = 0 }, "ssh.max_auth_tries"},
		{"handshake zero", func(c *sshd.Config) { c.HandshakeTimeoutSecs = 0 }, "ssh.handshake_timeout_secs"},
		{"channels zero", func(c *sshd.Config) { c.MaxChannels = 0 }, "ssh.max_channels"},
		{"channels huge", func(c *sshd.Config) { c.MaxChannels = 1000 }, "ssh.max_channels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sshd.DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), tc.key+":") {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tc.key)
			}
			if _, err := sshd.New(nil, t.TempDir(), c, nil); err == nil {
				t.Fatal("New accepted a bad config")
			}
		})
	}
}
