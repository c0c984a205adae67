package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// scripts/release builds a static binary with the version and commit in
// `zonemud version`; started in an empty folder with no areas of its own,
// it serves the starter world it carries. The test builds the host's
// platform only.
func TestRelease_BinaryServesTheStarterWorldFromAnEmptyFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("scripts/release is a POSIX shell script; the Windows binary it builds is checked on Linux and macOS")
	}
	for _, tool := range []string{"sh", "tar", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("scripts/release needs %s: %v", tool, err)
		}
	}
	dist := t.TempDir()
	platform := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("sh", filepath.Join(servertest.Root(), "scripts", "release"), "v9.9.9-test")
	cmd.Dir = servertest.Root()
	cmd.Env = append(os.Environ(), "PLATFORMS="+platform, "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release: %v\n%s", err, out)
	}
	name := fmt.Sprintf("zonemud-v9.9.9-test-%s-%s", runtime.GOOS, runtime.GOARCH)
	archive := filepath.Join(dist, name+".tar.gz")
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-C", unpacked, "-xzf", archive).CombinedOutput(); err != nil {
		t.Fatalf("unpack %s: %v\n%s", archive, err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil || !strings.Contains(string(sums), name+".tar.gz") {
		t.Fatalf("SHA256SUMS does not list the archive: %v\n%s", err, sums)
	}
	bin := filepath.Join(unpacked, name, "zonemud")
	for _, f := range []string{"README.md", "contrib/zonemud.service", "contrib/Dockerfile"} {
		if _, err := os.Stat(filepath.Join(unpacked, name, f)); err != nil {
			t.Errorf("the archive lacks %s", f)
		}
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	head, _ := exec.Command("git", "-C", servertest.Root(), "rev-parse", "--short=12", "HEAD").Output()
	if err != nil || !strings.HasPrefix(string(out), "zonemud v9.9.9-test "+strings.TrimSpace(string(head))) {
		t.Fatalf("zonemud version: %v %q, want the version and commit %s", err, out, head)
	}

	// An empty folder to start in; the ports come from a config elsewhere
	// (the defaults may be taken on a shared machine), which names no
	// areas_dir.
	empty := t.TempDir()
	cfgDir := t.TempDir()
	telnet := freePort(t)
	cfgPath := filepath.Join(cfgDir, "config.toml")
	body := fmt.Sprintf("[server]\ntelnet_addr = %q\nssh_addr = %q\nhttp_addr = %q\nweb_addr = %q\ndata_dir = %q\n[gate]\nargon_memory_kib = 64\nargon_time = 1\n",
		telnet, freePort(t), freePort(t), freePort(t), filepath.Join(empty, "data"))
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	srv := exec.Command(bin, "-config", cfgPath)
	srv.Dir = empty
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = srv.Process.Kill()
		}
	})
	var c *servertest.Client
	for deadline := time.Now().Add(30 * time.Second); ; {
		if conn, err := net.DialTimeout("tcp", telnet, time.Second); err == nil {
			c = servertest.Wrap(t, conn)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the release binary never listened on %s:\n%s", telnet, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Create("Tester", "tester-pass")
	c.DoExpect("look", "Emberfall Square")
	c.Quit()
	if !strings.Contains(logs.String(), "serving the built-in starter world") {
		t.Errorf("the log does not say it serves the built-in world:\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(empty, "data", "zonemud.db")); err != nil {
		t.Errorf("no database in the data folder: %v", err)
	}
}
