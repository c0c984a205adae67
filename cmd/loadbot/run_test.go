package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/internal/genworld"
)

func testConfig(addr string) Config {
	return Config{
		Addr:         addr,
		Bots:         20,
		Every:        50 * time.Millisecond,
		Duration:     time.Second,
		Warmup:       100 * time.Millisecond,
		Ramp:         1000,
		Commands:     mustCommands("look,north,say hello"),
		Seed:         1,
		Prefix:       "Bot",
		Password:     "pw-123",
		ReplyTimeout: 2 * time.Second,
		LoginTimeout: 5 * time.Second,
		QuitWait:     2 * time.Second,
	}
}

func mustCommands(list string) []Command {
	c, err := ParseCommands(list)
	if err != nil {
		panic(err)
	}
	return c
}

// runWithin runs cfg and fails the test if Run has not returned by limit:
// a hung bot must show as a failure, not as a test that never ends.
func runWithin(t *testing.T, ctx context.Context, cfg Config, limit time.Duration) *Summary {
	t.Helper()
	type result struct {
		s   *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Run(ctx, cfg)
		done <- result{s, err}
	}()
	guard := time.NewTimer(limit)
	defer guard.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("Run: %v", r.err)
		}
		return r.s
	case <-guard.C:
		t.Fatalf("Run did not return within %v", limit)
		return nil
	}
}

func TestRun_FakeServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fakeOpts
	}{
		{"eor", fakeOpts{eor: true}},
		{"ga", fakeOpts{ga: true}},
		{"bare prompt", fakeOpts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			opts.delay = time.Millisecond
			opts.push = 100 * time.Millisecond
			f := newFakeServer(t, opts)
			cfg := testConfig(f.addr())
			cfg.CSV = filepath.Join(t.TempDir(), "rtt.csv")

			s := runWithin(t, context.Background(), cfg, 30*time.Second)
			t.Logf("\n%s", s.Text())
			checkHealthy(t, s, cfg)
			if got := f.created.Load(); got != int32(cfg.Bots) {
				t.Errorf("characters created: got %d, want %d", got, cfg.Bots)
			}
			if s.Unsolicited == 0 {
				t.Errorf("unsolicited prompts: got 0, want some (server pushed %d lines)", f.pushes.Load())
			}
			if s.RoundTrip.P50 < opts.delay {
				t.Errorf("round trip p50 %v is below the server's delay %v", s.RoundTrip.P50, opts.delay)
			}
			if want := int32(cfg.Bots); f.wontNAWS.Load() != want || f.dontEcho.Load() != want {
				t.Errorf("refusals: WONT NAWS %d, DONT ECHO %d, want %d each", f.wontNAWS.Load(), f.dontEcho.Load(), want)
			}
			wantDo := int32(0)
			if opts.eor {
				wantDo = int32(cfg.Bots)
			}
			if got := f.doEOR.Load(); got != wantDo {
				t.Errorf("DO EOR: got %d, want %d", got, wantDo)
			}
			if got := f.quits.Load(); got != int32(cfg.Bots) {
				t.Errorf("quits: got %d, want %d", got, cfg.Bots)
			}
			if got := f.badLines.Load(); got != 0 {
				t.Errorf("protocol errors seen by the server: %d", got)
			}
			checkCSV(t, cfg.CSV, s.Answered)

			// Again with the same names: the known-name path, one password.
			cfg.Duration = 300 * time.Millisecond
			cfg.CSV = ""
			s = runWithin(t, context.Background(), cfg, 30*time.Second)
			checkHealthy(t, s, cfg)
			if got := f.resumed.Load(); got != int32(cfg.Bots) {
				t.Errorf("known-name logins: got %d, want %d", got, cfg.Bots)
			}
		})
	}
}

// checkHealthy asserts a run against a well-behaved server.
func checkHealthy(t *testing.T, s *Summary, cfg Config) {
	t.Helper()
	if s.Attempted != cfg.Bots || s.Connected != cfg.Bots || s.LoggedIn != cfg.Bots {
		t.Errorf("attempted %d, connected %d, logged in %d; want %d each", s.Attempted, s.Connected, s.LoggedIn, cfg.Bots)
	}
	if s.LoginFailures != 0 || s.ConnFailures != 0 || len(s.Failures) != 0 {
		t.Errorf("failures: %d login, %d connect, %+v", s.LoginFailures, s.ConnFailures, s.Failures)
	}
	if s.Login.Count != cfg.Bots || s.Login.P50 <= 0 || s.Login.P50 > s.Login.P99 || s.Login.P99 > s.Login.Max {
		t.Errorf("login latency %+v", s.Login)
	}
	// Each bot sends about Duration/Every commands; allow for a slow -race run.
	if want := int64(cfg.Bots) * int64(cfg.Duration/cfg.Every) / 4; s.Sent < want {
		t.Errorf("sent %d, want at least %d", s.Sent, want)
	}
	if s.Answered != s.Sent || s.Timeouts != 0 || s.Lost != 0 || s.Disconnects != 0 {
		t.Errorf("sent %d, answered %d, timeouts %d, lost %d, disconnects %d", s.Sent, s.Answered, s.Timeouts, s.Lost, s.Disconnects)
	}
	rt := s.RoundTrip
	if int64(rt.Count) != s.Answered {
		t.Errorf("round trip count %d, answered %d", rt.Count, s.Answered)
	}
	if !(0 < rt.P50 && rt.P50 <= rt.P90 && rt.P90 <= rt.P99 && rt.P99 <= rt.Max) {
		t.Errorf("round trip percentiles out of order: %+v", rt)
	}
	if s.Measured != cfg.Duration {
		t.Errorf("measured %v, want %v", s.Measured, cfg.Duration)
	}
	if want := float64(s.Answered) / cfg.Duration.Seconds(); s.PerSec != want {
		t.Errorf("per second: got %v, want %v", s.PerSec, want)
	}
	if s.Failed() {
		t.Errorf("Failed() = true for a healthy run")
	}
	var js map[string]any
	b, err := s.JSON()
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatalf("JSON does not parse: %v\n%s", err, b)
	}
	if js["answered"] != float64(s.Answered) {
		t.Errorf("JSON answered: got %v, want %d", js["answered"], s.Answered)
	}
}

func checkCSV(t *testing.T, path string, want int64) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	var rows int64
	for sc.Scan() {
		if rows == 0 && sc.Text() != "bot,unix_nanos,micros" {
			t.Errorf("csv header: got %q", sc.Text())
		}
		if rows > 0 && len(strings.Split(sc.Text(), ",")) != 3 {
			t.Errorf("csv row %d: %q", rows, sc.Text())
		}
		rows++
	}
	if rows-1 != want {
		t.Errorf("csv rows: got %d, want %d", rows-1, want)
	}
}

func TestRun_RefusedName(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true, refuse: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.Duration = time.Minute // must not be waited for: nobody logs in
	s := runWithin(t, context.Background(), cfg, 10*time.Second)
	if s.LoginFailures != cfg.Bots || s.LoggedIn != 0 || s.Connected != cfg.Bots {
		t.Fatalf("login failures %d, logged in %d, connected %d; want %d, 0, %d",
			s.LoginFailures, s.LoggedIn, s.Connected, cfg.Bots, cfg.Bots)
	}
	if len(s.Failures) != 1 || s.Failures[0].Count != cfg.Bots {
		t.Fatalf("failures: got %+v, want one reason for %d bots", s.Failures, cfg.Bots)
	}
	if r := s.Failures[0]; !strings.Contains(r.Reason, `"refused"`) || !strings.Contains(r.Example, "reserved and refused") {
		t.Errorf("failure: got %+v", r)
	}
	if !s.Failed() {
		t.Errorf("Failed() = false with login failures")
	}
	if !strings.Contains(s.Text(), "5 login failures") {
		t.Errorf("summary does not report the failures:\n%s", s.Text())
	}
}

func TestRun_NeverPrompts(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true, mute: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.ReplyTimeout = 200 * time.Millisecond
	cfg.Warmup = 0
	cfg.Duration = 700 * time.Millisecond
	s := runWithin(t, context.Background(), cfg, 10*time.Second)
	if s.LoggedIn != cfg.Bots {
		t.Fatalf("logged in %d, want %d", s.LoggedIn, cfg.Bots)
	}
	if s.Sent == 0 || s.Timeouts != s.Sent || s.Answered != 0 {
		t.Errorf("sent %d, timeouts %d, answered %d; want every sent command timed out", s.Sent, s.Timeouts, s.Answered)
	}
	if s.Skipped == 0 {
		t.Errorf("skipped 0: bots should wait for the prompt instead of sending")
	}
	if s.RoundTrip.Count != 0 {
		t.Errorf("round trips recorded without prompts: %+v", s.RoundTrip)
	}
}

func TestRun_SilentServer(t *testing.T) {
	f := newFakeServer(t, fakeOpts{silent: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 3
	cfg.LoginTimeout = 300 * time.Millisecond
	s := runWithin(t, context.Background(), cfg, 10*time.Second)
	if s.LoginFailures != cfg.Bots {
		t.Fatalf("login failures %d, want %d", s.LoginFailures, cfg.Bots)
	}
	if got, want := s.Failures[0].Reason, "timeout before the name question"; got != want {
		t.Errorf("reason: got %q, want %q", got, want)
	}
}

func TestRun_ConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := testConfig(addr)
	cfg.Bots = 3
	s := runWithin(t, context.Background(), cfg, 10*time.Second)
	if s.ConnFailures != cfg.Bots || s.Connected != 0 || s.LoginFailures != 0 {
		t.Fatalf("conn failures %d, connected %d, login failures %d", s.ConnFailures, s.Connected, s.LoginFailures)
	}
	if got := s.Failures[0].Reason; got != "connect: connection refused" {
		t.Errorf("reason: got %q", got)
	}
}

func TestRun_Interrupted(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.Warmup = 0
	cfg.Duration = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once commands are flowing.
	go func() {
		for f.commands.Load() < 20 {
			<-f.seen
		}
		cancel()
	}()
	s := runWithin(t, ctx, cfg, 10*time.Second)
	if s.Measured <= 0 || s.Measured >= cfg.Duration {
		t.Errorf("measured %v, want between 0 and %v", s.Measured, cfg.Duration)
	}
	if s.Failed() || s.Answered != s.Sent {
		t.Errorf("interrupted run reports failures: %+v", s)
	}
}

func TestConfig_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // substring of the error; "" for none
	}{
		{"ok", func(*Config) {}, ""},
		{"prefix with digit", func(c *Config) { c.Prefix = "Bot1" }, "letters only"},
		{"name too long", func(c *Config) { c.Prefix = "Abcdefghijklmnopqr"; c.Bots = 26*26 + 1 }, "longer than 20"},
		{"name just fits", func(c *Config) { c.Prefix = "Abcdefghijklmnopqr"; c.Bots = 26 * 26 }, ""},
		{"no commands", func(c *Config) { c.Commands = nil }, "-commands"},
		{"zero every", func(c *Config) { c.Every = 0 }, "-every"},
		{"no bots", func(c *Config) { c.Bots = 0 }, "-n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig("127.0.0.1:1")
			tc.edit(&c)
			err := c.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestBotName(t *testing.T) {
	for _, tc := range []struct {
		i    int
		want string
	}{{0, "Bota"}, {1, "Botb"}, {25, "Botz"}, {26, "Botba"}, {676, "Botbaa"}} {
		if got := botName("Bot", tc.i); got != tc.want {
			t.Errorf("botName(%d): got %q, want %q", tc.i, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for i := range 20000 {
		n := strings.ToLower(botName("Bot", i))
		if seen[n] {
			t.Fatalf("botName(%d) = %q repeats", i, n)
		}
		seen[n] = true
	}
}

// In a crowd every command is followed at once by somebody else's line and
// prompt; the answer is the prompt after the command's own reply, so no
// round trip is shorter than the server's delay.
func TestRun_MarkersIgnoreCrowdChatter(t *testing.T) {
	const delay = 20 * time.Millisecond
	f := newFakeServer(t, fakeOpts{eor: true, chatter: true, delay: delay})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.Every = 100 * time.Millisecond
	cfg.Commands = mustCommands("look,say hello")
	cfg.CSV = filepath.Join(t.TempDir(), "rtt.csv")
	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	if s.Unsolicited < s.Answered/2 {
		t.Errorf("unsolicited %d for %d answered: the chatter's prompts were taken for answers", s.Unsolicited, s.Answered)
	}
	fh, err := os.Open(cfg.CSV)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		micros, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if time.Duration(micros)*time.Microsecond < delay {
			t.Fatalf("round trip %dµs is shorter than the server's %v: a chatter prompt was taken for the answer", micros, delay)
		}
	}
}

// Bots walk away through open exits (never a closed door), then step on.
func TestRun_WalkFollowsOpenExits(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.Walk = 6
	cfg.Commands = mustCommands(ExitLine + ",look")
	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	if s.Walked != int64(cfg.Bots*cfg.Walk) {
		t.Errorf("walked %d steps, want %d", s.Walked, cfg.Bots*cfg.Walk)
	}
	var steps int32
	f.moves.Range(func(k, v any) bool {
		if k == "east" {
			t.Errorf("a bot walked east through the closed door %d times", v.(*atomic.Int32).Load())
		}
		steps += v.(*atomic.Int32).Load()
		return true
	})
	if steps < int32(cfg.Bots*cfg.Walk) {
		t.Errorf("the server saw %d steps, want at least %d", steps, cfg.Bots*cfg.Walk)
	}
}

// A bot the server cuts off on its walk out fails with that reason, not
// as one whose step went unanswered: a starved load tool reading slowly
// is cut by the server's output limit, a slow server is not.
func TestRun_CutOffWhileWalkingIsNamed(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true, cutOnMove: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 3
	cfg.Walk = 2
	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	if s.LoggedIn != 0 || s.LoginFailures != cfg.Bots || len(s.Failures) != 1 ||
		s.Failures[0].Reason != "cut off by the server while walking away" {
		t.Errorf("logged in %d, login failures %d, %+v; want every bot cut off while walking away", s.LoggedIn, s.LoginFailures, s.Failures)
	}
}

func TestParseCommands(t *testing.T) {
	got, err := ParseCommands("look, say hello,score|,kill rat|You hit|misses, " + ExitLine)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Line: "look", Markers: []string{"Exits:"}},
		{Line: "say hello", Markers: []string{"You say"}},
		{Line: "score"},
		{Line: "kill rat", Markers: []string{"You hit", "misses"}},
		{Line: ExitLine, Markers: moveMarkers},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := ParseCommands("|Exits:"); err == nil {
		t.Error("a marker without a command was accepted")
	}
	for _, sc := range Scenarios {
		if _, err := ParseCommands(sc.Commands); err != nil {
			t.Errorf("scenario %s: %v", sc.Name, err)
		}
	}
}

// The bad clients run beside the measured bots and report how they fared;
// the measured bots do not count them.
func TestRun_Disruptions(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 5
	cfg.Duration = 1500 * time.Millisecond
	cfg.Disrupt = Disruptions{Slow: 2, Drop: 6, Burst: 12}
	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	d := s.Disruptions
	if d == nil {
		t.Fatal("no disruption report")
	}
	if d.SlowLoggedIn != 2 || d.SlowCut != 0 {
		t.Errorf("slow readers: %d logged in, %d cut; want 2, 0 (the fake server cuts no one)", d.SlowLoggedIn, d.SlowCut)
	}
	if d.DropLoggedIn != 6 || d.DropFailed != 0 {
		t.Errorf("drop storm: %d logged in, %d failed; want 6, 0", d.DropLoggedIn, d.DropFailed)
	}
	if d.BurstAnswered != 12 || !d.BurstInOrder || d.BurstLast <= 0 {
		t.Errorf("burst: %d answered, in order %v, last after %v; want 12 in order", d.BurstAnswered, d.BurstInOrder, d.BurstLast)
	}
	if !strings.Contains(s.Text(), "burst: 12 lines in one write, 12 answered in order") {
		t.Errorf("summary:\n%s", s.Text())
	}
	// The fake server saw the burst's lines as typed.
	if got := f.created.Load(); got != int32(cfg.Bots+2+6+1) {
		t.Errorf("characters created: %d, want %d", got, cfg.Bots+2+6+1)
	}
}

// An in-order run types its path once after login, then each round types
// every command in order; a series counts its own successes' round trips
// and its refusals apart.
func TestRun_InOrderRoundsAndSeries(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		f := newFakeServer(t, fakeOpts{eor: true, refuseMint: refuse})
		cfg := testConfig(f.addr())
		cfg.Bots = 4
		cfg.Path = mustCommands("look,north|")
		cfg.Commands = mustCommands("down|The Crumbling Stair|will not open,up|")
		cfg.InOrder = true
		cfg.Series = map[string]string{"down": "mint"}
		s := runWithin(t, context.Background(), cfg, 30*time.Second)
		checkHealthy(t, s, cfg)
		if len(s.Series) != 1 || s.Series[0].Name != "mint" {
			t.Fatalf("series %+v, want mint alone", s.Series)
		}
		ok, refused := s.Series[0].Latency.Count, s.Series[0].Refused
		if refuse && (ok != 0 || refused == 0) || !refuse && (ok == 0 || refused != 0) {
			t.Errorf("refuse=%v: %d answered, %d refused", refuse, ok, refused)
		}
		f.mu.Lock()
		for name, typed := range f.typed {
			if len(typed) < 4 || typed[0] != "look" || typed[1] != "north" {
				t.Errorf("%s typed %q: want the path first", name, typed)
				continue
			}
			for i, cmd := range typed[2:] {
				if want := []string{"down", "up"}[i%2]; cmd != want {
					t.Errorf("%s typed %q: command %d is %q, want %q", name, typed, i+2, cmd, want)
					break
				}
			}
		}
		f.mu.Unlock()
		if !strings.Contains(s.Text(), "mint: ") {
			t.Errorf("the summary has no mint line:\n%s", s.Text())
		}
	}
}

// On a tree world each bot first walks to its own leaf, one step a
// level, and only then sends the scenario's commands.
func TestRun_TreeSendsEachBotToItsOwnLeaf(t *testing.T) {
	f := newFakeServer(t, fakeOpts{eor: true})
	cfg := testConfig(f.addr())
	cfg.Bots = 6
	cfg.Tree = genworld.TreeOptions{Fanout: 4, Depth: 2} // north east south west: the fake's rooms
	cfg.Commands = mustCommands("look")
	s := runWithin(t, context.Background(), cfg, 30*time.Second)
	checkHealthy(t, s, cfg)
	if s.Walked != int64(cfg.Bots*cfg.Tree.Depth) {
		t.Errorf("walked %d steps, want %d", s.Walked, cfg.Bots*cfg.Tree.Depth)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	paths := map[string]bool{}
	for i := range cfg.Bots {
		name := botName(cfg.Prefix, i)
		typed, want := f.typed[name], cfg.Tree.TreePath(i)
		if len(typed) < len(want)+1 || !slices.Equal(typed[:len(want)], want) || typed[len(want)] != "look" {
			t.Errorf("%s typed %q: want its way to leaf %d (%q) first, then look", name, typed, i, want)
		}
		paths[strings.Join(want, " ")] = true
	}
	if len(paths) != cfg.Bots {
		t.Errorf("%d bots took %d distinct ways", cfg.Bots, len(paths))
	}
}
