package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"zonemud/server"
	"zonemud/store"
)

// stdin is where admin create reads a password; tests replace it.
var stdin io.Reader = os.Stdin

// adminCmd makes the world's first admins on the server's shell:
//
//	zonemud admin create [-config FILE] [-password PW] NAME
//	zonemud admin grant [-config FILE] NAME
//
// Both open the database themselves, so the server must be stopped: a
// running one holds the file's lock, and the command says so.
func adminCmd(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("zonemud admin", flag.ContinueOnError)
	fset.SetOutput(stderr)
	cfgPath := fset.String("config", "", "configuration `FILE` (default: ./config.toml if present, else the built-in defaults)")
	password := fset.String("password", "", "the new character's password (for scripts: other users of the machine can read a command line; without it, the password is read from stdin)")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: zonemud admin create [-config FILE] [-password PW] NAME\n"+
			"       zonemud admin grant [-config FILE] NAME\n\n"+
			"create makes a new character that holds the admin role: the way to make a\n"+
			"world's first admin. The password is asked twice on a terminal, or read as\n"+
			"the first line of stdin. grant gives the admin role to a character that\n"+
			"exists (one you made in game). Both need the server stopped: they open the\n"+
			"database, which a running server holds. With a server running, an admin\n"+
			"grants the role in game instead: grant NAME admin.")
		fset.PrintDefaults()
	}
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
	if len(pos) != 2 || (pos[0] != "create" && pos[0] != "grant") {
		fset.Usage()
		return 2
	}
	verb, typed := pos[0], pos[1]
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fail := func(err error) int {
		switch {
		case errors.Is(err, server.ErrServerRunning):
			fmt.Fprintf(stderr, "zonemud: admin %s: the server is running on %s; stop it first, or have an admin grant the role in game (grant %s admin). Nothing was changed.\n",
				verb, cfg.Server.DataDir, typed)
		case errors.Is(err, server.ErrAdminExists):
			fmt.Fprintf(stderr, "zonemud: admin create: %v. Nothing was changed; if that character is yours, zonemud admin grant %s makes it an admin.\n", err, typed)
		case errors.Is(err, store.ErrNotFound):
			fmt.Fprintf(stderr, "zonemud: admin grant: there is no character named %s; zonemud admin create %s makes one.\n", typed, typed)
		default:
			fmt.Fprintf(stderr, "zonemud: admin %s: %v\n", verb, err)
		}
		return 1
	}
	if verb == "grant" {
		name, err := server.GrantAdmin(cfg, typed)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s is now an admin (from its next login).\n", name)
		return 0
	}
	pw := *password
	if pw == "" {
		if pw, err = readPassword(stderr); err != nil {
			fmt.Fprintln(stderr, "zonemud: admin create:", err)
			return 1
		}
	}
	name, err := server.CreateAdmin(cfg, typed, pw)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "made %s, an admin, in %s; start the server and log in as %s.\n", name, cfg.Server.DataDir, name)
	return 0
}

// readPassword asks for a password twice on a terminal, without echo, or
// reads the first line of stdin when it is not one.
func readPassword(prompt io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, "Choose a password: ")
		pw, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", err
		}
		fmt.Fprint(prompt, "Type the password again: ")
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", err
		}
		if string(again) != string(pw) {
			return "", errors.New("the two passwords differ; nothing was changed")
		}
		return string(pw), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", fmt.Errorf("no password on stdin (give it as the first line, or use -password): %v", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
