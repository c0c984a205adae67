// Package genworld writes a large world of plain rooms as area files: a
// world for measuring the server with thousands of players spread thin,
// and for builders' tools that need a big, valid areas folder.
//
// The world is Zones zones of RoomsPerZone rooms each. Inside a zone the
// rooms are a grid ten wide, joined north, south, east and west. Across the
// world, three random pairings of all the rooms add up/down,
// northeast/southwest and northwest/southeast exits, each pair of exits
// leading both ways, so that every room is a few steps from any other (a
// walker leaves the start room behind in a few dozen random steps, as
// players leave a town). Descriptions are made from word lists; the same
// seed gives the same world, byte for byte.
//
// With Tree set the shape is a tree instead (see TreeOptions): a world
// whose shape gathers players, as towns, boss doors and recall points do.
//
// The package writes files and starts no goroutines.
package genworld

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Options shape a generated world.
type Options struct {
	Rooms        int    // rooms in all (at least 1)
	RoomsPerZone int    // rooms per zone (at least 1; 100 if 0)
	Seed         uint64 // the same seed gives the same world
	// Game is the game.toml to start from (slots, abilities, and the
	// like); its start_room and recall_room are pointed at the first
	// generated room. Help, if set, is written as help.toml.
	Game []byte
	Help []byte
	// Tree, if its Depth is set, writes a tree instead of grids; Rooms
	// and RoomsPerZone are then ignored.
	Tree TreeOptions
}

// TreeOptions shape a tree world. The start room is the root; each room
// has Fanout children, reached by the first Fanout of TreeDirs, and every
// room but the root has up to its parent, so that only up leads back:
// players who walk up and down at random drift into the upper rooms and
// the down spine in packs. A zone is a room two levels below the root with
// everything under it; the root and the first level are a zone of their
// own. Fanout 9 and Depth 4 make 6,561 leaves in 81 zones of 91 rooms.
type TreeOptions struct {
	Fanout int // children of each room, 1 to 9
	Depth  int // levels below the root, 1 to 6
}

// ParseTree reads a tree's shape written FANOUTxDEPTH ("9x4"), both in
// range, and nothing else.
func ParseTree(s string) (TreeOptions, error) {
	f, d, ok := strings.Cut(s, "x")
	fan, err1 := strconv.Atoi(f)
	depth, err2 := strconv.Atoi(d)
	t := TreeOptions{Fanout: fan, Depth: depth}
	switch {
	case !ok || err1 != nil || err2 != nil:
		return TreeOptions{}, fmt.Errorf("genworld: tree %q: want FANOUTxDEPTH, such as 9x4", s)
	case t.Depth < 1 || t.Depth > 6:
		return TreeOptions{}, fmt.Errorf("genworld: a tree %d levels deep is out of range 1 to 6", t.Depth)
	case t.Fanout < 1 || t.Fanout > len(TreeDirs):
		return TreeOptions{}, fmt.Errorf("genworld: a tree of %d children a room is out of range 1 to %d", t.Fanout, len(TreeDirs))
	}
	return t, nil
}

// TreeDirs are the exits from a tree room to its children, in order:
// child k of a room is through TreeDirs[k].
var TreeDirs = [9]string{"north", "east", "south", "west", "northeast", "northwest", "southeast", "southwest", "down"}

// TreePath is the way from the root to leaf k of a tree (k taken modulo
// the number of leaves): the exits to walk, one a level.
func (t TreeOptions) TreePath(k int) []string {
	leaves := 1
	for range t.Depth {
		leaves *= t.Fanout
	}
	k %= leaves
	path := make([]string, t.Depth)
	for i := t.Depth - 1; i >= 0; i-- {
		path[i] = TreeDirs[k%t.Fanout]
		k /= t.Fanout
	}
	return path
}

// gridWidth is the width of a zone's grid of rooms.
const gridWidth = 10

// Stats says what Generate wrote.
type Stats struct {
	Zones, Rooms, Exits int
	StartRoom           string
}

// Generate writes the world into dir, which must be empty or not exist.
func Generate(dir string, o Options) (Stats, error) {
	if o.RoomsPerZone == 0 {
		o.RoomsPerZone = 100
	}
	tree := o.Tree.Depth != 0
	switch {
	case tree && (o.Tree.Depth < 1 || o.Tree.Depth > 6):
		return Stats{}, fmt.Errorf("genworld: a tree %d levels deep is out of range 1 to 6", o.Tree.Depth)
	case tree && (o.Tree.Fanout < 1 || o.Tree.Fanout > len(TreeDirs)):
		return Stats{}, fmt.Errorf("genworld: a tree of %d children a room is out of range 1 to %d", o.Tree.Fanout, len(TreeDirs))
	case !tree && (o.Rooms < 1 || o.Rooms > 1_000_000):
		return Stats{}, fmt.Errorf("genworld: %d rooms is out of range 1 to 1000000", o.Rooms)
	case !tree && (o.RoomsPerZone < 1 || o.RoomsPerZone > 10_000):
		return Stats{}, fmt.Errorf("genworld: %d rooms per zone is out of range 1 to 10000", o.RoomsPerZone)
	case len(o.Game) == 0:
		return Stats{}, errors.New("genworld: no game.toml to start from")
	}
	if err := emptyDir(dir); err != nil {
		return Stats{}, err
	}
	var w *world
	if tree {
		w = buildTree(o)
	} else {
		w = build(o)
	}
	game, err := pointGame(o.Game, w.rooms[0].ref)
	if err != nil {
		return Stats{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "game.toml"), game, 0o644); err != nil {
		return Stats{}, fmt.Errorf("genworld: %w", err)
	}
	if len(o.Help) > 0 {
		if err := os.WriteFile(filepath.Join(dir, "help.toml"), o.Help, 0o644); err != nil {
			return Stats{}, fmt.Errorf("genworld: %w", err)
		}
	}
	st := Stats{Zones: len(w.zones), Rooms: len(w.rooms), StartRoom: w.rooms[0].ref}
	for _, z := range w.zones {
		var b bytes.Buffer
		st.Exits += z.write(&b)
		if err := os.WriteFile(filepath.Join(dir, z.id+".toml"), b.Bytes(), 0o644); err != nil {
			return Stats{}, fmt.Errorf("genworld: %w", err)
		}
	}
	return st, nil
}

// emptyDir makes dir, or checks that it has nothing in it: a generator
// never overwrites a builder's files.
func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("genworld: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("genworld: %w", err)
	case len(ents) > 0:
		return fmt.Errorf("genworld: %s is not empty", dir)
	}
	return nil
}

var (
	startRe  = regexp.MustCompile(`(?m)^start_room\s*=.*$`)
	recallRe = regexp.MustCompile(`(?m)^recall_room\s*=.*$`)
)

// pointGame sets the start and recall rooms of a game.toml.
func pointGame(game []byte, ref string) ([]byte, error) {
	if !startRe.Match(game) || !recallRe.Match(game) {
		return nil, errors.New("genworld: game.toml has no start_room and recall_room lines to point at the new world")
	}
	game = startRe.ReplaceAll(game, []byte(fmt.Sprintf("start_room = %q", ref)))
	return recallRe.ReplaceAll(game, []byte(fmt.Sprintf("recall_room = %q", ref))), nil
}

type world struct {
	zones []*zone
	rooms []*room
}

type zone struct {
	id    string
	n     int
	tree  bool // a part of a tree world
	rooms []*room
}

type room struct {
	z     *zone
	local string // "r03_07"
	ref   string // "g012:room:r03_07"
	x, y  int
	at    [3]int // its coords
	name  string
	desc  string
	exits [10]*room // by direction, in dirs order
}

// dirs are the exit names; opposite[i] is the way back of dirs[i].
var (
	dirs     = [10]string{"north", "east", "south", "west", "up", "down", "northeast", "northwest", "southeast", "southwest"}
	opposite = [10]int{2, 3, 0, 1, 5, 4, 9, 8, 7, 6}
)

func build(o Options) *world {
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	nz := (o.Rooms + o.RoomsPerZone - 1) / o.RoomsPerZone
	digits := len(fmt.Sprint(nz - 1))
	w := &world{}
	for i := range nz {
		z := &zone{id: fmt.Sprintf("g%0*d", max(digits, 3), i), n: i}
		count := min(o.RoomsPerZone, o.Rooms-i*o.RoomsPerZone)
		height := (count + gridWidth - 1) / gridWidth
		for j := range count {
			r := &room{z: z, x: j % gridWidth, y: j / gridWidth}
			r.at = [3]int{z.n*gridWidth*2 + r.x, r.y, 0}
			r.local = fmt.Sprintf("r%02d_%02d", r.y, r.x)
			r.ref = z.id + ":room:" + r.local
			r.name, r.desc = describe(rng)
			z.rooms = append(z.rooms, r)
		}
		// The grid: north is y+1.
		at := func(x, y int) *room {
			if x < 0 || x >= gridWidth || y < 0 || y >= height {
				return nil
			}
			if k := y*gridWidth + x; k < count {
				return z.rooms[k]
			}
			return nil
		}
		for _, r := range z.rooms {
			r.exits[0] = at(r.x, r.y+1)
			r.exits[1] = at(r.x+1, r.y)
			r.exits[2] = at(r.x, r.y-1)
			r.exits[3] = at(r.x-1, r.y)
		}
		w.zones = append(w.zones, z)
		w.rooms = append(w.rooms, z.rooms...)
	}
	w.rooms[0].name = "The Crossroads"
	// Three pairings of all rooms: up/down, northeast/southwest,
	// northwest/southeast.
	for _, d := range []int{4, 6, 7} {
		perm := rng.Perm(len(w.rooms))
		for i := 0; i+1 < len(perm); i += 2 {
			a, b := w.rooms[perm[i]], w.rooms[perm[i+1]]
			a.exits[d], b.exits[opposite[d]] = b, a
		}
	}
	return w
}

// treeChildDir[k] is the index in dirs of TreeDirs[k].
var treeChildDir = [9]int{0, 1, 2, 3, 6, 7, 8, 9, 5}

// buildTree makes the tree of o.Tree, breadth first: rooms[0] is the root.
func buildTree(o Options) *world {
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	t := o.Tree
	zoneLevel := min(2, t.Depth)
	w := &world{}
	hub := &zone{id: "t00", n: 0, tree: true}
	w.zones = append(w.zones, hub)
	newRoom := func(z *zone, path string, level, pos int) *room {
		r := &room{z: z, local: "n" + path, at: [3]int{pos, 0, -level}}
		r.ref = z.id + ":room:" + r.local
		r.name, r.desc = describe(rng)
		z.rooms = append(z.rooms, r)
		w.rooms = append(w.rooms, r)
		return r
	}
	root := newRoom(hub, "", 0, 0)
	root.name = "The Root of the Tree"
	var grow func(parent *room, path string, level, pos int)
	grow = func(parent *room, path string, level, pos int) {
		if level > t.Depth {
			return
		}
		for k := range t.Fanout {
			z := parent.z
			if level == zoneLevel {
				z = &zone{n: len(w.zones), tree: true}
				z.id = fmt.Sprintf("t%02d", z.n)
				w.zones = append(w.zones, z)
			}
			p := path + strconv.Itoa(k)
			child := newRoom(z, p, level, pos*t.Fanout+k)
			parent.exits[treeChildDir[k]] = child
			child.exits[4] = parent // up
			grow(child, p, level+1, pos*t.Fanout+k)
		}
	}
	grow(root, "", 1, 0)
	// The zones' rooms are in depth-first order; the hub has the root
	// first, which the start room needs.
	return w
}

var (
	adjectives = []string{"quiet", "windswept", "narrow", "mossy", "sunlit", "shadowed", "dusty", "broad",
		"crumbling", "overgrown", "muddy", "stony", "misty", "silent", "trampled", "old"}
	places = []string{"lane", "clearing", "courtyard", "hall", "path", "meadow", "crossing", "passage",
		"hollow", "terrace", "square", "gallery", "yard", "ridge", "dell", "walk"}
	details = []string{
		"Weeds push up between the stones underfoot.",
		"A cold wind comes and goes without a sound.",
		"Someone has scratched a tally of days into a wall here.",
		"The ground is worn smooth by many feet.",
		"Birds quarrel somewhere out of sight.",
		"An old signpost leans here, its arms long since broken off.",
		"Puddles stand in the ruts of cart wheels.",
		"Ivy has taken most of a low wall.",
		"A faint smell of woodsmoke hangs in the air.",
		"Moss grows thick on the north side of everything.",
	}
)

func describe(rng *rand.Rand) (name, desc string) {
	adj, place := adjectives[rng.IntN(len(adjectives))], places[rng.IntN(len(places))]
	name = strings.ToUpper(adj[:1]) + adj[1:] + " " + strings.ToUpper(place[:1]) + place[1:]
	d1 := details[rng.IntN(len(details))]
	d2 := details[rng.IntN(len(details))]
	if d2 == d1 {
		d2 = ""
	} else {
		d2 = " " + d2
	}
	desc = fmt.Sprintf("A %s %s, one of many in this wide country. %s%s", adj, place, d1, d2)
	return name, desc
}

// write writes the zone's area file and returns its exit count.
func (z *zone) write(b *bytes.Buffer) int {
	if z.tree {
		fmt.Fprintf(b, "# Generated by `zonemud genworld -tree`: %d rooms of a tree; up leads\n", len(z.rooms))
		b.WriteString("# to a room's parent, the other exits to its children.\n\n")
	} else {
		fmt.Fprintf(b, "# Generated by `zonemud genworld`: %d rooms on a grid %d wide, with\n", len(z.rooms), gridWidth)
		b.WriteString("# up, down and diagonal exits to rooms anywhere in the world.\n\n")
	}
	b.WriteString("[zone]\n")
	name := fmt.Sprintf("Wide Country %d", z.n+1)
	if z.tree {
		name = fmt.Sprintf("Tree Country %d", z.n+1)
	}
	fmt.Fprintf(b, "name = %q\n", name)
	b.WriteString("description = \"One of the generated zones of the wide country.\"\n")
	b.WriteString("credits = \"zonemud genworld\"\n")
	b.WriteString("levels = [1, 10]\n")
	exits := 0
	for _, r := range z.rooms {
		fmt.Fprintf(b, "\n[rooms.%s]\n", r.local)
		fmt.Fprintf(b, "name = %q\n", r.name)
		b.WriteString("environment = \"field\"\n")
		fmt.Fprintf(b, "coords = [%d, %d, %d]\n", r.at[0], r.at[1], r.at[2])
		fmt.Fprintf(b, "description = %q\n", r.desc)
		b.WriteString("exits = {")
		first := true
		for d, to := range r.exits {
			if to == nil {
				continue
			}
			ref := to.ref
			if to.z == z {
				ref = to.local
			}
			if !first {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, " %s = %q", dirs[d], ref)
			first = false
			exits++
		}
		b.WriteString(" }\n")
	}
	return exits
}
