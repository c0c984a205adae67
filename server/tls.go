package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"zonemud/internal/logev"
	"zonemud/server/config"
)

// tlsConfig loads the certificate and key the config names, or, when it
// names none, a self-signed pair kept in the data dir (made on first use).
func tlsConfig(certFile, keyFile, dataDir, host string, log *slog.Logger) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		certFile = filepath.Join(dataDir, "tls_cert.pem")
		keyFile = filepath.Join(dataDir, "tls_key.pem")
		if _, err := os.Stat(certFile); os.IsNotExist(err) {
			if err := selfSigned(certFile, keyFile, host); err != nil {
				return nil, err
			}
			log.Info("server: new self-signed TLS certificate", logev.ID(1110), "cert", certFile, "key", keyFile)
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("server: TLS certificate %s / key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// selfSigned writes a new ECDSA P-256 certificate valid for ten years.
func selfSigned(certFile, keyFile, host string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("server: TLS key: %w", err)
	}
	if host == "" {
		host = "localhost"
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"zonemud"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{host},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("server: TLS certificate: %w", err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(certFile), 0o750); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

// TLSConfig is the TLS configuration for cfg's certificate, as Start makes
// it (a self-signed pair in the data folder when none is named): for a
// copyover holder, which terminates telnet over TLS itself.
func TLSConfig(cfg *config.Config, log *slog.Logger) (*tls.Config, error) {
	return tlsConfig(cfg.Server.TLSCert, cfg.Server.TLSKey, cfg.Server.DataDir, cfg.Server.Hostname, log)
}
