package page_test

import (
	"context"
	"testing"

	"zonemud/server/servertest"
)

// browser starts a headless Chromium for the test (servertest.Browser: a
// skip without one, a failure with MUD_REQUIRE_BROWSER=1) and returns a
// context for one tab in it.
func browser(t *testing.T) context.Context {
	t.Helper()
	return servertest.Browser(t, 1280, 800)
}
