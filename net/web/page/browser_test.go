package page_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserEnv names the variable that makes a missing browser a failure
// instead of a skip: .ci/run sets it, so CI never passes without the
// page having run in a real browser.
const browserEnv = "MUD_REQUIRE_BROWSER"

// chromiumPath finds a Chromium (Debian's chromium package) or Chrome.
func chromiumPath() string {
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

// browser starts a headless Chromium for the test and returns a context
// for one tab in it. It skips the test when there is no Chromium, or
// fails it when MUD_REQUIRE_BROWSER=1. The deadline is an upper bound on
// a hang, not a measure of speed.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv(browserEnv) == "1" {
			t.Fatalf("no Chromium found (install Debian's chromium package, or set MUD_CHROMIUM), and %s=1", browserEnv)
		}
		t.Skipf("no Chromium found: install Debian's chromium package to run the browser tests (%s=1 makes this a failure)", browserEnv)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 800),
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
	// An uncaught exception in the page, or anything the page's content
	// security policy refused, fails the test, whatever it was doing.
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
		for _, b := range bad {
			t.Errorf("the page said: %s", b)
		}
	})
	return ctx
}
