package server_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/servertest"
	"zonemud/store"
)

// get makes a real HTTP request to the admin endpoint, with the token if
// it is not empty, and returns the status and body.
func get(t *testing.T, url, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// The admin endpoint serves backups (every password hash) and profiles: it
// binds off loopback only when http_public is set and a token configured,
// and then every request needs the token.
func TestAdmin_OffLoopbackNeedsToken(t *testing.T) {
	const token = "s3cret-admin-token-0123456789"
	for _, tc := range []struct {
		name          string
		public        bool
		token, refuse string
	}{
		{"neither", false, "", "server.http_addr"},
		{"public without token", true, "", "server.http_addr"},
		{"token without public", false, token, "server.http_addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := servertest.Config(t)
			cfg.Server.HTTPAddr = "0.0.0.0:0"
			cfg.Server.HTTPPublic, cfg.Server.AdminToken = tc.public, tc.token
			srv, err := server.Start(cfg, server.Options{Log: slog.New(slog.DiscardHandler)})
			if err == nil {
				t.Cleanup(func() { _ = srv.Shutdown(t.Context()) })
				t.Fatalf("the admin endpoint bound to %s", srv.HTTPAddr())
			}
			if !strings.Contains(err.Error(), tc.refuse) {
				t.Fatalf("refusal %v does not name %s", err, tc.refuse)
			}
		})
	}

	cfg := servertest.Config(t)
	cfg.Server.HTTPAddr = "0.0.0.0:0"
	cfg.Server.HTTPPublic, cfg.Server.AdminToken = true, token
	cfg.Server.Pprof = true
	srv := servertest.Start(t, cfg)
	_, port, _ := net.SplitHostPort(srv.HTTPAddr())
	base := "http://127.0.0.1:" + port // from this machine too: a proxy looks local
	for _, path := range []string{"/backup", "/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/metrics", "/healthz"} {
		if code, body := get(t, base+path, ""); code != http.StatusUnauthorized || strings.Contains(string(body), "zonemud_players") {
			t.Errorf("%s without the token: %d", path, code)
		}
		if code, _ := get(t, base+path, token+"x"); code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d", path, code)
		}
	}
	if code, _ := get(t, base+"/debug/pprof/goroutine?debug=1", token); code != http.StatusOK {
		t.Fatalf("pprof with the token: %d", code)
	}
	code, body := get(t, base+"/backup", token)
	if code != http.StatusOK {
		t.Fatalf("backup with the token: %d", code)
	}
	out := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(out, body, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenReadOnly(out, store.DefaultConfig())
	if err != nil {
		t.Fatalf("the backup over http does not open: %v", err)
	}
	db.Close()
}

// On loopback without a token, the admin endpoint answers as before.
func TestAdmin_LoopbackOpen(t *testing.T) {
	srv := servertest.Start(t, nil)
	if code, body := get(t, "http://"+srv.HTTPAddr()+"/healthz", ""); code != http.StatusOK || !strings.Contains(string(body), "ok") {
		t.Fatalf("healthz: %d %q", code, body)
	}
	if code, _ := get(t, "http://"+srv.HTTPAddr()+"/backup", ""); code != http.StatusOK {
		t.Fatalf("backup: %d", code)
	}
}

// An areas_dir that is a file, not a folder, is an error, not a silent
// fall back to the built-in world.
func TestStart_AreasDirNotAFolder(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = filepath.Join(t.TempDir(), "areas")
	if err := os.WriteFile(cfg.Server.AreasDir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := server.Start(cfg, server.Options{Areas: os.DirFS(filepath.Join(servertest.Root(), "areas")), Log: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "exists but is not a folder") {
		t.Fatalf("got %v, want areas_dir refused", err)
	}
	if _, err := server.FindAreas(cfg, os.DirFS(filepath.Join(servertest.Root(), "areas")), nil); err == nil {
		t.Fatal("FindAreas (zonemud check) accepted it")
	}
}
