package page

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// files is the page's files, named as they are served ("index.html",
// "app.js").
var files = func() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic("page: the embedded folder is missing: " + err.Error())
	}
	return sub
}()

// Files returns the page's files, for tests and tools that list them.
func Files() fs.FS { return files }

// contentSecurityPolicy lets the page load only its own files and open
// WebSockets only to its own host ('self' covers ws: and wss: to the
// same host): game text that somehow became markup could still run
// nothing, load nothing and send nothing elsewhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page: index.html at "/", and each of its files by
// name. Any other path is not found, and only GET and HEAD are answered.
// The web front mounts it beside its WebSocket endpoint.
func Handler() http.Handler {
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if strings.Contains(name, "/") || name == "." {
			http.NotFound(w, r)
			return
		}
		if st, err := fs.Stat(files, name); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// The files change only with the binary: a browser asks again each
		// time (a cheap 304), so an upgraded server never runs an old page.
		h.Set("Cache-Control", "no-cache")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		if name == "index.html" {
			// FileServer redirects /index.html to /; serve the file itself.
			serveIndex(w, r2)
			return
		}
		fileServer.ServeHTTP(w, r2)
	})
}

func serveIndex(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(files, "index.html")
	if err != nil {
		http.Error(w, "page: index.html is missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b)
}
