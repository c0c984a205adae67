package page_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"zonemud/net/web/page"
)

func get(t *testing.T, h http.Handler, method, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Result()
}

func TestHandler_ServesThePage(t *testing.T) {
	h := page.Handler()
	for _, tc := range []struct{ path, ctype, has string }{
		{"/", "text/html", `<script type="module" src="app.js">`},
		{"/index.html", "text/html", `id="output"`},
		{"/app.js", "text/javascript", "gmcp.mudstandards.org"},
		{"/ansi.js", "text/javascript", "export class AnsiParser"},
		{"/line.js", "text/javascript", "export function splitCommands"},
		{"/style.css", "text/css", "--font-size"},
	} {
		res := get(t, h, http.MethodGet, tc.path)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", tc.path, res.StatusCode)
			continue
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.ctype) {
			t.Errorf("GET %s: Content-Type %q, want %s", tc.path, ct, tc.ctype)
		}
		if !strings.Contains(string(body), tc.has) {
			t.Errorf("GET %s: body lacks %q", tc.path, tc.has)
		}
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", tc.path)
		}
	}
}

func TestHandler_RefusesWhatIsNotThePage(t *testing.T) {
	h := page.Handler()
	for _, path := range []string{"/nope.js", "/static/app.js", "/../page.go", "/a/b", "/%2e%2e/page.go"} {
		if res := get(t, h, http.MethodGet, path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, res.StatusCode)
		}
	}
	if res := get(t, h, http.MethodPost, "/"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d, want 405", res.StatusCode)
	}
	if res := get(t, h, http.MethodHead, "/"); res.StatusCode != http.StatusOK {
		t.Errorf("HEAD /: status %d, want 200", res.StatusCode)
	}
}

// The page is written by us and loads nothing from elsewhere: no CDN, no
// inline script, and game text never goes through innerHTML.
func TestPage_SelfContained(t *testing.T) {
	err := fs.WalkDir(page.Files(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(page.Files(), name)
		if err != nil {
			return err
		}
		s := string(b)
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "//cdn", "src=\"http", "href=\"http", "@import url(http"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
		if strings.HasSuffix(name, ".html") && strings.Contains(s, "<script>") {
			t.Errorf("%s has an inline script (the policy refuses it)", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
