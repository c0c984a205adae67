package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"zonemud/internal/genworld"
)

// fdSlack is the descriptors a run needs beside one per bot (stdio, the CSV
// file, the runtime's own).
const fdSlack = 16

// gossipRate is the lines one player may say on gossip in 10 s in the
// starter world (areas/channels.toml's default).
const gossipRate = 5

func main() {
	os.Exit(mainErr())
}

func mainErr() int {
	cfg := Config{Logf: logf}
	fs := flag.NewFlagSet("loadbot", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./cmd/loadbot [flags]\n\n"+
			"Logs -n bots into a zonemud server and measures login time, the round\n"+
			"trip from a command to its answer's prompt, and (with -pid and -metrics)\n"+
			"the server's CPU, memory and pulse lateness. Exit status 1 if any\n"+
			"connection, login or command failed.\n\nscenarios (-scenario):\n")
		for _, sc := range Scenarios {
			fmt.Fprintf(fs.Output(), "  %-7s %s\n          commands %q", sc.Name, sc.About, sc.Commands)
			if sc.Walk > 0 {
				fmt.Fprintf(fs.Output(), ", walk %d", sc.Walk)
			}
			fmt.Fprintln(fs.Output())
		}
		fmt.Fprintf(fs.Output(), "\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:4000", "server `address`: its telnet port, or with -ssh-key its SSH port")
	scenario := fs.String("scenario", "walk", "the load's `name`: "+scenarioNames())
	fs.IntVar(&cfg.Bots, "n", 100, "number of bots")
	fs.DurationVar(&cfg.Every, "every", 2*time.Second, "time between commands of one bot, jittered ±20%")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "measured time, after every bot logged in and the warmup")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "time after the last login before measuring")
	fs.Float64Var(&cfg.Ramp, "ramp", 200, "connections started per second while logging in")
	commands := fs.String("commands", "", "comma-separated `list` of commands, each bot picking at random, instead of the scenario's;\n"+
		"\"cmd|marker\" names the text that marks its answer, \"cmd|\" none, "+ExitLine+" is a step through a random exit")
	walk := fs.Int("walk", -1, "`steps` each bot walks through random exits after login, before it is ready (-1: the scenario's)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the bots' random choices")
	fs.StringVar(&cfg.Prefix, "prefix", "Bot", "name prefix (letters); bot i is prefix + i in base 26 letters")
	fs.StringVar(&cfg.Password, "password", "loadbot-pass", "password of every bot")
	fs.DurationVar(&cfg.ReplyTimeout, "timeout", 10*time.Second, "a command with no prompt this long is a timeout")
	fs.DurationVar(&cfg.LoginTimeout, "login-timeout", 30*time.Second, "time allowed from dial to the first prompt")
	fs.DurationVar(&cfg.QuitWait, "quit-wait", 10*time.Second, "time a bot waits for the server to close after quit")
	fs.StringVar(&cfg.SSHKey, "ssh-key", "", "log in over SSH with the ed25519 key in `file` (made if missing); -addr is then the SSH port")
	fs.StringVar(&cfg.Front, "front", "telnet", "how the bots connect: `telnet` (-addr; SSH with -ssh-key), web (a WebSocket to -web-addr, as the built-in page)\nor mixed (half each)")
	fs.BoolVar(&cfg.GMCP, "gmcp", false, "telnet bots agree to GMCP and ask for Char, Room and Comm, as Mudlet does")
	fs.StringVar(&cfg.WebAddr, "web-addr", "127.0.0.1:4001", "the server's web `address` (web_addr), for -front web and mixed")
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process `id`: report its CPU and memory from /proc")
	fs.StringVar(&cfg.Metrics, "metrics", "", "the server's metrics `URL` (http://127.0.0.1:4080/metrics): report pulse lateness")
	fs.DurationVar(&cfg.Settle, "settle", 3*time.Second, "with -pid, how long to watch the server after the last bot quit")
	fs.IntVar(&cfg.Disrupt.Slow, "slow", 0, "`clients` that log in as the window opens and then read one byte a second")
	fs.IntVar(&cfg.Disrupt.Drop, "drop", 0, "`clients` that log in a third into the window and then all drop at once")
	fs.IntVar(&cfg.Disrupt.Burst, "burst", 0, "`lines` one more client types in one write halfway into the window")
	fs.StringVar(&cfg.CSV, "csv", "", "write every measured round trip to `file` (bot,unix_nanos,micros)")
	treeShape := fs.String("tree", "", "the tree world's `FANOUTxDEPTH` (zonemud genworld -tree) for the gather scenario, instead of 9x4")
	hear := fs.Bool("hear", false, "stamp every say and report how long other bots take to hear it (on in gather)")
	fs.Float64Var(&cfg.Channel, "channel", 0, "`fraction` (0 to 1) of each bot's commands sent as a stamped gossip line instead; reports how long\n"+
		"other bots take to read one (the starter world allows 5 lines in 10 s a player on gossip)")
	mix := fs.String("mix", DefaultMix, "the mix scenario's `weights` of what a bot does each turn: "+strings.Join(mixNames[:], ", "))
	prey := fs.String("prey", DefaultPrey, "the mix scenario's `words` of mobs a bot fights when it sees one (comma-separated)")
	keepers := fs.String("keepers", DefaultKeepers, "the mix scenario's `words` of shopkeepers a bot trades with when it sees one")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	asJSON := fs.Bool("json", false, "also print the summary as one JSON object, as the last line")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "loadbot: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if cfg.Channel < 0 || cfg.Channel > 1 {
		fmt.Fprintf(os.Stderr, "loadbot: -channel %v: a fraction from 0 to 1\n", cfg.Channel)
		return 2
	}
	if per10 := cfg.Channel * float64(10*time.Second) / float64(cfg.Every); per10 > gossipRate {
		fmt.Fprintf(os.Stderr, "loadbot: -channel %v every %v is %.1f gossip lines in 10 s a bot, past the channel's %d: expect refusals\n",
			cfg.Channel, cfg.Every, per10, gossipRate)
	}
	sc, ok := scenarioByName(*scenario)
	if !ok {
		fmt.Fprintf(os.Stderr, "loadbot: no scenario %q (there are %s)\n", *scenario, scenarioNames())
		return 2
	}
	list := sc.Commands
	cfg.Scenario, cfg.Walk, cfg.InOrder, cfg.Series, cfg.Tree = sc.Name, sc.Walk, sc.InOrder, sc.Series, sc.Tree
	if *hear {
		cfg.Hear = true
	} else {
		cfg.Hear = sc.Hear
	}
	if sc.Path != "" {
		path, err := ParseCommands(sc.Path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbot: scenario %s: %v\n", sc.Name, err)
			return 2
		}
		cfg.Path = path
	}
	if *treeShape != "" {
		t, err := genworld.ParseTree(*treeShape)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbot: -tree: %v\n", err)
			return 2
		}
		cfg.Tree = t
	}
	if sc.Mix {
		w, err := ParseMix(*mix)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbot: %v\n", err)
			return 2
		}
		cfg.Mix = &Mix{Weights: w, Prey: Words(*prey), Keepers: Words(*keepers)}
	}
	if *commands != "" {
		list, cfg.Scenario, cfg.InOrder, cfg.Series, cfg.Mix = *commands, "", false, nil, nil
	}
	if *walk >= 0 {
		cfg.Walk = *walk
	}
	var err error
	if cfg.Commands, err = ParseCommands(list); err != nil {
		fmt.Fprintf(os.Stderr, "loadbot: %v\n", err)
		return 2
	}
	if *quiet {
		cfg.Logf = nil
	}

	limit, err := raiseFileLimit()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if limit != 0 && limit < uint64(cfg.Bots+fdSlack) {
		fmt.Fprintf(os.Stderr, "loadbot: open file limit is %d, too low for -n %d; connections past it will fail (raise the hard limit: ulimit -Hn)\n",
			limit, cfg.Bots)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := Run(ctx, cfg)
	if s == nil {
		fmt.Fprintf(os.Stderr, "loadbot: %v\n", err)
		return 2
	}
	fmt.Print(s.Text())
	if *asJSON {
		j, jerr := s.JSON()
		if jerr != nil {
			fmt.Fprintf(os.Stderr, "loadbot: %v\n", jerr)
			return 1
		}
		fmt.Printf("%s\n", j)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if s.Failed() {
		return 1
	}
	return 0
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}
