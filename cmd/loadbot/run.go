package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"zonemud/internal/genworld"
)

// Config is what one run does. The zero value is not useful; main fills it
// from flags, tests fill it directly.
type Config struct {
	Addr     string
	Bots     int
	Every    time.Duration // mean time between commands of one bot, jittered ±20%
	Duration time.Duration // measured window, after every bot logged in and Warmup passed
	Warmup   time.Duration
	Ramp     float64   // connections started per second
	Scenario string    // the scenario's name, for the summary; "" for a custom mix
	Commands []Command // each bot picks one at random for every send
	// Walk is how many steps each bot takes through random exits right
	// after logging in, before the run counts it as ready.
	Walk int
	// Path is typed in order after the walk, before the bot is ready.
	Path []Command
	// Tree, if its Depth is set, sends bot i after the path to leaf i of a
	// tree world (zonemud genworld -tree), one step a level.
	Tree genworld.TreeOptions
	// Hear stamps every say with the time it was sent, and every bot that
	// hears another's say in the window records how long it took to reach
	// it (Summary.Heard).
	Hear bool
	// Channel is the fraction (0 to 1) of a bot's commands sent as a
	// stamped line on the gossip channel instead of the one picked; every
	// bot that reads another's gossip line in the window records how long
	// it took (Summary.ChannelHeard). The starter world lets a player say
	// 5 lines in 10 s on it: past that, the answers are refusals.
	Channel float64
	// Mix, if set, makes each bot's turn one of a weighted mix of walking,
	// looking, talking, gossip, fights and trades instead of one of
	// Commands (mix.go).
	Mix *Mix
	// InOrder: each round types every command in order (Scenario.InOrder).
	InOrder bool
	// Series: command line -> series name (Scenario.Series).
	Series   map[string]string
	Seed     uint64
	Prefix   string // name prefix; letters only
	Password string

	ReplyTimeout time.Duration // a command with no prompt this long is a timeout
	LoginTimeout time.Duration // dial to first prompt
	QuitWait     time.Duration // how long a bot waits for the server to close after quit
	Settle       time.Duration // with PID: how long to watch the server after the last bot quit

	// SSHKey, if set, makes the bots log in over SSH to Addr with the
	// ed25519 key in this file (made if missing); a bot the key does not
	// log in yet uses its password and then registers the key in game.
	SSHKey string

	// Front is how the bots connect: "telnet" (to Addr, or SSH with
	// SSHKey), "web" (a WebSocket on gmcp.mudstandards.org to WebAddr, as
	// the built-in page), or "mixed" (bot i by web when i is odd, telnet
	// when even: half and half).
	Front   string
	WebAddr string
	// GMCP has telnet bots agree to GMCP and ask for Char, Room and Comm,
	// as Mudlet does, so the server sends them its out-of-band messages
	// (which they skip).
	GMCP bool

	// PID, if set, is the server's process id: its CPU time and resident
	// set are read from /proc. Metrics, if set, is the server's /metrics
	// URL, read for the zones' pulse lateness.
	PID     int
	Metrics string

	// Disrupt lets bad clients loose on the window (disrupt.go).
	Disrupt Disruptions

	CSV string // if set, write every round-trip sample of the window here

	// Logf, if set, receives progress lines.
	Logf func(format string, args ...any)
}

// maxNameLen is the longest name the server accepts.
const maxNameLen = 20

func (c *Config) validate() error {
	switch {
	case c.Bots < 1:
		return errors.New("-n must be at least 1")
	case c.Every <= 0:
		return errors.New("-every must be positive")
	case c.Duration <= 0:
		return errors.New("-duration must be positive")
	case c.Warmup < 0:
		return errors.New("-warmup must not be negative")
	case !(c.Ramp > 0) || math.IsInf(c.Ramp, 0):
		return errors.New("-ramp must be a positive number")
	case len(c.Commands) == 0:
		return errors.New("-commands must name at least one command")
	case c.ReplyTimeout <= 0 || c.LoginTimeout <= 0 || c.QuitWait <= 0:
		return errors.New("timeouts must be positive")
	case c.Settle < 0:
		return errors.New("-settle must not be negative")
	case c.Walk < 0:
		return errors.New("-walk must not be negative")
	case c.Disrupt.Slow < 0 || c.Disrupt.Drop < 0 || c.Disrupt.Burst < 0:
		return errors.New("-slow, -drop and -burst must not be negative")
	case c.Disrupt.Burst > 999:
		return errors.New("-burst is at most 999 lines")
	case c.Front != "" && c.Front != "telnet" && c.Front != "web" && c.Front != "mixed":
		return fmt.Errorf("-front %q: telnet, web or mixed", c.Front)
	case c.Front != "" && c.Front != "telnet" && c.SSHKey != "":
		return errors.New("-ssh-key goes with -front telnet only")
	case c.Password == "" || strings.ContainsAny(c.Password, "\r\n"):
		return errors.New("-password must be one non-empty line")
	case c.Mix != nil && c.InOrder:
		return errors.New("a mix is not typed in order")
	}
	if c.Mix != nil {
		if err := c.Mix.validate(); err != nil {
			return err
		}
	}
	for _, r := range c.Prefix {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return fmt.Errorf("-prefix %q: names are letters only", c.Prefix)
		}
	}
	if longest := botName(c.Prefix, c.Bots-1); len(longest) > maxNameLen {
		return fmt.Errorf("-prefix %q: name %q for bot %d is longer than %d letters", c.Prefix, longest, c.Bots-1, maxNameLen)
	}
	for _, cmd := range append(slices.Clone(c.Commands), c.Path...) {
		if cmd.Line == "" || strings.ContainsAny(cmd.Line, "\r\n") {
			return fmt.Errorf("-commands: %q is not one non-empty line", cmd.Line)
		}
		for _, m := range cmd.Markers {
			if m == "" || len(m) > maxMarker {
				return fmt.Errorf("-commands: marker %q of %q must be 1 to %d bytes", m, cmd.Line, maxMarker)
			}
		}
	}
	return nil
}

// front is Summary.Front for Config.Front.
func front(f string) string {
	if f == "telnet" {
		return ""
	}
	return f
}

// byWeb reports whether bot i connects by the web front.
func (c *Config) byWeb(i int) bool {
	return c.Front == "web" || c.Front == "mixed" && i%2 == 1
}

// botName is prefix followed by i in base 26 with letters for digits
// (0 is "a", 25 "z", 26 "ba", 676 "baa"), so every index gives a distinct,
// valid name.
func botName(prefix string, i int) string {
	var digits [16]byte
	p := len(digits)
	for {
		p--
		digits[p] = 'a' + byte(i%26)
		i /= 26
		if i == 0 {
			break
		}
	}
	return prefix + string(digits[p:])
}

// run is the state shared by the bots of one Run. Besides the atomic fields
// and the lock-free histogram, it is immutable after Run starts the first bot.
type run struct {
	cfg  Config
	base time.Time // mono() counts from here
	cmds []cmdSpec // Commands, ready to send; shared read-only
	step cmdSpec   // a step through a random exit, for the walk
	// keyAdd registers the SSH key in game; key is nil for telnet.
	keyAdd     cmdSpec
	key        *sshKey
	trackExits bool // some command steps through exits: bots follow the exits lines
	stop       chan struct{}
	stopAt     atomic.Int64 // mono() when stop closed: the quit storm began

	// atomic: the measured window in mono() nanoseconds, [winStart, winEnd).
	// Both are MaxInt64 until every bot has finished logging in.
	winStart, winEnd atomic.Int64

	rtt      histogram    // round trips of commands sent in the window
	heard    histogram    // with Hear: from a say sent in the window to each other bot reading it
	heardCh  histogram    // with Channel: from a gossip line sent in the window to each other bot reading it
	loggedIn atomic.Int32 // bots logged in so far
	path     []cmdSpec    // Path, ready to send; shared read-only
	series   []*series    // by name; shared, counted atomically
	mix      *mixPlan     // with Config.Mix; shared read-only
}

// gossips reports whether the bots send gossip lines.
func (r *run) gossips() bool {
	return r.cfg.Channel > 0 || r.mix != nil && r.mix.gossip != nil
}

// series is one command's own count: successes' round trips, refusals.
type series struct {
	name    string
	rtt     histogram
	refused atomic.Int64
}

// cmdSpec is a Command ready to send.
type cmdSpec struct {
	line    []byte   // ending in CRLF; nil for a step
	exit    bool     // a step through a random exit
	markers [][]byte // see Command.Markers
	series  *series  // counted on its own too; nil for most
	say     bool     // a say: stamped with Config.Hear
	channel bool     // a gossip line (Config.Channel): always stamped
}

func newSpec(c Command) cmdSpec {
	s := cmdSpec{exit: c.Line == ExitLine}
	if !s.exit {
		s.line = []byte(c.Line + "\r\n")
	}
	l := strings.ToLower(c.Line)
	s.say = strings.HasPrefix(l, "say ") || strings.HasPrefix(l, "'")
	for _, m := range c.Markers {
		s.markers = append(s.markers, []byte(m))
	}
	return s
}

// mono is the time since the run began, from the monotonic clock.
func (r *run) mono() int64 { return int64(time.Since(r.base)) }

func (r *run) inWindow(t int64) bool {
	return t >= r.winStart.Load() && t < r.winEnd.Load()
}

func (r *run) logf(format string, args ...any) {
	if r.cfg.Logf != nil {
		r.cfg.Logf(format, args...)
	}
}

// Run connects cfg.Bots bots to cfg.Addr at cfg.Ramp per second, logs them
// in, lets them send commands, measures for cfg.Duration after cfg.Warmup,
// then has each bot wait for its last answer and quit. Cancelling ctx ends
// the login phase or the window early; the summary then covers the time that
// was measured. The error is for bad configuration or an unwritable CSV file;
// failures of the server are in the summary.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &run{
		cfg:  cfg,
		base: time.Now(),
		stop: make(chan struct{}),
	}
	for _, c := range cfg.Commands {
		spec := newSpec(c)
		if name := cfg.Series[c.Line]; name != "" {
			spec.series = &series{name: name}
			r.series = append(r.series, spec.series)
		}
		r.cmds = append(r.cmds, spec)
		r.trackExits = r.trackExits || c.Line == ExitLine
	}
	for _, c := range cfg.Path {
		r.path = append(r.path, newSpec(c))
	}
	if cfg.Mix != nil {
		r.mix = newMixPlan(cfg.Mix, r)
		r.trackExits = true
	}
	r.step = newSpec(Command{Line: ExitLine, Markers: moveMarkers})
	r.trackExits = r.trackExits || cfg.Walk > 0
	if cfg.SSHKey != "" {
		k, err := loadOrMakeKey(cfg.SSHKey)
		if err != nil {
			return nil, err
		}
		r.key = k
		r.keyAdd = newSpec(Command{Line: "sshkey add " + k.line, Markers: []string{"Key added", "already yours", "already have"}})
	}
	mon := newMonitor(r)
	mon.start()
	r.winStart.Store(math.MaxInt64)
	r.winEnd.Store(math.MaxInt64)

	bots := make([]*bot, cfg.Bots)
	var all, logins sync.WaitGroup
	logins.Add(cfg.Bots)
	loginsDone := make(chan struct{})
	go func() { logins.Wait(); close(loginsDone) }()

	r.logf("loadbot: connecting %d bots to %s at %.0f/s", cfg.Bots, cfg.Addr, cfg.Ramp)
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()

	// Start bots on a schedule (bot i at i/Ramp seconds) rather than a ticker,
	// so rates above the timer resolution still come out right on average.
	interval := float64(time.Second) / cfg.Ramp
	launch := time.NewTimer(0)
	started := 0
launching:
	for i := range bots {
		due := time.Duration(float64(i) * interval)
		if wait := due - time.Since(r.base); wait > 0 {
			launch.Reset(wait)
		wait:
			for {
				select {
				case <-ctx.Done():
					break launching
				case <-progress.C:
					r.logf("loadbot: %d/%d started, %d logged in", i, cfg.Bots, r.loggedIn.Load())
				case <-launch.C:
					break wait
				}
			}
		}
		b := newBot(r, i)
		bots[i] = b
		started++
		all.Go(func() { b.run(ctx, &logins) })
	}
	launch.Stop()
	// Bots never started count as logged in for the wait below.
	for range cfg.Bots - started {
		logins.Done()
	}

	interrupted := false
waitLogins:
	for {
		select {
		case <-loginsDone:
			break waitLogins
		case <-ctx.Done():
			// Bots give up their login on ctx; wait for them to say so.
			<-loginsDone
			interrupted = true
			break waitLogins
		case <-progress.C:
			r.logf("loadbot: %d/%d logged in", r.loggedIn.Load(), cfg.Bots)
		}
	}

	var winStart, winEnd int64
	var disrupting sync.WaitGroup
	var disrupted *DisruptionReport
	if n := r.loggedIn.Load(); n > 0 && !interrupted {
		r.logf("loadbot: %d/%d logged in; warming up %v, then measuring %v", n, started, cfg.Warmup, cfg.Duration)
		winStart = r.mono() + int64(cfg.Warmup)
		winEnd = winStart + int64(cfg.Duration)
		r.winStart.Store(winStart)
		r.winEnd.Store(winEnd)
		if d := cfg.Disrupt; d.Slow > 0 || d.Drop > 0 || d.Burst > 0 {
			disrupted = new(DisruptionReport)
			disrupting.Go(func() { r.disrupt(ctx, winStart, disrupted) })
		}
		end := time.NewTimer(time.Duration(winEnd - r.mono()))
	measuring:
		for {
			select {
			case <-end.C:
				break measuring
			case <-ctx.Done():
				now := r.mono()
				if now < winEnd {
					winEnd = max(now, winStart)
					r.winEnd.Store(winEnd)
				}
				break measuring
			case <-progress.C:
				if now := r.mono(); now >= winStart {
					r.logf("loadbot: measuring %v/%v, %d answered",
						time.Duration(now-winStart).Round(time.Second), cfg.Duration, r.rtt.count())
				}
			}
		}
		end.Stop()
		r.logf("loadbot: window over; waiting for last answers")
	} else {
		// Nothing to measure: close the window before it opens.
		now := r.mono()
		winStart, winEnd = now, now
		r.winStart.Store(now)
		r.winEnd.Store(now)
	}
	r.stopAt.Store(r.mono())
	close(r.stop)
	all.Wait()
	disrupting.Wait()
	if cfg.PID != 0 {
		// Watch the server settle after the quit storm.
		r.logf("loadbot: every bot has quit; watching the server for %v", cfg.Settle)
		select {
		case <-time.After(cfg.Settle):
		case <-ctx.Done():
		}
	}
	mon.stop()

	s := r.summarize(bots[:started], time.Duration(winEnd-winStart))
	s.Server = mon.server(s.LoggedIn)
	s.Disruptions = disrupted
	if cfg.CSV != "" {
		if err := writeCSV(cfg.CSV, r, bots[:started]); err != nil {
			return s, err
		}
	}
	return s, nil
}

// summarize merges the bots' counters. Every bot goroutine has returned.
func (r *run) summarize(bots []*bot, measured time.Duration) *Summary {
	s := &Summary{
		Addr:         r.cfg.Addr,
		Scenario:     r.cfg.Scenario,
		SSH:          r.key != nil,
		Front:        front(r.cfg.Front),
		GMCP:         r.cfg.GMCP,
		WebAddr:      r.cfg.WebAddr,
		Bots:         r.cfg.Bots,
		Every:        r.cfg.Every,
		Measured:     measured,
		Attempted:    len(bots),
		RoundTrip:    r.rtt.latency(),
		Hear:         r.cfg.Hear,
		Heard:        r.heard.latency(),
		Channel:      r.cfg.Channel,
		ChannelHeard: r.heardCh.latency(),
	}
	tally := failureTally{}
	logins := make([]time.Duration, 0, len(bots))
	var farewells []time.Duration
	for _, b := range bots {
		if b.connected {
			s.Connected++
		}
		if b.failure != "" {
			if b.connected {
				s.LoginFailures++
			} else {
				s.ConnFailures++
			}
			tally.add(b.failure, b.failureExample)
			continue
		}
		if !b.loggedIn {
			continue // interrupted before it finished
		}
		s.LoggedIn++
		logins = append(logins, b.loginTime)
		s.Walked += int64(b.walked)
		if b.byKey {
			s.ByKey++
		}
		if b.keyAdded {
			s.KeysAdded++
		}
		if b.quitSent != 0 {
			s.Quits++
			if end := b.readerEnded.Load(); end != 0 && !b.farewellMissed {
				farewells = append(farewells, time.Duration(end-r.stopAt.Load()))
			} else {
				s.NoFarewell++
			}
		}
		s.Sent += b.sendStats.sent
		s.Timeouts += b.sendStats.timeouts
		s.Skipped += b.sendStats.skipped
		s.Answered += b.readStats.answered
		s.Lost += b.readStats.lost
		s.Unsolicited += b.readStats.unsolicited
		if b.readStats.disconnected {
			s.Disconnects++
		}
		if b.s.mix != nil {
			s.Deaths += b.s.mix.deaths
			s.Kills += b.s.mix.kills
		}
	}
	for _, sr := range r.series {
		s.Series = append(s.Series, SeriesSummary{Name: sr.name, Latency: sr.rtt.latency(), Refused: sr.refused.Load()})
	}
	sort.Slice(s.Series, func(i, j int) bool { return s.Series[i].Name < s.Series[j].Name })
	if m := r.mix; m != nil {
		s.Mix = r.cfg.Mix.Weights[:]
		s.Channel = m.fraction[mixGossip]
	}
	s.Login = latencyOf(sortedDurations(logins))
	s.Farewell = latencyOf(sortedDurations(farewells))
	s.Failures = tally.sorted()
	if measured > 0 {
		s.PerSec = float64(s.Answered) / measured.Seconds()
	}
	s.TargetRate = float64(s.LoggedIn) / r.cfg.Every.Seconds()
	if r.cfg.InOrder {
		s.TargetRate *= float64(len(r.cmds)) // a round of every command each interval
	}
	return s
}

// writeCSV writes the window's round-trip samples: bot name, Unix time of the
// send in nanoseconds, round trip in microseconds.
func writeCSV(path string, r *run, bots []*bot) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("loadbot: csv: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("loadbot: csv: %w", cerr)
		}
	}()
	w := bufio.NewWriter(f)
	w.WriteString("bot,unix_nanos,micros\n")
	buf := make([]byte, 0, 64)
	for _, b := range bots {
		for _, smp := range b.readStats.samples {
			buf = buf[:0]
			buf = append(buf, b.name...)
			buf = append(buf, ',')
			buf = fmt.Appendf(buf, "%d,%d\n", r.base.Add(time.Duration(smp.sent)).UnixNano(), smp.rtt/int64(time.Microsecond))
			w.Write(buf)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("loadbot: csv: %w", err)
	}
	return nil
}
