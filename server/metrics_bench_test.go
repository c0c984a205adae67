package server

import (
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/common/expfmt"

	"os"
	"path/filepath"

	"zonemud/server/config"
)

// BenchmarkMetrics_Scrape is the CPU cost of one scrape of /metrics on an
// idle server, past the HTTP layer: gathering every collector and
// writing the text format (docs/PERFORMANCE.md).
func BenchmarkMetrics_Scrape(b *testing.B) {
	def, _ := os.ReadFile("../config.toml")
	cfg, err := config.Load(def, "")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Server.TelnetAddr, cfg.Server.SSHAddr, cfg.Server.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	cfg.Server.DataDir, cfg.Server.AreasDir = b.TempDir(), filepath.Join("..", "areas")
	srv, err := Start(cfg, Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown(b.Context())
	b.ReportAllocs()
	for b.Loop() {
		mfs, err := srv.registry.Gather()
		if err != nil {
			b.Fatal(err)
		}
		enc := expfmt.NewEncoder(io.Discard, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				b.Fatal(err)
			}
		}
	}
}
