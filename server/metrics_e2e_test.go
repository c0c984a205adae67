package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"zonemud/server"
	"zonemud/server/servertest"
	"zonemud/world"
)

// families is one scrape of /metrics, parsed.
type families map[string]*dto.MetricFamily

func scrape(t *testing.T, addr string) families {
	t.Helper()
	code, body := get(t, "http://"+addr+"/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	return fams
}

// value sums the samples of name whose labels include every k=v pair
// given; for a histogram, the count of observations.
func (f families) value(name string, labels ...string) float64 {
	mf := f[name]
	if mf == nil {
		return -1
	}
	sum := 0.0
	for _, m := range mf.Metric {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, kv []string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		found := false
		for _, l := range m.Label {
			if l.GetName() == kv[i] && l.GetValue() == kv[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// labelValues lists every label value in the scrape.
func (f families) labelValues() []string {
	var out []string
	for _, mf := range f {
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				out = append(out, mf.GetName()+"{"+l.GetName()+"="+l.GetValue()+"}")
			}
		}
	}
	return out
}

// /metrics, scraped during a real run, moves as players log in, walk and
// leave; an instance copy shows under its template and no label anywhere
// carries an instance id.
func TestMetrics_MoveWithPlay(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.HTTPAddr()
	f := scrape(t, addr)
	zones := f.value("zonemud_zones_hosted")
	if f.value("zonemud_players") != 0 || zones < 3 {
		t.Fatalf("at start: players %v, zones hosted %v", f.value("zonemud_players"), zones)
	}
	if got := f.value("zonemud_instances", "template", "sunken_crypt"); got != 0 {
		t.Fatalf("instances of sunken_crypt at start: %v, want 0", got)
	}
	for _, name := range []string{"zonemud_zones_active", "zonemud_zones_dormant", "zonemud_store_bytes", "go_goroutines", "process_resident_memory_bytes"} {
		if f.value(name) < 0 {
			t.Errorf("%s is missing", name)
		}
	}
	if a, d := f.value("zonemud_zones_active"), f.value("zonemud_zones_dormant"); a+d != zones {
		t.Errorf("active %v + dormant %v != hosted %v", a, d, zones)
	}

	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Create("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	f = scrape(t, addr)
	if got := f.value("zonemud_players"); got != 2 {
		t.Errorf("players with two logged in: %v", got)
	}
	if got := f.value("zonemud_logins_total", "front", "telnet"); got != 2 {
		t.Errorf("telnet logins: %v", got)
	}
	if got := f.value("zonemud_sessions", "front", "telnet", "client", "telnet"); got != 2 {
		t.Errorf("telnet sessions of plain telnet clients: %v", got)
	}
	if got := f.value("zonemud_zone_players", "template", "emberfall"); got != 2 {
		t.Errorf("players in emberfall: %v", got)
	}
	trips := f.value("zonemud_command_round_trip_seconds")
	msgs := f.value("zonemud_zone_messages_total", "template", "emberfall")

	for _, dir := range []string{"east", "east", "east"} {
		ada.DoExpect(dir, "Exits:")
	}
	ada.DoExpect("look", "Exits:")
	f = scrape(t, addr)
	if got := f.value("zonemud_command_round_trip_seconds"); got < trips+4 {
		t.Errorf("command round trips: %v after four commands, from %v", got, trips)
	}
	if got := f.value("zonemud_zone_messages_total", "template", "emberfall"); got <= msgs {
		t.Errorf("emberfall's messages did not grow: %v", got)
	}
	if got := f.value("zonemud_zone_players", "template", "ashridge"); got != 1 {
		t.Errorf("players in ashridge after Ada walked there: %v", got)
	}
	if got := f.value("zonemud_output_bytes_total", "front", "telnet"); got <= 0 {
		t.Errorf("telnet output bytes: %v", got)
	}

	// A copy of an instanceable template, hosted as the instance mint
	// will: it counts under its template.
	z, err := srv.World().Host(context.Background(), world.HostSpec{Template: "sunken_crypt", Instance: true})
	if err != nil {
		t.Fatal(err)
	}
	f = scrape(t, addr)
	if got := f.value("zonemud_instances", "template", "sunken_crypt"); got != 1 {
		t.Errorf("instances of sunken_crypt with one copy: %v", got)
	}
	if got := f.value("zonemud_zones_hosted"); got != zones+1 {
		t.Errorf("zones hosted with a copy: %v, want %v", got, zones+1)
	}
	for _, lv := range f.labelValues() {
		if strings.Contains(lv, "#") || strings.Contains(lv, z.ID()) {
			t.Errorf("a label carries an instance id: %s", lv)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.World().Unhost(ctx, z.ID()); err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, addr).value("zonemud_instances", "template", "sunken_crypt"); got != 0 {
		t.Errorf("instances after the copy was unhosted: %v", got)
	}

	ada.Quit()
	bob.Quit()
	// The count follows the farewell by a batch, and the quits' saves are
	// written by the saver after it: wait for both rather than read once.
	srv.World().Flush()
	eventually(t, "no players after both quit", func() bool { return scrape(t, addr).value("zonemud_players") == 0 })
	f = scrape(t, addr)
	if got := f.value("zonemud_saves_committed_total"); got < 2 {
		t.Errorf("saves committed after two quits: %v", got)
	}
	if got := f.value("zonemud_store_commit_duration_seconds"); got < 1 {
		t.Errorf("commit durations observed: %v", got)
	}
}

// /readyz answers 503 once the server is draining, while /healthz still
// says it is alive; before that both answer 200.
func TestReadyz_FailsWhileDraining(t *testing.T) {
	cfg := servertest.Config(t)
	var during struct{ ready, health int }
	var srv *server.Server
	srv, err := server.Start(cfg, server.Options{Log: slog.New(slog.DiscardHandler), BeforeDrain: func() {
		during.ready, _ = get(t, "http://"+srv.HTTPAddr()+"/readyz", "")
		during.health, _ = get(t, "http://"+srv.HTTPAddr()+"/healthz", "")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, "http://"+srv.HTTPAddr()+"/readyz", ""); code != http.StatusOK {
		t.Fatalf("/readyz of a running server: %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if during.ready != http.StatusServiceUnavailable || during.health != http.StatusOK {
		t.Fatalf("while draining: /readyz %d (want 503), /healthz %d (want 200)", during.ready, during.health)
	}
}

// Profiles are served only when the config switches them on.
func TestPprof_OffByDefault(t *testing.T) {
	srv := servertest.Start(t, nil)
	if code, _ := get(t, "http://"+srv.HTTPAddr()+"/debug/pprof/goroutine?debug=1", ""); code != http.StatusNotFound {
		t.Fatalf("pprof with pprof = false: %d, want 404", code)
	}
	cfg := servertest.Config(t)
	cfg.Server.Pprof = true
	srv = servertest.Start(t, cfg)
	if code, _ := get(t, "http://"+srv.HTTPAddr()+"/debug/pprof/goroutine?debug=1", ""); code != http.StatusOK {
		t.Fatalf("pprof with pprof = true: %d, want 200", code)
	}
}

// Scraping /metrics as fast as a flood of clients can is answered, past
// the rate, with 429 at once: the scrapes served stay within the limit,
// and players play on.
func TestMetrics_ScrapeFloodIsLimited(t *testing.T) {
	srv := servertest.Start(t, nil)
	pl := servertest.Dial(t, srv.TelnetAddr())
	pl.Create("Ada", "secret-ada")
	const workers, each = 8, 40
	var mu sync.Mutex
	codes := map[int]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for range each {
				resp, err := client.Get("http://" + srv.HTTPAddr() + "/metrics")
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	for code := range codes {
		if code != http.StatusOK && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			t.Errorf("a scrape got %d", code)
		}
	}
	t.Logf("%d scrapes in %.2fs: %v", workers*each, elapsed, codes)
	// A token bucket of 10 a second, 10 deep, lets through at most this.
	if limit := 10 + 10*elapsed + 1; float64(codes[http.StatusOK]) > limit {
		t.Errorf("%d scrapes served in %.1fs, past the limit of %.0f", codes[http.StatusOK], elapsed, limit)
	}
	if codes[http.StatusTooManyRequests] == 0 {
		t.Errorf("no scrape was refused: %v", codes)
	}
	pl.DoExpect("look", "Exits:")
}

// A scraper that sends its request and never reads the answer holds only
// its own request: other scrapes and players go on, and its connection is
// dropped when the server gives up on it.
func TestMetrics_ScraperThatNeverReads(t *testing.T) {
	srv := servertest.Start(t, nil)
	pl := servertest.Dial(t, srv.TelnetAddr())
	pl.Create("Ada", "secret-ada")
	var stuck []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", srv.HTTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetReadBuffer(1024)
		if _, err := c.Write([]byte("GET /metrics HTTP/1.1\r\nHost: zonemud\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		stuck = append(stuck, c)
	}
	defer func() {
		for _, c := range stuck {
			c.Close()
		}
	}()
	pl.DoExpect("look", "Exits:")
	// Once the refill allows, an ordinary scrape is served.
	deadline := time.Now().Add(servertest.ExpectTimeout)
	for {
		code, _ := get(t, "http://"+srv.HTTPAddr()+"/metrics", "")
		if code == http.StatusOK {
			break
		}
		if code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			t.Fatalf("a scrape beside the stuck ones got %d", code)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scrape was served beside the stuck ones (last %d)", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	pl.DoExpect("say still here", "You say, 'still here'")
}
