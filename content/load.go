package content

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"zonemud/internal/typo"
)

// Reserved file names in the areas root. Every other *.toml there is a zone.
const (
	GameFile    = "game.toml"
	HelpFile    = "help.toml"
	SocialsFile = "socials.toml"
)

// Limits on what an area file may declare. They keep one bad file from
// costing the server much memory, and are far above what a zone needs.
const (
	maxFileBytes  = 4 << 20
	maxTextBytes  = 16 << 10
	maxShortBytes = 200
	maxKeywords   = 16
	maxPerZone    = 5000
	maxLevel      = 1000
)

// Problem is one thing wrong in the content, located by file, line and key
// path.
type Problem struct {
	File string // relative to the areas root
	Line int    // 1-based line in File; 0 when unknown
	Key  string // TOML key path, such as rooms.square.exits.north
	Msg  string
}

// String is the problem as editors and CI read it:
// file:line: key: message, the line and the key when known.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem a load found. It is the error Load returns.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "content: %d problem(s):", len(ps))
	for _, p := range ps {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// ErrNoZones is returned when the areas root holds no zone file.
var ErrNoZones = errors.New("content: no zone files found")

// Load reads and validates every area file under root and returns the
// content set. If anything is wrong it returns a Problems error that lists
// every problem found, not just the first, and no Set.
//
// Each file is read once, and only a regular file of at most 4 MiB is read
// at all: what a load sees of a file is what it read at that moment, and a
// huge file, a named pipe or a symlink loop is a problem with that file,
// not a stall or an exhausted memory.
func Load(root fs.FS) (*Set, error) { return LoadCached(root, nil) }

// LoadCached is Load with a cache of decoded files: a file whose bytes are
// those of the last load that went through the cache is not decoded again.
// A reload of a large world then decodes only the files that changed; the
// checks that span files run whole every time. c may be nil.
func LoadCached(root fs.FS, c *Cache) (*Set, error) {
	l := &loader{root: newSnapFS(root), cache: c, lines: map[string]lineIndex{}, set: &Set{
		Zones:  map[string]*Zone{},
		Rooms:  map[string]*Room{},
		Mobs:   map[string]*Mob{},
		Items:  map[string]*Item{},
		Quests: map[string]*Quest{},
		rooms:  map[int]*Room{},
	}}
	return l.load()
}

type loader struct {
	root  fs.FS
	cache *Cache               // nil: decode every file
	lines map[string]lineIndex // by file, built when a problem or a prototype needs a line
	set   *Set
	probs Problems
	files map[string]*zoneFile // by file name
	game  gameFile
	help  helpFile
	// doorKeys and resets are checked after every zone is declared.
	pending []func()
}

func (l *loader) problem(file, key, format string, args ...any) {
	l.probs = append(l.probs, Problem{File: file, Line: l.line(file, key), Key: key, Msg: fmt.Sprintf(format, args...)})
}

// line is the line key is written on in file (or its nearest parent's);
// 0 when the file does not read.
func (l *loader) line(file, key string) int {
	idx, ok := l.lines[file]
	if !ok {
		data, err := fs.ReadFile(l.root, file)
		if err == nil && utf8.Valid(data) {
			idx = l.cache.index(file, sha256.Sum256(data), data)
		}
		l.lines[file] = idx
	}
	return idx.line(key)
}
func (l *loader) load() (*Set, error) {
	entries, err := fs.ReadDir(l.root, ".")
	if err != nil {
		return nil, fmt.Errorf("content: read areas: %w", err)
	}
	var zoneFiles []string
	haveGame, haveHelp, haveSocials, haveChannels := false, false, false, false
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".toml") {
			continue
		}
		switch name {
		case GameFile:
			haveGame = true
		case HelpFile:
			haveHelp = true
		case SocialsFile:
			haveSocials = true
		case ChannelsFile:
			haveChannels = true
		default:
			zoneFiles = append(zoneFiles, name)
		}
	}
	sort.Strings(zoneFiles)
	if len(zoneFiles) == 0 {
		return nil, ErrNoZones
	}
	unreadable := false
	if haveGame {
		unreadable = !l.decode(GameFile, &l.game)
	} else {
		l.problem(GameFile, "", "missing: the world needs a game data file")
	}
	if haveHelp && !l.decode(HelpFile, &l.help) {
		unreadable = true
	}
	if !l.loadSocials(haveSocials) {
		unreadable = true
	}
	if !l.loadChannels(haveChannels) {
		unreadable = true
	}
	l.files = map[string]*zoneFile{}
	for _, name := range zoneFiles {
		zf := &zoneFile{}
		if l.decode(name, zf) {
			l.files[name] = zf
		} else {
			unreadable = true
		}
	}
	if unreadable {
		// References into a file that does not read cannot be checked:
		// report what stops it reading, and none of the knock-on "no
		// zone" problems that would follow.
		return nil, l.probs
	}
	// Declare every zone and its prototypes first, so that references
	// between zones resolve whatever order the files come in.
	for _, name := range zoneFiles {
		if zf := l.files[name]; zf != nil {
			l.declareZone(name, zf)
		}
	}
	l.validateGame()
	for _, name := range zoneFiles {
		if zf := l.files[name]; zf != nil {
			l.linkZone(name, zf)
		}
	}
	for _, f := range l.pending {
		f()
	}
	l.declareQuests(zoneFiles)
	l.validateHelp()
	if len(l.probs) > 0 {
		return nil, l.probs
	}
	l.number()
	l.cache.prune()
	for id := range l.set.Zones {
		l.set.ZoneOrder = append(l.set.ZoneOrder, id)
	}
	sort.Strings(l.set.ZoneOrder)
	return l.set, nil
}

// decode reads one TOML file into v, reporting syntax errors, type errors
// and every key the schema does not know. It reports whether v is usable.
// A file that would cost the decoder more than areaLimits allow is
// refused before the decoder sees it (guard.go).
func (l *loader) decode(name string, v any) bool {
	data, err := fs.ReadFile(l.root, name)
	if err != nil {
		l.problem(name, "", "%v", readProblem(err))
		return false
	}
	if !utf8.Valid(data) {
		l.probs = append(l.probs, Problem{File: name, Line: badUTF8Line(data), Msg: "file is not valid UTF-8; save it as UTF-8"})
		return false
	}
	sum := sha256.Sum256(data)
	if e, ok := l.cache.get(name, sum, v); ok {
		l.probs = append(l.probs, e.probs...)
		return e.ok
	}
	first := len(l.probs)
	ok := false
	if line, msg := measureTOML(string(data), areaLimits); line > 0 {
		l.probs = append(l.probs, Problem{File: name, Line: line, Msg: msg})
	} else {
		ok = l.decodeTOML(name, string(data), v)
	}
	l.cache.put(name, sum, v, slices.Clone(l.probs[first:]), ok)
	return ok
}

func (l *loader) decodeTOML(name, data string, v any) bool {
	md, err := toml.Decode(data, v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			l.probs = append(l.probs, Problem{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message})
		} else {
			l.probs = append(l.probs, typeProblem(name, err))
		}
		return false
	}
	for _, k := range md.Undecoded() {
		l.problem(name, k.String(), "unknown key%s", keySuggestion(v, k))
	}
	return true
}

// typeErr matches the text of BurntSushi/toml's type errors, which are not
// ParseErrors: "toml: line 3 (last key "zone.reset_secs"): incompatible
// types: ...".
var typeErr = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): (.*)$`)

// typeProblem turns a decode error into a problem with its line and key.
func typeProblem(file string, err error) Problem {
	m := typeErr.FindStringSubmatch(err.Error())
	if m == nil {
		return Problem{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	return Problem{File: file, Line: line, Key: m[2], Msg: m[3]}
}

func (l *loader) declareZone(file string, zf *zoneFile) {
	h := zf.Zone
	id := h.ID
	if id == "" {
		id = strings.TrimSuffix(file, ".toml")
	}
	if !ValidName(id) {
		l.problem(file, "zone.id", "%q is not a valid zone id (1 to 64 of a-z, 0-9 and _)", id)
		return
	}
	if prev, ok := l.set.Zones[id]; ok {
		l.problem(file, "zone.id", "zone %q is already declared in %s", id, prev.File)
		return
	}
	z := &Zone{
		ID: id, Name: h.Name, Description: h.Description, Credits: h.Credits,
		Builders: h.Builders, ResetSecs: h.ResetSecs, Instanceable: h.Instanceable,
		Levels: h.Levels, File: file, Line: l.line(file, "zone"),
	}
	l.set.Zones[id] = z
	l.text(file, "zone.name", h.Name, maxShortBytes, true)
	l.text(file, "zone.description", h.Description, maxTextBytes, false)
	if h.ResetSecs < 0 || h.ResetSecs > 86400 {
		l.problem(file, "zone.reset_secs", "%d is out of range 0 to 86400 (0 means never)", h.ResetSecs)
	}
	if len(zf.Rooms) == 0 {
		l.problem(file, "rooms", "a zone needs at least one room")
	}
	if len(zf.Rooms) > maxPerZone || len(zf.Mobs) > maxPerZone || len(zf.Items) > maxPerZone {
		l.problem(file, "", "a zone may declare at most %d rooms, mobs and items each", maxPerZone)
		return
	}
	for _, local := range sortedKeys(zf.Rooms) {
		key := "rooms." + local
		if !ValidName(local) {
			l.problem(file, key, "%q is not a valid room name (a-z, 0-9 and _)", local)
			continue
		}
		r := &Room{Ref: id + ":room:" + local, Zone: id, Local: local, Line: l.line(file, key)}
		l.set.Rooms[r.Ref] = r
		z.Rooms = append(z.Rooms, r)
	}
	for _, local := range sortedKeys(zf.Mobs) {
		key := "mobs." + local
		if !ValidName(local) {
			l.problem(file, key, "%q is not a valid mob name (a-z, 0-9 and _)", local)
			continue
		}
		m := &Mob{Ref: id + ":mob:" + local, Zone: id, Local: local, Line: l.line(file, key)}
		l.set.Mobs[m.Ref] = m
		z.Mobs = append(z.Mobs, m)
	}
	for _, local := range sortedKeys(zf.Items) {
		key := "items." + local
		if !ValidName(local) {
			l.problem(file, key, "%q is not a valid item name (a-z, 0-9 and _)", local)
			continue
		}
		it := &Item{Ref: id + ":item:" + local, Zone: id, Local: local, Line: l.line(file, key)}
		l.set.Items[it.Ref] = it
		z.Items = append(z.Items, it)
	}
}

// linkZone fills in every prototype of a declared zone and checks every
// reference it makes.
func (l *loader) linkZone(file string, zf *zoneFile) {
	id := zf.Zone.ID
	if id == "" {
		id = strings.TrimSuffix(file, ".toml")
	}
	z := l.set.Zones[id]
	if z == nil || z.File != file {
		return // declareZone already reported why
	}
	if zf.Zone.StartRoom != "" {
		if ref, ok := l.roomRef(file, "zone.start_room", id, zf.Zone.StartRoom); ok {
			if RefZone(ref) != id {
				l.problem(file, "zone.start_room", "%s is not a room of this zone", ref)
			} else {
				z.StartRoom = ref
			}
		}
	} else if z.Instanceable {
		l.problem(file, "zone.start_room", "an instanceable zone needs a start room")
	}
	for _, r := range z.Rooms {
		l.linkRoom(file, z, r, zf.Rooms[r.Local])
	}
	l.oneRoomASquare(file, z)
	for _, m := range z.Mobs {
		l.linkMob(file, z, m, zf.Mobs[m.Local])
	}
	for _, it := range z.Items {
		l.linkItem(file, z, it, zf.Items[it.Local])
	}
	for i, rs := range zf.Resets {
		l.linkReset(file, z, i, rs)
	}
}

// oneRoomASquare refuses two rooms of a zone on one map square: a mapper
// (Mudlet's, from GMCP Room.Info) draws them on top of each other, and
// the player's map is wrong from there on.
func (l *loader) oneRoomASquare(file string, z *Zone) {
	at := map[[3]int]*Room{}
	for _, r := range z.Rooms { // sorted by ref: the same room is named first every time
		if !r.HasCoords {
			continue
		}
		if o := at[r.Coords]; o != nil {
			l.problem(file, "rooms."+r.Local+".coords", "[%d, %d, %d] is the map square of rooms.%s too (line %d): give each room a square of its own, so that a mapper can draw both",
				r.Coords[0], r.Coords[1], r.Coords[2], o.Local, o.Line)
			continue
		}
		at[r.Coords] = r
	}
}

func (l *loader) linkRoom(file string, z *Zone, r *Room, s roomSpec) {
	key := "rooms." + r.Local
	r.Name = s.Name
	r.Description = s.Description
	r.Environment = s.Environment
	l.text(file, key+".name", s.Name, maxShortBytes, true)
	l.text(file, key+".description", s.Description, maxTextBytes, true)
	l.text(file, key+".environment", s.Environment, 40, false)
	switch len(s.Coords) {
	case 0:
	case 3:
		copy(r.Coords[:], s.Coords)
		r.HasCoords = true
	default:
		l.problem(file, key+".coords", "want three numbers [x, y, z], got %d", len(s.Coords))
	}
	f, err := parseFlags(s.Flags, roomFlagNames)
	if err != nil {
		l.problem(file, key+".flags", "%v", err)
	}
	r.Flags = RoomFlags(f)
	for _, dname := range sortedKeys(s.Exits) {
		dkey := key + ".exits." + dname
		d, ok := ParseDir(dname)
		if !ok {
			l.problem(file, dkey, "%q is not a direction (north, east, south, west, up, down, northeast, northwest, southeast, southwest)", dname)
			continue
		}
		if r.Exits[d] != nil {
			l.problem(file, dkey, "a second exit %s (the first is written %q)", d, r.Exits[d].To)
			continue
		}
		to, ok := l.roomRef(file, dkey, z.ID, s.Exits[dname])
		if !ok {
			continue
		}
		if tz := l.set.Zones[RefZone(to)]; tz != nil && tz.ID != z.ID && tz.Instanceable {
			// Its rooms exist only in its copies: an exit would lead
			// nowhere (the template itself is never hosted).
			l.problem(file, dkey, "zone %q is instanceable: its rooms exist only in its private copies; lead into it with instance_entrances = { %s = %q }", tz.ID, d, tz.ID)
			continue
		}
		r.Exits[d] = &Exit{To: to}
	}
	for _, dname := range sortedKeys(s.Doors) {
		dkey := key + ".doors." + dname
		d, ok := ParseDir(dname)
		if !ok {
			l.problem(file, dkey, "%q is not a direction", dname)
			continue
		}
		ds := s.Doors[dname]
		if r.Exits[d] == nil {
			l.problem(file, dkey, "a door needs an exit %s in this room", d)
			continue
		}
		door := &Door{Keywords: ds.Keywords, Short: ds.Short, Closed: ds.Closed || ds.Locked, Locked: ds.Locked}
		if len(door.Keywords) == 0 {
			door.Keywords = []string{"door"}
		}
		if door.Short == "" {
			door.Short = "the " + door.Keywords[0]
		}
		l.keywords(file, dkey+".keywords", door.Keywords)
		if ds.Key != "" {
			if ref, ok := l.protoRef(file, dkey+".key", z.ID, KindItem, ds.Key); ok {
				door.Key = ref
			}
		} else if ds.Locked {
			l.problem(file, dkey+".locked", "a locked door needs a key")
		}
		r.Exits[d].Door = door
	}
	for _, dname := range sortedKeys(s.InstanceEntrances) {
		dkey := key + ".instance_entrances." + dname
		d, ok := ParseDir(dname)
		if !ok {
			l.problem(file, dkey, "%q is not a direction", dname)
			continue
		}
		if r.Exits[d] != nil {
			l.problem(file, dkey, "%s is already an exit; an instance entrance needs a direction of its own", d)
			continue
		}
		target := s.InstanceEntrances[dname]
		tz := l.set.Zones[target]
		switch {
		case tz == nil:
			l.problem(file, dkey, "no zone %q%s", target, suggest(target, keysOf(l.set.Zones)))
		case !tz.Instanceable:
			l.problem(file, dkey, "zone %q is not instanceable (set instanceable = true in %s)", target, tz.File)
		default:
			r.Entrances[d] = target
			if !slices.Contains(tz.Doors, r.Ref) {
				tz.Doors = append(tz.Doors, r.Ref)
			}
		}
	}
	r.Extra = l.extras(file, key+".extra", s.Extra)
	r.Script = l.script(file, key, s.Script, s.ScriptFile)
}

func (l *loader) linkMob(file string, z *Zone, m *Mob, s mobSpec) {
	key := "mobs." + m.Local
	m.Keywords, m.Short, m.Long, m.Description = lowerAll(s.Keywords), s.Short, s.Long, s.Description
	l.keywordsRequired(file, key+".keywords", m.Keywords)
	l.text(file, key+".short", s.Short, maxShortBytes, true)
	l.text(file, key+".long", s.Long, maxShortBytes*2, true)
	l.text(file, key+".description", s.Description, maxTextBytes, false)
	m.Level = s.Level
	if s.Level < 0 || s.Level > maxLevel {
		l.problem(file, key+".level", "%d is out of range 0 to %d", s.Level, maxLevel)
	}
	f, err := parseFlags(s.Flags, mobFlagNames)
	if err != nil {
		l.problem(file, key+".flags", "%v", err)
	}
	m.Flags = MobFlags(f)
	if s.HP != nil {
		m.HP = *s.HP
		if m.HP.Min() < 1 {
			l.problem(file, key+".hp", "%s can roll below 1", m.HP)
		}
	} else {
		m.HP = Dice{N: max(1, s.Level), S: 8, B: 4 + 2*s.Level}
	}
	if s.Damage != nil {
		m.Damage = *s.Damage
	} else {
		m.Damage = Dice{N: 1, S: 4, B: s.Level / 3}
	}
	if m.Damage.Max() > 100000 || m.HP.Max() > 10000000 {
		l.problem(file, key, "hit points or damage beyond any sensible range")
	}
	m.DamageType = orDefault(s.DamageType, "hit")
	m.AttackVerb = orDefault(s.AttackVerb, "hit")
	m.Attacks = s.Attacks
	if m.Attacks == 0 {
		m.Attacks = 1
	}
	if m.Attacks < 0 || m.Attacks > 50 {
		l.problem(file, key+".attacks", "%d is out of range 1 to 50", s.Attacks)
	}
	m.Armor, m.Hitroll, m.Dodge = s.Armor, s.Hitroll, s.Dodge
	for _, v := range []struct {
		n string
		v int
	}{{"armor", s.Armor}, {"hitroll", s.Hitroll}, {"dodge", s.Dodge}} {
		if v.v < -1000 || v.v > 1000 {
			l.problem(file, key+"."+v.n, "%d is out of range ±1000", v.v)
		}
	}
	if s.Gold != nil {
		m.Gold = *s.Gold
		if m.Gold.Min() < 0 {
			l.problem(file, key+".gold", "%s can roll below 0", m.Gold)
		}
	}
	m.Exp = s.Exp
	if s.Exp < 0 {
		l.problem(file, key+".exp", "must not be negative")
	}
	m.Abilities = s.Abilities
	m.WanderEvery = s.WanderEvery
	if m.WanderEvery == 0 {
		m.WanderEvery = 40
	}
	if m.WanderEvery < 1 || m.WanderEvery > 100000 {
		l.problem(file, key+".wander_every", "%d is out of range 1 to 100000 pulses", s.WanderEvery)
	}
	m.Script = l.script(file, key, s.Script, s.ScriptFile)
	l.linkShop(file, z, m, s.Shop)
}

func (l *loader) linkItem(file string, z *Zone, it *Item, s itemSpec) {
	key := "items." + it.Local
	it.Keywords, it.Short, it.Long, it.Description = lowerAll(s.Keywords), s.Short, s.Long, s.Description
	l.keywordsRequired(file, key+".keywords", it.Keywords)
	l.text(file, key+".short", s.Short, maxShortBytes, true)
	l.text(file, key+".long", s.Long, maxShortBytes*2, true)
	l.text(file, key+".description", s.Description, maxTextBytes, false)
	it.Type = ItemType(orDefault(s.Type, string(ItemOther)))
	known := false
	for _, t := range itemTypes {
		known = known || t == it.Type
	}
	if !known {
		l.problem(file, key+".type", "%q is not an item type (known: %v)", s.Type, itemTypes)
	}
	it.Wear = s.Wear
	if s.Wear != "" && l.set.Game != nil {
		if _, ok := l.set.Game.Slot(s.Wear); !ok {
			l.problem(file, key+".wear", "no slot %q in %s%s", s.Wear, GameFile, suggest(s.Wear, l.slotNames()))
		}
	}
	it.Weight, it.Value, it.Level = s.Weight, s.Value, s.Level
	if s.Weight < 0 || s.Weight > 100000 {
		l.problem(file, key+".weight", "%d is out of range 0 to 100000", s.Weight)
	}
	if s.Value < 0 || s.Value > 1000000000 {
		l.problem(file, key+".value", "%d is out of range 0 to 1000000000", s.Value)
	}
	f, err := parseFlags(s.Flags, itemFlagNames)
	if err != nil {
		l.problem(file, key+".flags", "%v", err)
	}
	it.Flags = ItemFlags(f)
	if s.Damage != nil {
		it.Damage = *s.Damage
		if it.Damage.Min() < 0 {
			l.problem(file, key+".damage", "%s can roll below 0", it.Damage)
		}
	} else if it.Type == ItemWeapon {
		l.problem(file, key+".damage", "a weapon needs damage dice, such as \"1d6\"")
	}
	it.DamageType = orDefault(s.DamageType, "hit")
	it.AttackVerb = orDefault(s.AttackVerb, "hit")
	it.Armor = s.Armor
	if s.Armor < -1000 || s.Armor > 1000 {
		l.problem(file, key+".armor", "%d is out of range ±1000", s.Armor)
	}
	it.Apply = s.Apply
	for _, stat := range sortedKeys(s.Apply) {
		if l.set.Game != nil && !l.set.Game.KnownStat(stat) {
			l.problem(file, key+".apply."+stat, "%q is not an attribute or stat (known: %v)", stat, l.set.Game.StatNames())
		}
		if v := s.Apply[stat]; v < -1000 || v > 1000 {
			l.problem(file, key+".apply."+stat, "%d is out of range ±1000", v)
		}
	}
	it.Capacity = s.Capacity
	if s.Capacity < 0 || s.Capacity > 1000 {
		l.problem(file, key+".capacity", "%d is out of range 0 to 1000", s.Capacity)
	}
	if it.Type == ItemContainer && s.Capacity == 0 {
		it.Capacity = 20
	}
	if it.Type != ItemContainer && (s.Capacity != 0 || s.Closeable || s.Closed || s.Locked) {
		l.problem(file, key, "capacity, closeable, closed and locked are for containers")
	}
	it.Closeable = s.Closeable || s.Closed || s.Locked
	it.Closed = s.Closed || s.Locked
	it.Locked = s.Locked
	if s.Key != "" {
		if ref, ok := l.protoRef(file, key+".key", z.ID, KindItem, s.Key); ok {
			it.Key = ref
		}
	} else if s.Locked {
		l.problem(file, key+".locked", "a locked container needs a key")
	}
	if s.Heal != nil {
		it.Heal = *s.Heal
	}
	it.Extra = l.extras(file, key+".extra", s.Extra)
	it.Script = l.script(file, key, s.Script, s.ScriptFile)
}

func (l *loader) linkReset(file string, z *Zone, i int, s resetSpec) {
	key := fmt.Sprintf("resets[%d]", i)
	rs := &Reset{Key: key, Max: s.Max, Line: l.line(file, key)}
	n := 0
	for _, v := range []string{s.Mob, s.Item, s.Door} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		l.problem(file, key, "a reset names exactly one of mob, item or door")
		return
	}
	room, ok := l.roomRef(file, key+".room", z.ID, s.Room)
	if !ok {
		return
	}
	if RefZone(room) != z.ID {
		l.problem(file, key+".room", "%s is not a room of this zone", room)
		return
	}
	rs.Room = room
	if rs.Max == 0 {
		rs.Max = 1
	}
	if rs.Max < 1 || rs.Max > 100 {
		l.problem(file, key+".max", "%d is out of range 1 to 100", s.Max)
	}
	items := func(field string, refs []string) []string {
		var out []string
		for j, w := range refs {
			if ref, ok := l.protoRef(file, fmt.Sprintf("%s.%s[%d]", key, field, j), z.ID, KindItem, w); ok {
				out = append(out, ref)
			}
		}
		return out
	}
	switch {
	case s.Mob != "":
		rs.Kind = ResetMob
		rs.Proto, ok = l.protoRef(file, key+".mob", z.ID, KindMob, s.Mob)
		rs.Equip = items("equip", s.Equip)
		rs.Give = items("give", s.Give)
		if len(s.Contents) > 0 || s.State != "" {
			l.problem(file, key, "contents and state are not for mob resets")
		}
		l.pending = append(l.pending, func() {
			for j, ref := range rs.Equip {
				if it := l.set.Items[ref]; it != nil && it.Wear == "" && it.Type != ItemWeapon && it.Type != ItemLight {
					l.problem(file, fmt.Sprintf("%s.equip[%d]", key, j), "%s cannot be worn (it has no wear slot)", ref)
				}
			}
		})
	case s.Item != "":
		rs.Kind = ResetItem
		rs.Proto, ok = l.protoRef(file, key+".item", z.ID, KindItem, s.Item)
		rs.Contents = items("contents", s.Contents)
		if len(s.Equip) > 0 || len(s.Give) > 0 || s.State != "" {
			l.problem(file, key, "equip, give and state are not for item resets")
		}
		if len(rs.Contents) > 0 {
			l.pending = append(l.pending, func() {
				if it := l.set.Items[rs.Proto]; it != nil && it.Type != ItemContainer {
					l.problem(file, key+".contents", "%s is not a container", rs.Proto)
				}
			})
		}
	default:
		rs.Kind = ResetDoor
		d, dok := ParseDir(s.Door)
		if !dok {
			l.problem(file, key+".door", "%q is not a direction", s.Door)
			return
		}
		rs.Door = d
		switch s.State {
		case "open", "closed", "locked":
			rs.State = s.State
		default:
			l.problem(file, key+".state", "want open, closed or locked, got %q", s.State)
		}
		if r := l.set.Rooms[room]; r != nil && (r.Exits[d] == nil || r.Exits[d].Door == nil) {
			l.problem(file, key+".door", "%s has no door %s", room, d)
		}
	}
	if ok {
		z.Resets = append(z.Resets, rs)
	}
}

func (l *loader) validateHelp() {
	seen := map[string]int{}
	for i, h := range l.help.Help {
		key := fmt.Sprintf("help[%d]", i)
		kw := lowerAll(h.Keywords)
		l.keywordsRequired(HelpFile, key+".keywords", kw)
		for _, k := range kw {
			if j, dup := seen[k]; dup {
				l.problem(HelpFile, key+".keywords", "%q is already a keyword of help[%d]", k, j)
			}
			seen[k] = i
		}
		l.text(HelpFile, key+".text", h.Text, maxTextBytes*4, true)
		switch h.Level {
		case "", "player", "builder", "admin":
		default:
			l.problem(HelpFile, key+".level", "want player, builder or admin, got %q", h.Level)
		}
		title := h.Title
		if title == "" && len(kw) > 0 {
			title = kw[0]
		}
		l.set.Help = append(l.set.Help, &Help{Keywords: kw, Title: title, Text: h.Text, Admin: h.Level == "admin", Builder: h.Level == "builder"})
	}
}

// roomRef resolves a written room ref and checks that the room exists.
func (l *loader) roomRef(file, key, zone, written string) (string, bool) {
	if zone == "" && !strings.Contains(written, ":") {
		l.problem(file, key, "want a full room ref zone:room:name, got %q", written)
		return "", false
	}
	return l.protoRef(file, key, zone, KindRoom, written)
}

func (l *loader) protoRef(file, key, zone string, k Kind, written string) (string, bool) {
	ref, err := resolve(zone, k, written)
	if err != nil {
		l.problem(file, key, "%v", err)
		return "", false
	}
	var exists bool
	var known []string
	switch k {
	case KindRoom:
		_, exists = l.set.Rooms[ref]
		if !exists {
			known = keysOf(l.set.Rooms)
		}
	case KindMob:
		_, exists = l.set.Mobs[ref]
		if !exists {
			known = keysOf(l.set.Mobs)
		}
	case KindItem:
		_, exists = l.set.Items[ref]
		if !exists {
			known = keysOf(l.set.Items)
		}
	}
	if !exists {
		if _, zok := l.set.Zones[RefZone(ref)]; !zok {
			l.problem(file, key, "no zone %q (in %s)", RefZone(ref), ref)
		} else {
			l.problem(file, key, "no %s %s%s", k, ref, suggest(ref, known))
		}
		return "", false
	}
	return ref, true
}

func (l *loader) slotNames() []string {
	var out []string
	for _, s := range l.set.Game.Slots {
		out = append(out, s.Name)
	}
	return out
}

func (l *loader) extras(file, key string, m map[string]string) []Extra {
	var out []Extra
	for _, k := range sortedKeys(m) {
		kw := strings.Fields(strings.ToLower(k))
		l.keywordsRequired(file, key+"."+quoteKey(k), kw)
		l.text(file, key+"."+quoteKey(k), m[k], maxTextBytes, true)
		out = append(out, Extra{Keywords: kw, Text: m[k]})
	}
	return out
}

func (l *loader) script(file, key, src, srcFile string) *Script {
	switch {
	case src != "" && srcFile != "":
		l.problem(file, key, "script and script_file are both set; use one")
		return nil
	case src != "":
		return &Script{Source: src, File: file, Key: key + ".script", Line: findLine(l.root, file, key, "script")}
	case srcFile != "":
		p := path.Clean(srcFile)
		if path.IsAbs(p) || strings.HasPrefix(p, "..") || !strings.HasSuffix(p, ".lua") {
			l.problem(file, key+".script_file", "%q must be a .lua file inside the areas folder", srcFile)
			return nil
		}
		data, err := fs.ReadFile(l.root, p)
		if err != nil {
			l.problem(file, key+".script_file", "%s: %s", p, readProblem(err))
			return nil
		}
		if !utf8.Valid(data) {
			l.problem(file, key+".script_file", "%s is not valid UTF-8 (line %d); save it as UTF-8", p, badUTF8Line(data))
			return nil
		}
		return &Script{Source: string(data), File: p, Key: key + ".script_file", Line: 1}
	}
	return nil
}

// text checks one player-visible text field: valid length, no control
// characters but newline and tab (colour is written as markup, never raw
// escape sequences).
func (l *loader) text(file, key, s string, limit int, required bool) {
	if required && strings.TrimSpace(s) == "" {
		l.problem(file, key, "must not be empty")
		return
	}
	if len(s) > limit {
		l.problem(file, key, "is %d bytes; the limit is %d", len(s), limit)
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			l.problem(file, key, "contains control character %U; write colour as markup, not escape codes", r)
			return
		}
	}
}

func (l *loader) keywordsRequired(file, key string, kw []string) {
	if len(kw) == 0 {
		l.problem(file, key, "needs at least one keyword")
		return
	}
	l.keywords(file, key, kw)
}

func (l *loader) keywords(file, key string, kw []string) {
	if len(kw) > maxKeywords {
		l.problem(file, key, "at most %d keywords", maxKeywords)
	}
	for _, k := range kw {
		if k == "" || len(k) > 40 || strings.ContainsAny(k, " .\t\n") {
			l.problem(file, key, "keyword %q must be one word of at most 40 bytes, without dots", k)
			return
		}
		for _, r := range k {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\'' && r != '_' {
				l.problem(file, key, "keyword %q has %q; use letters, digits, - ' and _", k, r)
				return
			}
		}
	}
}

// number gives every room a stable number for clients' mappers: a hash of
// its ref, so it survives restarts and edits to other rooms. Collisions are
// resolved in ref order, which is stable too.
func (l *loader) number() {
	refs := keysOf(l.set.Rooms)
	for _, ref := range refs {
		h := fnv.New32a()
		h.Write([]byte(ref))
		n := int(h.Sum32()&0x7fffffff) | 1
		for l.set.rooms[n] != nil {
			n = (n + 2) & 0x7fffffff
		}
		r := l.set.Rooms[ref]
		r.Num = n
		l.set.rooms[n] = r
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keysOf[V any](m map[string]V) []string { return sortedKeys(m) }

func lowerAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strings.ToLower(s)
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func quoteKey(k string) string {
	if ValidName(k) {
		return k
	}
	return fmt.Sprintf("%q", k)
}

// suggest names the closest known ref, for a builder's typo.
func suggest(got string, known []string) string {
	if best := typo.Closest(got, known, 3); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}

// findLine finds the line where key's field starts in file, so a script
// error can point at the right line of the area file. It reads the table
// header [key] and then the first line starting with field. It returns 0
// when it cannot tell.
func findLine(root fs.FS, file, key, field string) int {
	data, err := fs.ReadFile(root, file)
	if err != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	header := "[" + key + "]"
	in := false
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "[") {
			in = t == header
			continue
		}
		if in && strings.HasPrefix(t, field) {
			rest := strings.TrimSpace(t[len(field):])
			if strings.HasPrefix(rest, "=") {
				// The source begins on the next line for a """ block
				// that starts with a newline.
				v := strings.TrimSpace(rest[1:])
				if v == `"""` || v == `'''` {
					return i + 2
				}
				return i + 1
			}
		}
	}
	return 0
}
