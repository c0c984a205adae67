package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"zonemud/content"
	"zonemud/content/circle"
	"zonemud/server/config"
	"zonemud/world"
)

// importWorld runs `zonemud import circle SRC OUT`: it converts another
// engine's world into an areas folder, writes the report beside it, and
// checks the result as `zonemud check` would.
func importWorld(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("zonemud import", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: zonemud import circle [-force] [-start VNUM] SRC OUT\n\n"+
			"Converts a CircleMUD or tbaMUD world into zonemud areas. SRC is a lib/world\n"+
			"folder (with wld, mob, obj, zon, shp, trg and their index files) or a folder\n"+
			"of one zone's files; OUT is a new areas folder. OUT/IMPORT.md reports what did\n"+
			"not convert as written. Point areas_dir at OUT to serve it.")
		fset.PrintDefaults()
	}
	force := fset.Bool("force", false, "write into OUT even if it is not empty")
	start := fset.Int("start", 0, "the `VNUM` of the start room (default 3001 if there is one, else the lowest room)")
	// Flags may come before or after the arguments.
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
	if len(pos) != 3 || pos[0] != "circle" {
		fmt.Fprintf(stderr, "zonemud: import takes a format (circle), a source and an output folder; got %q\n\n", pos)
		fset.Usage()
		return 2
	}
	src, out := pos[1], pos[2]
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "zonemud: import: %s is not a folder\n", src)
		return 1
	}
	if *start < 0 {
		fmt.Fprintf(stderr, "zonemud: import: -start %d is not a room vnum\n", *start)
		return 2
	}
	game, err := fs.ReadFile(areasFS(), "game.toml")
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: import:", err)
		return 1
	}
	help, _ := fs.ReadFile(areasFS(), "help.toml")         // optional
	channels, _ := fs.ReadFile(areasFS(), "channels.toml") // optional
	w, err := circle.Read(os.DirFS(src))
	if err != nil {
		fmt.Fprintf(stderr, "zonemud: import: %s: %v\n", src, err)
		return 1
	}
	res, err := circle.Convert(w, circle.Options{Start: *start, Game: game, Help: help, Channels: channels})
	if err != nil {
		fmt.Fprintf(stderr, "zonemud: import: %s: %v\n", src, err)
		return 1
	}
	if err := circle.Write(out, res, *force); err != nil {
		fmt.Fprintln(stderr, "zonemud: import:", err)
		return 1
	}
	for _, z := range res.Zones {
		fmt.Fprintf(stdout, "zone %d %s: %d rooms, %d mobs, %d items, %d resets, %d shops (%d approximated, %d dropped, %d broken references)\n",
			z.Vnum, z.File, z.Rooms, z.Mobs, z.Items, z.Resets, z.Shops, z.Approximated, z.Dropped, z.Broken)
	}
	for _, n := range res.Notes {
		if n.Kind == circle.KindError {
			fmt.Fprintln(stderr, "error:", n)
		}
	}
	fmt.Fprintf(stdout, "imported %d zones, %d rooms, %d mobs, %d items, %d resets, %d of %d shops from %s into %s; players start in %s\n",
		len(res.Zones), res.Rooms, res.Mobs, res.Items, res.Resets, res.Shops, res.ShopsSeen, src, out, res.Start)
	fmt.Fprintf(stdout, "not converted: %d triggers, %d quests; %d records did not read; see %s/IMPORT.md\n",
		res.Triggers, res.Quests, res.SourceErr, out)
	cfg, err := config.Load(defaultConfig, "")
	if err != nil {
		fmt.Fprintln(stderr, "zonemud: import:", err)
		return 1
	}
	if _, _, err := world.Check(os.DirFS(out), cfg.Lua); err != nil {
		var ps content.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				fmt.Fprintln(stderr, p.String())
			}
		}
		fmt.Fprintf(stderr, "zonemud: import: the imported areas do not pass the check: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "areas in %s pass the check\n", out)
	return 0
}
