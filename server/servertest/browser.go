package servertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BrowserEnv names the variable that makes a missing browser a failure
// instead of a skip: .ci/run sets it, so CI never passes without the
// web client having run in a real browser.
const BrowserEnv = "MUD_REQUIRE_BROWSER"

// ArtifactsEnv names the directory a test saves what CI keeps from a run
// (the web client's screenshots). .ci/run sets it; unset, nothing is
// saved.
const ArtifactsEnv = "ARTIFACTS_DIR"

// ChromiumPath finds a Chromium (Debian's chromium package) or Chrome:
// MUD_CHROMIUM if set, else the first on PATH.
func ChromiumPath() string {
	if p := os.Getenv("MUD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser starts a headless Chromium for the test, its window width by
// height CSS pixels, and returns a context for one tab in it. It skips
// the test when there is no Chromium, or fails it when
// MUD_REQUIRE_BROWSER=1. The deadline is an upper bound on a hang, not a
// measure of speed. An uncaught exception in the page, or anything its
// content security policy refused, fails the test.
func Browser(t testing.TB, width, height int) context.Context {
	t.Helper()
	path := ChromiumPath()
	if path == "" {
		if os.Getenv(BrowserEnv) == "1" {
			t.Fatalf("no Chromium found (install Debian's chromium package, or set MUD_CHROMIUM), and %s=1", BrowserEnv)
		}
		t.Skipf("no Chromium found: install Debian's chromium package to run the browser tests (%s=1 makes this a failure)", BrowserEnv)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	var (
		mu   sync.Mutex
		bad  []string
		done = make(chan struct{})
	)
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				mu.Lock()
				bad = append(bad, m.String())
				mu.Unlock()
			}
			t.Logf("console: %s", m)
		}
	}()
	t.Cleanup(func() {
		cancelTab()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("the page said: %s", b)
		}
	})
	return ctx
}

// SaveArtifact writes data as name in ARTIFACTS_DIR, if it is set, and
// logs where; unset, it logs that nothing was kept.
func SaveArtifact(t testing.TB, name string, data []byte) {
	t.Helper()
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		t.Logf("%s is not set: %s (%d bytes) is not kept", ArtifactsEnv, name, len(data))
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s", p)
}
