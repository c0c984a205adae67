package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/internal/logev"
)

// loadHostKey reads the host key at path, or creates an ed25519 one there
// if no file exists. A file that exists but cannot be read as a private key
// is an error: replacing it would change the server's identity, and every
// player's client would warn of an impostor.
func loadHostKey(path string, log *slog.Logger) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		signer, err := gossh.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("sshd: host key %s cannot be read (%w); restore it from a backup, or move it away to make a new one (players will be warned the key changed)", path, err)
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			log.Warn("sshd: the host key file is readable by others; chmod 600 it", logev.ID(3001), "file", path, "mode", fi.Mode().Perm().String())
		}
		return signer, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("sshd: host key %s: %w", path, err)
	}
	signer, err := createHostKey(path)
	if err != nil {
		return nil, err
	}
	log.Info("sshd: a new host key", logev.ID(3002), "file", path, "fingerprint", gossh.FingerprintSHA256(signer.PublicKey()))
	return signer, nil
}

// createHostKey generates an ed25519 key and writes it to path in OpenSSH
// format, mode 0600. It writes a temporary file, syncs it and renames it,
// so a crash leaves either no key or a whole one. The data dir belongs to
// one server at a time (the database lock), so nothing races the rename.
func createHostKey(path string) (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sshd: generate host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "zonemud host key")
	if err != nil {
		return nil, fmt.Errorf("sshd: encode host key: %w", err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".hostkey-*")
	if err != nil {
		return nil, fmt.Errorf("sshd: write host key %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(pem.EncodeToMemory(block))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return nil, fmt.Errorf("sshd: write host key %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable; not every filesystem can
		_ = d.Close()
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("sshd: host key signer: %w", err)
	}
	return signer, nil
}
