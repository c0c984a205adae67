package circle

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Limits of the zonemud schema (package content) that conversion keeps
// inside, noting what it cuts.
const (
	maxShort     = 200
	maxLong      = 400
	maxText      = 16 << 10
	maxPerZone   = 5000
	maxLevel     = 1000
	maxHP        = 10_000_000
	maxDiceN     = 100
	maxDiceS     = 10000
	maxDiceB     = 1_000_000
	maxResetSecs = 86400
)

// Options shape a conversion.
type Options struct {
	// Start is the vnum of the room new characters start in: 0 for
	// tbaMUD's Temple of Midgaard (3001) when it is there, else the
	// lowest room.
	Start int
	// Game is the game.toml to start from; its start_room and
	// recall_room are pointed at the start room. Help, if set, is
	// written as help.toml, and Channels as channels.toml: a Circle
	// game's channels (gossip, auction, ...) are in its code, not its
	// world files, so an imported world takes the channels it is given.
	Game     []byte
	Help     []byte
	Channels []byte
}

// ZoneStat counts what one zone converted.
type ZoneStat struct {
	Vnum                                int
	ID, Name, File                      string
	Rooms, Mobs, Items, Resets          int
	Shops, Triggers                     int
	Dropped, Approximated, Broken, Errs int
}

// Result is a converted world: its files by name, and what happened.
type Result struct {
	Files     map[string][]byte // file name in the areas folder -> content
	Start     string            // the start room's ref
	Zones     []ZoneStat
	Notes     []Note
	Rooms     int
	Mobs      int
	Items     int
	Resets    int
	Triggers  int
	Shops     int // converted
	ShopsSeen int // read from the source
	Quests    int
	SourceErr int // records refused as unreadable
}

// ErrNoRooms is returned for a source with no room that reads.
var ErrNoRooms = errors.New("circle: the source has no room that reads; nothing to import")

// conv is one conversion in progress.
type conv struct {
	w     *World
	o     Options
	zones []*outZone
	byVn  map[int]*outZone // source zone vnum -> output zone
	notes []Note
	// owners of each converted thing, by vnum
	roomZone, mobZone, objZone map[int]*outZone
	// door states from D resets: room vnum, dir -> state
	doorState map[[2]int]int
	// trigger attachments: trigger vnum -> where
	trigUse       map[int][]string
	trigConverted map[int]bool
	// shops by keeper mob vnum, and those written
	shopOf    map[int]*Shop
	shopsDone []convertedShop
}

type outZone struct {
	src    *Zone
	vnum   int
	id     string
	bot    int
	top    int
	rooms  []*Room
	mobs   []*Mob
	objs   []*Obj
	resets []*reset
	stat   ZoneStat
}

func (c *conv) note(where at, z *outZone, kind, format string, args ...any) {
	n := Note{File: where.File, Line: where.Line, Zone: -1, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	if z != nil {
		n.Zone = z.vnum
		switch kind {
		case KindDropped:
			z.stat.Dropped++
		case KindApproximated:
			z.stat.Approximated++
		case KindBroken:
			z.stat.Broken++
		case KindError:
			z.stat.Errs++
		}
	}
	c.notes = append(c.notes, n)
}

// Convert turns a world read by Read into zonemud area files.
func Convert(w *World, o Options) (*Result, error) {
	if len(w.Rooms) == 0 {
		return nil, ErrNoRooms
	}
	c := &conv{w: w, o: o, byVn: map[int]*outZone{}, roomZone: map[int]*outZone{}, mobZone: map[int]*outZone{}, objZone: map[int]*outZone{}, doorState: map[[2]int]int{}, trigUse: map[int][]string{}, trigConverted: map[int]bool{}}
	c.placeZones()
	c.placeShops()
	res := &Result{Files: map[string][]byte{}}
	start, err := c.startRoom()
	if err != nil {
		return nil, err
	}
	res.Start = c.ref(c.roomZone[start], "room", start, nil)
	c.collectDoorStates()
	for _, z := range c.zones {
		c.convertResets(z)
	}
	for _, z := range c.zones {
		if len(z.rooms) == 0 {
			continue
		}
		var b strings.Builder
		c.writeZone(&b, z)
		res.Files[z.id+".toml"] = []byte(b.String())
	}
	if len(o.Game) > 0 {
		game, err := pointGame(o.Game, res.Start)
		if err != nil {
			return nil, err
		}
		res.Files["game.toml"] = game
	}
	if len(o.Help) > 0 {
		res.Files["help.toml"] = o.Help
	}
	if len(o.Channels) > 0 {
		res.Files["channels.toml"] = o.Channels
	}
	for _, z := range c.zones {
		if len(z.rooms) == 0 {
			continue
		}
		z.stat.Vnum, z.stat.ID, z.stat.File = z.vnum, z.id, z.id+".toml"
		res.Zones = append(res.Zones, z.stat)
		res.Rooms += z.stat.Rooms
		res.Mobs += z.stat.Mobs
		res.Items += z.stat.Items
		res.Resets += z.stat.Resets
		res.Shops += z.stat.Shops
	}
	res.Triggers, res.Quests = len(w.Triggers), len(w.Quests)
	res.ShopsSeen = len(w.Shops)
	res.Notes = append(append([]Note(nil), w.Notes...), c.notes...)
	for _, n := range res.Notes {
		if n.Kind == KindError {
			res.SourceErr++
		}
	}
	res.Files["IMPORT.md"] = report(w, c, res)
	return res, nil
}

var (
	startRe  = regexp.MustCompile(`(?m)^start_room\s*=.*$`)
	recallRe = regexp.MustCompile(`(?m)^recall_room\s*=.*$`)
)

// pointGame sets the start and recall rooms of a game.toml.
func pointGame(game []byte, ref string) ([]byte, error) {
	if !startRe.Match(game) || !recallRe.Match(game) {
		return nil, errors.New("circle: the game.toml to start from has no start_room and recall_room lines")
	}
	game = startRe.ReplaceAll(game, []byte("start_room = "+quote(ref)))
	return recallRe.ReplaceAll(game, []byte("recall_room = "+quote(ref))), nil
}

// placeZones gives every room, mob and object the zone whose range holds
// its vnum, as the engine does; what no zone holds goes to a zone of its
// own, with a note.
func (c *conv) placeZones() {
	var vnums []int
	for v := range c.w.Zones {
		vnums = append(vnums, v)
	}
	sort.Ints(vnums)
	prevTop := -1
	ids := map[string]bool{}
	for _, v := range vnums {
		src := c.w.Zones[v]
		z := &outZone{src: src, vnum: v, bot: src.Bot, top: src.Top}
		if !src.HasBot {
			z.bot = prevTop + 1
		}
		if z.top < z.bot {
			c.note(src.at, z, KindError, "zone %d: top room %d is below its bottom room %d; the zone holds no rooms", v, z.top, z.bot)
		}
		prevTop = max(prevTop, z.top)
		z.id = zoneID(src.Name, v, ids)
		c.zones = append(c.zones, z)
		c.byVn[v] = z
	}
	var unzoned *outZone
	owner := func(vnum int, where at, kind string) *outZone {
		for _, z := range c.zones {
			if z.src != nil && vnum >= z.bot && vnum <= z.top {
				return z
			}
		}
		if unzoned == nil {
			unzoned = &outZone{vnum: -1, id: zoneID("unzoned", -1, ids)}
			c.zones = append(c.zones, unzoned)
		}
		if len(c.w.Zones) > 0 {
			c.note(where, unzoned, KindApproximated, "%s %d is in no zone's range; it goes to the zone %s", kind, vnum, unzoned.id)
		}
		return unzoned
	}
	for _, v := range sortedKeys(c.w.Rooms) {
		r := c.w.Rooms[v]
		z := owner(v, r.at, "room")
		z.rooms = append(z.rooms, r)
		c.roomZone[v] = z
	}
	for _, v := range sortedKeys(c.w.Mobs) {
		m := c.w.Mobs[v]
		z := owner(v, m.at, "mob")
		z.mobs = append(z.mobs, m)
		c.mobZone[v] = z
	}
	for _, v := range sortedKeys(c.w.Objs) {
		o := c.w.Objs[v]
		z := owner(v, o.at, "object")
		z.objs = append(z.objs, o)
		c.objZone[v] = z
	}
	for _, z := range c.zones {
		if len(z.rooms) > maxPerZone || len(z.mobs) > maxPerZone || len(z.objs) > maxPerZone {
			where := at{}
			if z.src != nil {
				where = z.src.at
			}
			c.note(where, z, KindApproximated, "zone %s has more than %d rooms, mobs or objects; only the first %d of each are kept", z.id, maxPerZone, maxPerZone)
			for _, r := range z.rooms[min(len(z.rooms), maxPerZone):] {
				delete(c.roomZone, r.Vnum)
			}
			for _, m := range z.mobs[min(len(z.mobs), maxPerZone):] {
				delete(c.mobZone, m.Vnum)
			}
			for _, o := range z.objs[min(len(z.objs), maxPerZone):] {
				delete(c.objZone, o.Vnum)
			}
			z.rooms = z.rooms[:min(len(z.rooms), maxPerZone)]
			z.mobs = z.mobs[:min(len(z.mobs), maxPerZone)]
			z.objs = z.objs[:min(len(z.objs), maxPerZone)]
		}
		if len(z.rooms) == 0 && z.src != nil && (len(z.mobs) > 0 || len(z.objs) > 0) {
			c.note(z.src.at, z, KindDropped, "zone %d has mobs or objects but no rooms: a zonemud zone needs a room, so they are left out", z.vnum)
			for _, m := range z.mobs {
				delete(c.mobZone, m.Vnum)
			}
			for _, o := range z.objs {
				delete(c.objZone, o.Vnum)
			}
		}
	}
}

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// zoneID names a zone: a slug of its name and its vnum, unique.
func zoneID(name string, vnum int, taken map[string]bool) string {
	plain, _ := text(name)
	s := slug(stripMarkup(plain), 24)
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "zone" + strings.TrimPrefix("_"+s, "_")
	}
	id := s
	if vnum >= 0 {
		id = fmt.Sprintf("%s_%d", s, vnum)
	}
	for n := 2; taken[id]; n++ {
		id = fmt.Sprintf("%s_%d_%d", s, max(vnum, 0), n)
	}
	taken[id] = true
	return id
}

var markupRe = regexp.MustCompile(`\{[a-zA-Z]\}`)

func stripMarkup(s string) string {
	return strings.ReplaceAll(markupRe.ReplaceAllString(s, ""), "{{", "{")
}

// ref is how zone from writes the ref of a thing: its bare name inside
// its own zone, zone:kind:name elsewhere.
func (c *conv) ref(owner *outZone, kind string, vnum int, from *outZone) string {
	local := localName(kind, vnum)
	if owner == from {
		return local
	}
	return owner.id + ":" + kind + ":" + local
}

func localName(kind string, vnum int) string {
	switch kind {
	case "room":
		return fmt.Sprintf("r%d", vnum)
	case "mob":
		return fmt.Sprintf("m%d", vnum)
	}
	return fmt.Sprintf("o%d", vnum)
}

// startRoom picks the start room: the one asked for, else 3001, else the
// lowest converted room.
func (c *conv) startRoom() (int, error) {
	if c.o.Start != 0 {
		if _, ok := c.roomZone[c.o.Start]; !ok {
			return 0, fmt.Errorf("circle: the start room %d is not a room of the source", c.o.Start)
		}
		return c.o.Start, nil
	}
	if _, ok := c.roomZone[3001]; ok {
		return 3001, nil
	}
	low := -1
	for v := range c.roomZone {
		if low < 0 || v < low {
			low = v
		}
	}
	return low, nil
}

// str converts one text field for the output, noting colour codes it
// dropped and text it cut.
func (c *conv) str(s string, limit int, where at, z *outZone, what string) string {
	out, dropped := text(s)
	if len(dropped) > 0 {
		c.note(where, z, KindDropped, "%s: colour codes with no zonemud markup taken out: %s", what, strings.Join(dropped, " "))
	}
	if len(out) > limit {
		c.note(where, z, KindApproximated, "%s: %d bytes, cut to zonemud's limit of %d", what, len(out), limit)
		out = cut(out, limit)
	}
	return out
}
