// Command zonemud is a single-binary MUD server: every zone an actor, telnet
// and SSH on the front, one bbolt file behind.
//
//	zonemud [serve] [-config FILE]    run the server (the default)
//	zonemud check [-config FILE] [DIR] validate the configuration and the areas
//	zonemud backup [-config FILE] OUT write a consistent copy of the database
//	zonemud restore [-config FILE] BACKUP  put a checked backup in place
//	zonemud init [DIR]                write config.toml and the starter areas
//	zonemud admin create NAME         make the world's first admin (server stopped)
//	zonemud genworld [-rooms N] DIR   write a large generated world of plain rooms
//	zonemud import circle SRC OUT     convert a CircleMUD/tbaMUD world into areas
//	zonemud reboot [-config FILE]     ask a copyover holder to reboot the game
//	zonemud version                   print the version and commit
//
// Flags and the command may come in any order: zonemud -config FILE check
// checks.
package main

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"zonemud/content"
	"zonemud/internal/genworld"
	"zonemud/internal/logev"
	"zonemud/server"
	"zonemud/server/config"
	"zonemud/store"
	"zonemud/world"
)

// version and stampedCommit are set at build time by scripts/release
// (-ldflags "-X main.version=v1.2.0 -X main.stampedCommit=abc123..."); a
// plain go build says "dev" and reads the commit from the build's VCS
// information.
var (
	version       = "dev"
	stampedCommit = ""
)

//go:embed config.toml
var defaultConfig []byte

//go:embed areas
var embeddedAreas embed.FS

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands are the subcommands, in the order usage lists them.
var commands = []struct{ name, args, what string }{
	{"serve", "", "run the server (the default)"},
	{"check", "[DIR]", "validate the configuration and the areas (or DIR), then exit"},
	{"backup", "OUT", "write a consistent copy of the database to OUT"},
	{"restore", "FILE", "check a backup and put it in place of the database (server stopped)"},
	{"init", "[DIR]", "write config.toml and the starter areas into DIR (default .)"},
	{"admin", "create NAME", "make a character that is an admin, the first one (server stopped; zonemud admin -h)"},
	{"genworld", "DIR", "write a large generated world into DIR (zonemud genworld -h)"},
	{"import", "circle SRC OUT", "convert a CircleMUD/tbaMUD world into areas in OUT (zonemud import -h)"},
	{"health", "", "ask the running server's admin address for /healthz; exit 0 if it answers 200"},
	{"reboot", "", "with [server] copyover on: reboot the game into the binary on disk, keeping every player"},
	{"game", "", "the game process under a copyover holder (the holder starts it; not for the shell)"},
	{"preflight", "DB", "start on DB, a copy of the database, with no listeners, and stop (a copyover holder's test of a new binary)"},
	{"version", "", "print the version and the commit it was built from"},
}

func isCommand(w string) bool {
	for _, c := range commands {
		if c.name == w {
			return true
		}
	}
	return false
}

func usage(w io.Writer, fset *flag.FlagSet) {
	fmt.Fprintln(w, "usage: zonemud [command] [-config FILE] [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-16s %s\n", strings.TrimSpace(c.name+" "+c.args), c.what)
	}
	fmt.Fprintln(w, "\nFlags and the command may come in any order. Relative paths in a config\n"+
		"file are taken from the folder the file is in.\n\nflags:")
	fset.PrintDefaults()
}

// splitCommand takes the subcommand out of args, wherever it stands: the
// first word that is not a flag, nor the value of -config, and names a
// command. It returns "" if there is none.
func splitCommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", args
		case a == "-config" || a == "--config":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		case isCommand(a):
			return a, append(args[:i:i], args[i+1:]...)
		default:
			return "", args // an argument before any command
		}
	}
	return "", args
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd, args := splitCommand(args)
	switch cmd {
	case "genworld":
		return genWorld(args, stdout, stderr)
	case "import":
		return importWorld(args, stdout, stderr)
	case "admin":
		return adminCmd(args, stdout, stderr)
	}
	fset := flag.NewFlagSet("zonemud", flag.ContinueOnError)
	fset.SetOutput(stderr)
	cfgPath := fset.String("config", "", "configuration `FILE` (default: ./config.toml if present, else the built-in defaults)")
	fset.Usage = func() { usage(stderr, fset) }
	// Flags may follow arguments too: parse, take one argument, go on.
	var pos []string
	for rest := args; ; {
		if err := fset.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fset.NArg() == 0 {
			break
		}
		pos = append(pos, fset.Arg(0))
		rest = fset.Args()[1:]
	}
	if cmd == "" {
		if len(pos) > 0 {
			fmt.Fprintf(stderr, "zonemud: unknown command %q\n\n", pos[0])
			usage(stderr, fset)
			return 2
		}
		cmd = "serve"
	}
	if why := argProblem(cmd, pos); why != "" {
		fmt.Fprintf(stderr, "zonemud: %s %s; got %q\n\n", cmd, why, pos)
		usage(stderr, fset)
		return 2
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, strings.TrimSpace("zonemud "+version+" "+commit()))
		if cfg, err := loadConfig(*cfgPath); err == nil && cfg.Server.Copyover {
			runningVersions(cfg, stdout)
		}
		return 0
	case "init":
		return initDir(pos, stdout, stderr)
	}
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	log := newLogger(cfg, stderr)
	switch cmd {
	case "serve":
		if cfg.Server.Copyover {
			return serveCopyover(cfg, *cfgPath, log, stderr)
		}
		return serve(cfg, log, stderr)
	case "game":
		return serveGame(cfg, log, stderr)
	case "reboot":
		return rebootCmd(cfg, stdout, stderr)
	case "preflight":
		return preflight(cfg, pos[0], log, stdout, stderr)
	case "check":
		return check(cfg, pos, stdout, stderr)
	case "backup":
		return backup(cfg, pos, stdout, stderr)
	case "restore":
		return restore(cfg, pos[0], stdout, stderr)
	case "health":
		return health(cfg, stdout, stderr)
	}
	return 2 // not reached: every command is handled above
}

// argProblem says what is wrong with a command's arguments, or "".
func argProblem(cmd string, pos []string) string {
	switch {
	case cmd == "backup" && len(pos) != 1:
		return "takes one argument, the file to write"
	case cmd == "restore" && len(pos) != 1:
		return "takes one argument, the backup to put in place"
	case cmd == "init" && len(pos) > 1:
		return "takes at most one argument, the folder to write into"
	case cmd == "preflight" && len(pos) != 1:
		return "takes one argument, the copy of the database to open"
	case cmd == "check" && len(pos) > 1:
		return "takes at most one argument, the areas folder to check"
	case cmd != "backup" && cmd != "init" && cmd != "check" && cmd != "restore" && cmd != "preflight" && len(pos) > 0:
		return "takes no arguments"
	}
	return ""
}

// buildName is this binary's version and commit as the holder, the game's
// stat and /metrics name it.
func buildName() string { return "zonemud " + version + " " + cmp.Or(commit(), "unknown") }

// commit is the version control revision the binary was built from, with
// "+changes" if the tree had uncommitted changes; "" when unknown.
func commit() string {
	if stampedCommit != "" {
		return stampedCommit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+changes"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(12, len(rev))] + dirty
}

// loadConfig reads the file the admin named, or ./config.toml if there is
// one, over the built-in defaults.
func loadConfig(path string) (*config.Config, error) {
	if path == "" {
		if _, err := os.Stat("config.toml"); err == nil {
			path = "config.toml"
		}
	}
	return config.Load(defaultConfig, path)
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(cfg.Server.LogLevel))
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.Server.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	l := slog.New(h)
	slog.SetDefault(l)
	return l
}

func areasFS() fs.FS {
	sub, err := fs.Sub(embeddedAreas, "areas")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}

// configName is how logs and messages name the configuration in use.
func configName(cfg *config.Config) string {
	if cfg.File == "" {
		return "the built-in defaults"
	}
	return cfg.File
}

// serve runs the server until SIGINT or SIGTERM, then shuts it down.
func serve(cfg *config.Config, log *slog.Logger, stderr io.Writer) int {
	log.Info("zonemud: starting", logev.ID(1001), "version", version, "commit", cmp.Or(commit(), "unknown"), "config", configName(cfg),
		"data_dir", cfg.Server.DataDir, "areas_dir", cfg.Server.AreasDir)
	// The signals are caught before the listeners open: an interrupt that
	// comes as soon as the server answers (a supervisor's, a test's) shuts
	// it down cleanly instead of killing it by the signal's default.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.Start(cfg, server.Options{Areas: areasFS(), Log: log, Build: buildName()})
	if err != nil {
		fmt.Fprintln(stderr, "zonemud:", err)
		return 1
	}
	reboot := false
	select {
	case <-ctx.Done():
	case reboot = <-srv.StopRequested():
	}
	stop()
	log.Info("zonemud: shutting down", logev.ID(1002), "reboot", reboot)
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.Server.ShutdownSecs)*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "zonemud: shutdown:", err)
		return 1
	}
	if reboot {
		return restart(log, stderr)
	}
	return 0
}

// exitReboot is the exit status of a reboot that could not start the
// server again itself: a supervisor that restarts on failure (systemd's
// Restart=on-failure, docker's --restart on-failure) starts it.
const exitReboot = 75

// restart runs the binary again in this process, with the same arguments
// and environment, after a reboot's shutdown; where that cannot be done it
// exits with exitReboot for a supervisor to restart it.
func restart(log *slog.Logger, stderr io.Writer) int {
	exe, err := os.Executable()
	if err == nil {
		log.Info("zonemud: rebooting", logev.ID(1003), "exe", exe)
		err = execSelf(exe, os.Args, os.Environ())
	}
	fmt.Fprintf(stderr, "zonemud: reboot: cannot start again (%v); exiting with status %d for a supervisor to restart\n", err, exitReboot)
	return exitReboot
}

// check validates the configuration and the areas without serving: the
// folder named on the command line, or the one the config names. It is the
// validation a running server makes before it applies an edit, with the
// same messages, one problem a line as file:line: key: message.
func check(cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	var areas server.Areas
	if len(args) == 1 {
		fi, err := os.Stat(args[0])
		if err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "zonemud: check: %s is not a folder\n", args[0])
			return 1
		}
		areas = server.Areas{FS: os.DirFS(args[0]), Dir: args[0], From: args[0]}
	} else {
		var err error
		if areas, err = server.FindAreas(cfg, areasFS(), nil); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	set, scripts, err := world.Check(areas.FS, cfg.Lua)
	if err != nil {
		var ps content.Problems
		if !errors.As(err, &ps) {
			fmt.Fprintln(stderr, "zonemud: check:", err)
			return 1
		}
		for _, p := range ps {
			fmt.Fprintln(stderr, p.String())
		}
		fmt.Fprintf(stderr, "areas from %s: %d problem(s)\n", areas.From, len(ps))
		return 1
	}
	for _, p := range world.CheckHelp(set) {
		fmt.Fprintln(stderr, "warning:", p)
	}
	fmt.Fprintf(stdout, "config from %s ok; areas from %s ok: %d zones, %d rooms, %d mobs, %d items, %d quests, %d help topics, %d scripts\n",
		configName(cfg), areas.From, len(set.Zones), len(set.Rooms), len(set.Mobs), len(set.Items), len(set.Quests), len(set.Help), scripts.Count())
	return 0
}

// health asks the running server's admin address for /healthz, for a
// container's HEALTHCHECK (the image has no shell and no curl): 0 if it
// answers 200, 1 if not or if nothing answers.
func health(cfg *config.Config, stdout, stderr io.Writer) int {
	if cfg.Server.HTTPAddr == "" {
		fmt.Fprintln(stderr, "zonemud: health: the config has no http_addr to ask")
		return 1
	}
	client := &http.Client{Timeout: 5 * time.Second}
	req, err := http.NewRequest("GET", "http://"+cfg.Server.HTTPAddr+"/healthz", nil)
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: health:", err)
		return 1
	}
	if cfg.Server.AdminToken != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Server.AdminToken)
	}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: health: no server answers:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "zonemud: health: the server answered %s: %s\n", resp.Status, strings.TrimSpace(string(body)))
		return 1
	}
	fmt.Fprint(stdout, string(body))
	return 0
}

// backup writes a consistent copy of the database to the named file: from
// the running server's admin endpoint if it is up, else from the file.
func backup(cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: zonemud backup [-config FILE] OUT.db")
		return 2
	}
	out := args[0]
	if cfg.Server.HTTPAddr != "" {
		n, err := backupHTTP("http://"+cfg.Server.HTTPAddr+"/backup", cfg.Server.AdminToken, out)
		if err == nil {
			fmt.Fprintf(stdout, "backup of the running server: %s (%d bytes)\n", out, n)
			return 0
		}
		if !errors.Is(err, errNoServer) {
			fmt.Fprintln(stderr, "zonemud: backup:", err)
			return 1
		}
	}
	path := filepath.Join(cfg.Server.DataDir, cfg.Store.File)
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "zonemud: backup: no server is running and there is no database at %s\n", path)
		return 1
	}
	// Read-only: a backup never changes the file it copies, and refuses
	// one that fails its check rather than copy the damage. The check is
	// the whole one whatever check_on_open says: here time is cheap, and
	// it is how an admin who turned that off checks the file.
	scfg := cfg.Store
	scfg.CheckOnOpen = true
	db, err := store.OpenReadOnly(path, scfg)
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: backup:", err)
		return 1
	}
	defer db.Close()
	n, err := db.BackupFile(out)
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: backup:", err)
		return 1
	}
	fmt.Fprintf(stdout, "backup of %s: %s (%d bytes)\n", path, out, n)
	return 0
}

var errNoServer = errors.New("no server is answering")

func backupHTTP(url, token, out string) (int64, error) {
	client := &http.Client{Timeout: 10 * time.Minute}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errNoServer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("server answered %s", resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".backup-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("backup cut short: %d of %d bytes", n, resp.ContentLength)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	return n, err
}

// initDir writes config.toml and the starter areas into a folder, refusing
// to overwrite anything.
// genWorld writes a generated world (internal/genworld) into an empty
// folder, to be named as areas_dir.
func genWorld(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("zonemud genworld", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: zonemud genworld [-rooms N] [-per-zone N] [-seed N] [-tree FxD] DIR\n\n"+
			"Writes a world of N plain rooms into the empty folder DIR: zones of rooms on a\n"+
			"grid, joined across the world by up, down and diagonal exits, with the starter\n"+
			"world's game.toml and help.toml. Point areas_dir at DIR to serve it.")
		fset.PrintDefaults()
	}
	rooms := fset.Int("rooms", 10000, "rooms in all")
	perZone := fset.Int("per-zone", 100, "rooms per zone")
	seed := fset.Uint64("seed", 1, "the same seed writes the same world")
	treeShape := fset.String("tree", "", "write a tree instead, `FANOUTxDEPTH` (9x4: 6,561 leaves in 81 zones of 91 rooms), every room with up to its parent")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	var tree genworld.TreeOptions
	if *treeShape != "" {
		var err error
		if tree, err = genworld.ParseTree(*treeShape); err != nil {
			fmt.Fprintln(stderr, "zonemud:", err)
			return 2
		}
	}
	if fset.NArg() != 1 {
		fset.Usage()
		return 2
	}
	game, err := fs.ReadFile(areasFS(), "game.toml")
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: genworld:", err)
		return 1
	}
	help, _ := fs.ReadFile(areasFS(), "help.toml") // optional
	st, err := genworld.Generate(fset.Arg(0), genworld.Options{Rooms: *rooms, RoomsPerZone: *perZone, Seed: *seed, Game: game, Help: help, Tree: tree})
	if err != nil {
		fmt.Fprintln(stderr, "zonemud:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d rooms in %d zones (%d exits) to %s; players start in %s\n",
		st.Rooms, st.Zones, st.Exits, fset.Arg(0), st.StartRoom)
	return 0
}

func initDir(args []string, stdout, stderr io.Writer) int {
	dir := "."
	if len(args) > 0 {
		dir = args[0]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "zonemud: init:", err)
		return 1
	}
	cfgOut := filepath.Join(dir, "config.toml")
	areasOut := filepath.Join(dir, "areas")
	for _, p := range []string{cfgOut, areasOut} {
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintf(stderr, "zonemud: init: %s already exists; nothing written\n", p)
			return 1
		}
	}
	if err := os.WriteFile(cfgOut, defaultConfig, 0o644); err != nil {
		fmt.Fprintln(stderr, "zonemud: init:", err)
		return 1
	}
	err := fs.WalkDir(areasFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(areasOut, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(areasFS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: init:", err)
		return 1
	}
	abs, err := filepath.Abs(cfgOut)
	if err != nil {
		abs = cfgOut
	}
	fmt.Fprintf(stdout, "wrote %s and %s; start the server, from any folder, with:\n  zonemud -config %s\n", cfgOut, areasOut, abs)
	fmt.Fprintln(stdout, "there is no database yet: the first start makes a new, empty one in data_dir and says so in its log")
	fmt.Fprintf(stdout, "to be the world's admin, first make your character with:\n  zonemud -config %s admin create YOURNAME\n", abs)
	return 0
}
