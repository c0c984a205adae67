package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat. Linux reports them
// in USER_HZ, which is 100 on every architecture Go supports.
const userHZ = 100

// procSample is what /proc says about the server process at one moment.
type procSample struct {
	cpu time.Duration // user + system time used so far
	rss int64         // resident set, bytes
	// anon is the anonymous part of rss (heap, stacks): rss less the
	// pages of mapped files, such as the server's database; -1 if the
	// kernel does not say.
	anon int64
}

// readProc reads the CPU time and resident set of pid from the proc file
// system rooted at root ("/proc").
func readProc(root string, pid int) (procSample, error) {
	var s procSample
	stat, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", root, pid))
	if err != nil {
		return s, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after the last ')' start with field 3 (state).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return s, fmt.Errorf("loadbot: %s/%d/stat: no command name", root, pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	// utime and stime are fields 14 and 15: indexes 11 and 12 from state.
	if len(f) < 13 {
		return s, fmt.Errorf("loadbot: %s/%d/stat: %d fields after the name", root, pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return s, fmt.Errorf("loadbot: %s/%d/stat: %w", root, pid, err)
	}
	s.cpu = time.Duration(ut+st) * time.Second / userHZ
	status, err := os.ReadFile(fmt.Sprintf("%s/%d/status", root, pid))
	if err != nil {
		return s, err
	}
	s.rss, s.anon = -1, -1
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "RssAnon") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return s, fmt.Errorf("loadbot: %s/%d/status: %s: %w", root, pid, key, err)
		}
		if key == "VmRSS" {
			s.rss = kb << 10
		} else {
			s.anon = kb << 10
		}
	}
	if s.rss < 0 {
		return s, fmt.Errorf("loadbot: %s/%d/status: no VmRSS", root, pid)
	}
	return s, nil
}

// Metric names read from the server's /metrics.
// Zone series are labelled by template; the output counters by front, and
// are summed here.
//
// Older servers name the worst lateness zonemud_zone_pulse_lateness_seconds,
// labelled by zone, and count no output; their lateness is read too.
const (
	metricLateness     = "zonemud_pulse_lateness_worst_seconds"
	metricLatenessOld  = "zonemud_zone_pulse_lateness_seconds"
	metricLatenessHist = "zonemud_pulse_lateness_seconds_bucket"
	metricBursts       = "zonemud_output_writes_total"
	metricLines        = "zonemud_output_lines_total"
	metricFlushes      = "zonemud_zone_flushes_total"
)

// scrape is one read of the server's /metrics: the worst pulse lateness of
// each zone since the previous read, and, where the server has it, each
// zone's cumulative lateness histogram.
type scrape struct {
	worst map[string]float64           // zone -> seconds
	hist  map[string]map[float64]int64 // zone -> upper bound (seconds) -> count of pulses at or below it
	// bursts and lines are the server's output counters: writes to
	// sockets, and the lines of text they carried (-1 if absent).
	bursts, lines int64
	// flushes is the zones' flushes of players' output by cause (nil if
	// the server does not count them).
	flushes map[string]int64
}

// fetchMetrics reads url with a short timeout.
func fetchMetrics(ctx context.Context, url string) (scrape, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return scrape{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return scrape{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return scrape{}, fmt.Errorf("loadbot: %s: %s", url, resp.Status)
	}
	return parseMetrics(resp.Body)
}

// parseMetrics picks the lateness series out of the Prometheus text format.
func parseMetrics(r io.Reader) (scrape, error) {
	s := scrape{worst: map[string]float64{}, hist: map[string]map[float64]int64{}, bursts: -1, lines: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, labels, value, ok := splitSample(line)
		if !ok {
			continue
		}
		switch name {
		case metricLateness, metricLatenessOld:
			v, err := strconv.ParseFloat(value, 64)
			if err == nil {
				s.worst[zoneLabel(labels)] = v
			}
		case metricBursts, metricLines:
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				continue
			}
			sum := &s.bursts
			if name == metricLines {
				sum = &s.lines
			}
			*sum = max(*sum, 0) + int64(f)
		case metricFlushes:
			f, err := strconv.ParseFloat(value, 64)
			if err != nil || labels["cause"] == "" {
				continue
			}
			if s.flushes == nil {
				s.flushes = map[string]int64{}
			}
			s.flushes[labels["cause"]] += int64(f)
		case metricLatenessHist:
			le, err1 := strconv.ParseFloat(labels["le"], 64)
			n, err2 := strconv.ParseInt(value, 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			z := labels["template"]
			if s.hist[z] == nil {
				s.hist[z] = map[float64]int64{}
			}
			s.hist[z][le] = int64(n)
		}
	}
	return s, sc.Err()
}

// zoneLabel is a series' zone: its template label, or an older server's
// zone label.
func zoneLabel(labels map[string]string) string {
	if t, ok := labels["template"]; ok {
		return t
	}
	return labels["zone"]
}

// splitSample splits `name{k="v",...} value` (no escapes in our labels).
func splitSample(line string) (name string, labels map[string]string, value string, ok bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return "", nil, "", false
	}
	head, value := line[:sp], line[sp+1:]
	labels = map[string]string{}
	if i := strings.IndexByte(head, '{'); i >= 0 {
		if !strings.HasSuffix(head, "}") {
			return "", nil, "", false
		}
		for _, kv := range strings.Split(head[i+1:len(head)-1], ",") {
			k, v, found := strings.Cut(kv, "=")
			if !found {
				continue
			}
			labels[k] = strings.Trim(v, `"`)
		}
		head = head[:i]
	}
	return head, labels, value, true
}

// ZoneLateness is one zone's pulse lateness over the measured window.
type ZoneLateness struct {
	Zone  string
	Worst time.Duration // the worst pulse of the window
	// P99 is the 99th percentile of the window's pulses, as the upper
	// bound of the histogram bucket that holds it; 0 if the server has no
	// histogram. Pulses is how many the window had.
	P99    time.Duration
	Pulses int64
}

// latenessOver merges the window's scrapes: worst of the worst, and the
// histogram's growth from the first scrape to the last.
func latenessOver(scrapes []scrape) []ZoneLateness {
	if len(scrapes) == 0 {
		return nil
	}
	worst := map[string]float64{}
	// The first scrape only resets the server's "since the last read".
	for _, s := range scrapes[1:] {
		for z, v := range s.worst {
			worst[z] = max(worst[z], v)
		}
	}
	first, last := scrapes[0].hist, scrapes[len(scrapes)-1].hist
	var out []ZoneLateness
	for z, w := range worst {
		zl := ZoneLateness{Zone: z, Worst: time.Duration(w * float64(time.Second))}
		if h := last[z]; h != nil {
			zl.P99, zl.Pulses = histP99(first[z], h)
		}
		out = append(out, zl)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Worst != out[j].Worst {
			return out[i].Worst > out[j].Worst
		}
		return out[i].Zone < out[j].Zone
	})
	return out
}

// histP99 is the 99th percentile of the pulses counted between two reads of
// a cumulative histogram, as the upper bound of its bucket.
func histP99(before, after map[float64]int64) (time.Duration, int64) {
	bounds := make([]float64, 0, len(after))
	for le := range after {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	if len(bounds) == 0 {
		return 0, 0
	}
	total := after[bounds[len(bounds)-1]] - before[bounds[len(bounds)-1]]
	if total <= 0 {
		return 0, 0
	}
	want := int64(rankIndex(uint64(total), 99)) + 1
	for _, le := range bounds {
		if after[le]-before[le] >= want {
			if math.IsInf(le, 1) {
				return time.Duration(math.MaxInt64), total
			}
			return time.Duration(le * float64(time.Second)), total
		}
	}
	return time.Duration(math.MaxInt64), total
}

// flushesOver is the zones' flushes by cause over the window, or nil if
// the server does not count them.
func flushesOver(scrapes []scrape) map[string]int64 {
	if len(scrapes) < 2 {
		return nil
	}
	a, b := scrapes[0].flushes, scrapes[len(scrapes)-1].flushes
	if a == nil || b == nil {
		return nil
	}
	out := map[string]int64{}
	for cause, n := range b {
		out[cause] = n - a[cause]
	}
	return out
}

// outputOver is the server's output over the window: writes and lines, or
// -1 each if the server does not count them.
func outputOver(scrapes []scrape) (bursts, lines int64) {
	if len(scrapes) < 2 {
		return -1, -1
	}
	a, b := scrapes[0], scrapes[len(scrapes)-1]
	if a.bursts < 0 || b.bursts < 0 || a.lines < 0 || b.lines < 0 {
		return -1, -1
	}
	return b.bursts - a.bursts, b.lines - a.lines
}
