package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/servertest"
)

// lockedBuf is a log sink the server's goroutines may write at once.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// raw sends one request over a real TCP connection exactly as written
// (a Go client would not send an empty Host) and returns the status code.
func raw(t *testing.T, addr, req string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func startAdmin(t *testing.T, now func() time.Time) (*server.Server, *lockedBuf) {
	t.Helper()
	logs := &lockedBuf{}
	srv, err := server.Start(servertest.Config(t), server.Options{Log: slog.New(slog.NewTextHandler(logs, nil)), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv, logs
}

// A page in a browser on the server's machine can reach the admin
// address by DNS rebinding, under its own name: every Host but the
// configured address and the localhost names is refused, and so is a
// browser's cross-origin save or backup.
func TestAdmin_ForeignHostAndOriginRefused(t *testing.T) {
	srv, logs := startAdmin(t, nil)
	addr := srv.HTTPAddr()
	_, port, _ := net.SplitHostPort(addr)
	for _, host := range []string{"attacker.example", "attacker.example:" + port, "127.0.0.1.nip.io:" + port, "localhost.attacker.example:" + port, "127.0.0.1:1", ""} {
		for _, path := range []string{"GET /backup", "POST /save", "GET /metrics", "GET /readyz"} {
			req := fmt.Sprintf("%s HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", path, host)
			if code := raw(t, addr, req); code != http.StatusMisdirectedRequest {
				t.Errorf("%s with Host %q: %d, want 421", path, host, code)
			}
		}
	}
	if code := raw(t, addr, "GET /backup HTTP/1.0\r\n\r\n"); code == http.StatusOK {
		t.Errorf("GET /backup with no Host at all: %d", code)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		if code := raw(t, addr, "GET /readyz HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); code != http.StatusOK {
			t.Errorf("readyz with Host %q: %d", host, code)
		}
	}

	for _, h := range []string{"Origin: http://attacker.example", "Origin: null", "Origin: http://127.0.0.1.nip.io:" + port, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Site: same-site"} {
		for _, path := range []string{"GET /backup", "POST /save"} {
			req := fmt.Sprintf("%s HTTP/1.1\r\nHost: %s\r\n%s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", path, addr, h)
			if code := raw(t, addr, req); code != http.StatusForbidden {
				t.Errorf("%s with %s: %d, want 403", path, h, code)
			}
		}
	}
	if strings.Contains(logs.String(), "backup was taken") {
		t.Fatal("a refused request was logged as a backup taken")
	}
	req := fmt.Sprintf("POST /save HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\nSec-Fetch-Site: same-origin\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", addr, addr)
	if code := raw(t, addr, req); code != http.StatusOK {
		t.Fatalf("a same-origin save: %d", code)
	}
	if code, _ := get(t, "http://"+addr+"/backup", ""); code != http.StatusOK {
		t.Fatalf("a backup from a client that is not a browser: %d", code)
	}
	if !strings.Contains(logs.String(), "backup was taken") || !strings.Contains(logs.String(), "remote=127.0.0.1:") {
		t.Fatalf("the backup taken is not logged with its remote address:\n%s", logs.String())
	}
}

// Backups and saves are rate limited as scrapes are: with the clock
// stopped, the burst passes and the next is refused with Retry-After,
// until the clock moves on.
func TestAdmin_BackupRateLimited(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	srv, _ := startAdmin(t, now)
	url := "http://" + srv.HTTPAddr() + "/backup"
	for i := range 3 {
		if code, _ := get(t, url, ""); code != http.StatusOK {
			t.Fatalf("backup %d of the burst: %d", i+1, code)
		}
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("backup past the burst: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	mu.Lock()
	clock = clock.Add(time.Minute)
	mu.Unlock()
	if code, _ := get(t, url, ""); code != http.StatusOK {
		t.Fatalf("backup once the clock moved on: %d", code)
	}
}
