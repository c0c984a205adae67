package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestReadProc(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "4242")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A command name with spaces and a parenthesis, as a process may have.
	stat := "4242 (zone mud) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 130 0 0 20 0 12 0 100 1000000 5000 18446744073709551615\n"
	status := "Name:\tzonemud\nVmPeak:\t  200000 kB\nVmRSS:\t   81920 kB\nRssAnon:\t   61440 kB\nRssFile:\t   20480 kB\nThreads:\t12\n"
	os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)
	os.WriteFile(filepath.Join(dir, "status"), []byte(status), 0o644)
	s, err := readProc(root, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3800 * time.Millisecond; s.cpu != want {
		t.Errorf("cpu: got %v, want %v", s.cpu, want)
	}
	if want := int64(81920) << 10; s.rss != want {
		t.Errorf("rss: got %d, want %d", s.rss, want)
	}
	if want := int64(61440) << 10; s.anon != want {
		t.Errorf("anon: got %d, want %d", s.anon, want)
	}
	// A kernel that does not split the resident set: anon unknown.
	os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tzonemud\nVmRSS:\t   81920 kB\n"), 0o644)
	if s, err := readProc(root, 4242); err != nil || s.anon != -1 || s.rss != int64(81920)<<10 {
		t.Errorf("without RssAnon: %+v, %v; want rss and anon -1", s, err)
	}
	if _, err := readProc(root, 1); err == nil {
		t.Error("no error for a missing process")
	}
}

const metricsText = `# HELP zonemud_pulse_lateness_worst_seconds The worst pulse lateness since the last scrape, per template.
# TYPE zonemud_pulse_lateness_worst_seconds gauge
zonemud_pulse_lateness_worst_seconds{template="emberfall"} 0.0123
zonemud_pulse_lateness_worst_seconds{template="ashridge"} 0.0004
zonemud_pulse_lateness_seconds_bucket{template="emberfall",le="0.001"} 100
zonemud_pulse_lateness_seconds_bucket{template="emberfall",le="0.005"} 195
zonemud_pulse_lateness_seconds_bucket{template="emberfall",le="0.025"} 200
zonemud_pulse_lateness_seconds_bucket{template="emberfall",le="+Inf"} 200
zonemud_players 12
zonemud_output_writes_total{front="telnet"} 900
zonemud_output_writes_total{front="ssh"} 100
zonemud_output_lines_total{front="telnet"} 8000
zonemud_output_lines_total{front="tls"} 1000`

func TestParseMetricsAndLateness(t *testing.T) {
	first, err := parseMetrics(strings.NewReader(metricsText))
	if err != nil {
		t.Fatal(err)
	}
	if got := first.worst["emberfall"]; got != 0.0123 {
		t.Errorf("worst emberfall: got %v", got)
	}
	if got := first.hist["emberfall"][0.005]; got != 195 {
		t.Errorf("bucket le=0.005: got %d", got)
	}
	// A second read 300 pulses later: 290 within 1 ms, 6 within 5 ms, 4 later:
	// the 297th (the 99th percentile) is in the 25 ms bucket.
	second, _ := parseMetrics(strings.NewReader(strings.NewReplacer(
		`le="0.001"} 100`, `le="0.001"} 390`,
		`le="0.005"} 195`, `le="0.005"} 491`,
		`le="0.025"} 200`, `le="0.025"} 500`,
		`le="+Inf"} 200`, `le="+Inf"} 500`,
		`0.0123`, `0.02`,
	).Replace(metricsText)))
	zl := latenessOver([]scrape{first, second})
	if len(zl) != 2 || zl[0].Zone != "emberfall" {
		t.Fatalf("zones: got %+v", zl)
	}
	if zl[0].Worst != 20*time.Millisecond {
		t.Errorf("worst: got %v, want 20ms (the first read only resets)", zl[0].Worst)
	}
	if zl[0].Pulses != 300 || zl[0].P99 != 25*time.Millisecond {
		t.Errorf("p99: got %v of %d pulses, want 25ms of 300", zl[0].P99, zl[0].Pulses)
	}
	second.bursts, second.lines = 1500, 19000
	if w, l := outputOver([]scrape{first, second}); w != 500 || l != 10000 {
		t.Errorf("output over the window: %d writes, %d lines; want 500, 10000", w, l)
	}
	if zl[1].Pulses != 0 {
		t.Errorf("a zone without a histogram has pulses %d", zl[1].Pulses)
	}
	old, _ := parseMetrics(strings.NewReader("zonemud_zone_pulse_lateness_seconds{zone=\"emberfall\"} 0.5\n"))
	if old.worst["emberfall"] != 0.5 || old.bursts != -1 {
		t.Errorf("an older server's metrics: worst %v, writes %d", old.worst, old.bursts)
	}
	if first.bursts != 1000 || first.lines != 9000 {
		t.Errorf("writes and lines summed over fronts: %d, %d", first.bursts, first.lines)
	}
}

// The zones' flushes by cause are read from /metrics, taken over the
// window, and reported in a fixed order with each cause's share; a server
// that does not count them has none, and the report leaves the line out.
func TestFlushesByCause(t *testing.T) {
	text := func(answer, talk, news int) string {
		return metricsText + "\n" + strings.Join([]string{
			`zonemud_zone_flushes_total{cause="news"} ` + strconv.Itoa(news),
			`zonemud_zone_flushes_total{cause="answer"} ` + strconv.Itoa(answer),
			`zonemud_zone_flushes_total{cause="talk"} ` + strconv.Itoa(talk),
			`zonemud_zone_flushes_total{cause="gathered"} 7`,
			// Samples a server of ours does not write: no number, no cause.
			`zonemud_zone_flushes_total{cause="talk"} many`,
			`zonemud_zone_flushes_total 99`,
		}, "\n")
	}
	first, err := parseMetrics(strings.NewReader(text(100, 50, 10)))
	if err != nil {
		t.Fatal(err)
	}
	second, err := parseMetrics(strings.NewReader(text(600, 350, 110)))
	if err != nil {
		t.Fatal(err)
	}
	by := flushesOver([]scrape{first, second})
	if len(by) != 4 || by["answer"] != 500 || by["talk"] != 300 || by["news"] != 100 || by["gathered"] != 0 {
		t.Fatalf("flushes over the window: %v, want answer 500, talk 300, news 100, gathered 0", by)
	}
	if got, want := flushesText(by), "zone flushes by cause: answer 500 (56%), talk 300 (33%), gathered 0 (0%), news 100 (11%)\n"; got != want {
		t.Errorf("report line:\n got %q\nwant %q", got, want)
	}
	old, _ := parseMetrics(strings.NewReader(metricsText))
	if by := flushesOver([]scrape{old, old}); by != nil {
		t.Errorf("a server without the counter: flushes %v, want none", by)
	}
	s := Summary{Server: &Server{Writes: -1, Lines: -1}}
	if strings.Contains(s.Text(), "zone flushes") {
		t.Error("the report has a flushes line for a server that does not count them")
	}
}
