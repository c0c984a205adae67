package circle

import (
	"fmt"
	"strings"
)

var sprintf = fmt.Sprintf

// The types in this file are the source as read, before conversion: vnums
// and numbers as the files write them.

// at is where a thing was read.
type at struct {
	File string
	Line int
}

// Room is one room of a .wld file.
type Room struct {
	at
	Vnum   int
	Name   string
	Desc   string
	Flags  flags
	Sector int
	Exits  []Exit
	Extras []Extra
	Trigs  []int
}

// Exit is one D section of a room.
type Exit struct {
	at
	Dir      int
	Desc     string
	Keywords string
	DoorFlag int
	Key      int
	To       int
}

// Extra is one E section: keywords and text.
type Extra struct {
	Keywords string
	Text     string
}

// Mob is one mobile of a .mob file.
type Mob struct {
	at
	Vnum              int
	Keywords          string
	Short, Long, Desc string
	Flags, Affects    flags
	Align             int
	Type              string // "S" or "E"
	Level, THAC0, AC  int
	HP, Damage        dice
	Gold, Exp         int
	LoadPos, DefPos   int
	Sex               int
	ESpecs            map[string]int
	ESpecLines        map[string]int
	Trigs             []int
	Wide              bool // the 128-bit form of tbaMUD (four fields a bitvector)
}

// dice is NdS+B as a source writes it.
type dice struct{ N, S, B int }

// Obj is one object of an .obj file.
type Obj struct {
	at
	Vnum              int
	Keywords          string
	Short, Long, Desc string
	Type              int
	Extra             flags
	Wear              flags
	Values            []int
	Weight, Cost      int
	Rent, Level       int
	Extras            []Extra
	Applies           []apply
	Trigs             []int
}

type apply struct {
	Loc, Mod int
	Line     int
}

// Zone is one zone of a .zon file.
type Zone struct {
	at
	Vnum            int
	Builders        string
	Name            string
	Bot, Top        int
	Lifespan, Mode  int
	HasBot          bool
	MinLvl, MaxLvl  int
	Cmds            []Cmd
	unknownCommands []int
}

// Cmd is one zone reset command.
type Cmd struct {
	Line    int
	Op      byte
	If      int
	A, B, C int // the arguments, as each command names them
	N       int // how many arguments were written
	Comment string
}

// Trigger is one DG Script trigger of a .trg file.
type Trigger struct {
	at
	Vnum     int
	Name     string
	Attach   int // 0 mob, 1 object, 2 room
	Types    string
	NArg     int
	Arg      string
	Commands string
}

// World is everything read from a source.
type World struct {
	Rooms    map[int]*Room
	Mobs     map[int]*Mob
	Objs     map[int]*Obj
	Zones    map[int]*Zone
	Triggers map[int]*Trigger
	Shops    map[int]*Shop
	Quests   []at // quest records seen, listed
	Notes    []Note
}

func newWorld() *World {
	return &World{Rooms: map[int]*Room{}, Mobs: map[int]*Mob{}, Objs: map[int]*Obj{}, Zones: map[int]*Zone{}, Triggers: map[int]*Trigger{}, Shops: map[int]*Shop{}}
}

func (w *World) note(file string, line int, kind, format string, args ...any) {
	w.Notes = append(w.Notes, Note{File: file, Line: line, Zone: -1, Kind: kind, Msg: sprintf(format, args...)})
}

// records reads every record of a file with one, noting a record that
// does not read and going on with the next.
func (w *World) records(r *reader, kind string, one func(vnum, line int) *parseError) {
	if r.latin {
		w.note(r.file, 0, KindApproximated, "not UTF-8: read as Latin-1 and written as UTF-8")
	}
	prev := -1
	for {
		vnum, line, ok, err := r.record(kind)
		if err != nil {
			w.note(r.file, err.line, KindError, "%s; skipped to the next record", err.msg)
			r.skipRecord()
			if !r.eof() && !strings.HasPrefix(strings.TrimSpace(r.lines[r.next]), "$") {
				continue
			}
			return
		}
		if !ok {
			return
		}
		if vnum > maxVnum {
			w.note(r.file, line, KindError, "vnum %d is out of range (at most %d); the %s is skipped", vnum, maxVnum, kind)
			r.skipRecord()
			continue
		}
		if vnum <= prev {
			w.note(r.file, line, KindApproximated, "vnum %d is out of order (after %d); read all the same", vnum, prev)
		}
		prev = vnum
		if err := one(vnum, line); err != nil {
			w.note(r.file, err.line, KindError, "%s %d: %s; the %s is skipped", kind, vnum, err.msg, kind)
			r.skipRecord()
		}
	}
}

// dup notes a vnum read a second time, in this file or another; the
// first one read stays.
func (w *World) dup(kind string, vnum int, first at, file string, line int) {
	w.note(file, line, KindError, "%s %d is already defined at %s:%d; this one is skipped", kind, vnum, first.File, first.Line)
}

// readRooms reads a .wld file.
func (w *World) readRooms(file string, data []byte) {
	r := newReader(file, data)
	w.records(r, "room", func(vnum, line int) *parseError {
		rm := &Room{at: at{file, line}, Vnum: vnum}
		var err *parseError
		if rm.Name, err = r.tilde("the room name"); err != nil {
			return err
		}
		if rm.Desc, err = r.tilde("the room description"); err != nil {
			return err
		}
		l, err := r.nonBlank("<zone> <flags> <sector>")
		if err != nil {
			return err
		}
		f := strings.Fields(l)
		var flagFields []string
		switch {
		case len(f) >= 6: // tbaMUD: zone, four flag fields, sector
			flagFields, f = f[1:5], f[5:]
		case len(f) >= 3:
			flagFields, f = f[1:2], f[2:]
		default:
			return r.fail("expected <zone> <flags> <sector>, got %q", clip(l))
		}
		var ok bool
		if rm.Flags, ok = parseFlags(flagFields); !ok {
			return r.fail("expected room flags as a number or letters, got %q", clip(l))
		}
		sec, serr := atoi(f[0])
		if serr != nil || sec < 0 {
			return r.fail("expected a sector number, got %q", clip(f[0]))
		}
		rm.Sector = sec
		for {
			l, err := r.nonBlank("S to end the room")
			if err != nil {
				return err
			}
			t := strings.TrimSpace(l)
			switch {
			case t == "S":
				if first, ok := w.Rooms[vnum]; ok {
					w.dup("room", vnum, first.at, file, line)
				} else {
					w.Rooms[vnum] = rm
				}
				return nil
			case t[0] == 'D':
				x := Exit{at: at{file, r.lineNo()}}
				d, derr := atoi(strings.TrimSpace(t[1:]))
				if derr != nil || d < 0 || d > 9 {
					return r.fail("expected D0 to D9, got %q", clip(t))
				}
				x.Dir = d
				if x.Desc, err = r.tilde("the exit description"); err != nil {
					return err
				}
				if x.Keywords, err = r.tilde("the door keywords"); err != nil {
					return err
				}
				n, err := r.ints(3, "<door flag> <key vnum> <to room>")
				if err != nil {
					return err
				}
				x.DoorFlag, x.Key, x.To = n[0], n[1], n[2]
				rm.Exits = append(rm.Exits, x)
			case t == "E":
				e, err := r.extra()
				if err != nil {
					return err
				}
				rm.Extras = append(rm.Extras, e)
			case t[0] == 'T':
				n, err := lineInts(r.lineNo(), t[1:], 1, "T <trigger vnum>")
				if err != nil {
					return err
				}
				rm.Trigs = append(rm.Trigs, n[0])
			case t[0] == '#' || t[0] == '$':
				r.next--
				return r.fail("the room has no S before the next record")
			default:
				return r.fail("expected D<dir>, E, T or S in a room, got %q", clip(t))
			}
		}
	})
}

// extra reads the rest of an E section.
func (r *reader) extra() (Extra, *parseError) {
	var e Extra
	var err *parseError
	if e.Keywords, err = r.tilde("the extra description keywords"); err != nil {
		return e, err
	}
	e.Text, err = r.tilde("the extra description")
	return e, err
}

// parseDice reads "NdS+B" (or "NdS-B", or "NdS").
func parseDice(s string) (dice, bool) {
	var d dice
	ns, rest, ok := strings.Cut(strings.ToLower(s), "d")
	if !ok {
		return d, false
	}
	var err error
	if d.N, err = atoi(ns); err != nil {
		return d, false
	}
	ss, bs := rest, ""
	if i := strings.IndexAny(rest, "+-"); i >= 0 {
		ss, bs = rest[:i], rest[i:]
	}
	if d.S, err = atoi(ss); err != nil {
		return d, false
	}
	if bs != "" {
		if bs[0] == '+' {
			bs = bs[1:]
		}
		if d.B, err = atoi(bs); err != nil {
			return d, false
		}
	}
	return d, true
}

// readMobs reads a .mob file.
func (w *World) readMobs(file string, data []byte) {
	r := newReader(file, data)
	w.records(r, "mob", func(vnum, line int) *parseError {
		m := &Mob{at: at{file, line}, Vnum: vnum}
		var err *parseError
		if m.Keywords, err = r.tilde("the mob keywords"); err != nil {
			return err
		}
		if m.Short, err = r.tilde("the short description"); err != nil {
			return err
		}
		if m.Long, err = r.tilde("the long description"); err != nil {
			return err
		}
		if m.Desc, err = r.tilde("the detailed description"); err != nil {
			return err
		}
		l, err := r.nonBlank("<mob flags> <affect flags> <alignment> <S or E>")
		if err != nil {
			return err
		}
		f := strings.Fields(l)
		var mf, af []string
		switch len(f) {
		case 4:
			mf, af = f[0:1], f[1:2]
		case 10:
			mf, af = f[0:4], f[4:8]
			m.Wide = true
		default:
			return r.fail("expected <mob flags> <affect flags> <alignment> <S or E> (4 or 10 fields), got %q", clip(l))
		}
		var ok bool
		if m.Flags, ok = parseFlags(mf); !ok {
			return r.fail("expected mob flags as numbers or letters, got %q", clip(l))
		}
		if m.Affects, ok = parseFlags(af); !ok {
			return r.fail("expected affect flags as numbers or letters, got %q", clip(l))
		}
		var aerr error
		if m.Align, aerr = atoi(f[len(f)-2]); aerr != nil {
			return r.fail("expected an alignment, got %q", clip(f[len(f)-2]))
		}
		m.Type = strings.ToUpper(f[len(f)-1])
		if m.Type != "S" && m.Type != "E" {
			return r.fail("mob type %q is not S or E (only simple and enhanced mobs are read)", clip(f[len(f)-1]))
		}
		l, err = r.nonBlank("<level> <thac0> <armor class> <hp dice> <damage dice>")
		if err != nil {
			return err
		}
		f = strings.Fields(l)
		if len(f) < 5 {
			return r.fail("expected <level> <thac0> <armor class> <hp dice> <damage dice>, got %q", clip(l))
		}
		nums, perr := lineInts(r.lineNo(), strings.Join(f[:3], " "), 3, "<level> <thac0> <armor class>")
		if perr != nil {
			return perr
		}
		m.Level, m.THAC0, m.AC = nums[0], nums[1], nums[2]
		if m.HP, ok = parseDice(f[3]); !ok {
			return r.fail("expected hit points as dice XdY+Z, got %q", clip(f[3]))
		}
		if m.Damage, ok = parseDice(f[4]); !ok {
			return r.fail("expected damage as dice XdY+Z, got %q", clip(f[4]))
		}
		n, err := r.ints(2, "<gold> <experience>")
		if err != nil {
			return err
		}
		m.Gold, m.Exp = n[0], n[1]
		n, err = r.ints(3, "<load position> <default position> <sex>")
		if err != nil {
			return err
		}
		m.LoadPos, m.DefPos, m.Sex = n[0], n[1], n[2]
		if m.Type == "E" {
			m.ESpecs, m.ESpecLines = map[string]int{}, map[string]int{}
			for {
				l, err := r.nonBlank("E to end the enhanced section")
				if err != nil {
					return err
				}
				t := strings.TrimSpace(l)
				if t == "E" {
					break
				}
				if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "$") {
					r.next--
					return r.fail("the enhanced mob has no E before the next record")
				}
				k, v, ok := strings.Cut(t, ":")
				if !ok {
					return r.fail("expected Keyword: value or E in an enhanced mob, got %q", clip(t))
				}
				k = strings.TrimSpace(k)
				iv, ierr := atoi(strings.TrimSpace(v))
				if ierr != nil {
					fs := strings.Fields(v)
					if len(fs) == 0 {
						return r.fail("expected a number after %s:, got %q", clip(k), clip(t))
					}
					if iv, ierr = atoi(fs[0]); ierr != nil {
						return r.fail("expected a number after %s:, got %q", clip(k), clip(t))
					}
				}
				m.ESpecs[k] = iv
				m.ESpecLines[k] = r.lineNo()
			}
		}
		if err := r.trigs(&m.Trigs); err != nil {
			return err
		}
		if first, ok := w.Mobs[vnum]; ok {
			w.dup("mob", vnum, first.at, file, line)
		} else {
			w.Mobs[vnum] = m
		}
		return nil
	})
}

// trigs reads the T <vnum> lines after a mob or an object.
func (r *reader) trigs(into *[]int) *parseError {
	for {
		l, ok := r.peek()
		if !ok {
			return nil
		}
		t := strings.TrimSpace(l)
		if t == "" {
			r.next++
			continue
		}
		if t[0] != 'T' {
			return nil
		}
		r.next++
		n, err := lineInts(r.lineNo(), t[1:], 1, "T <trigger vnum>")
		if err != nil {
			return err
		}
		*into = append(*into, n[0])
	}
}

// readObjs reads an .obj file.
func (w *World) readObjs(file string, data []byte) {
	r := newReader(file, data)
	w.records(r, "object", func(vnum, line int) *parseError {
		o := &Obj{at: at{file, line}, Vnum: vnum}
		var err *parseError
		if o.Keywords, err = r.tilde("the object keywords"); err != nil {
			return err
		}
		if o.Short, err = r.tilde("the short description"); err != nil {
			return err
		}
		if o.Long, err = r.tilde("the long description"); err != nil {
			return err
		}
		if o.Desc, err = r.tilde("the action description"); err != nil {
			return err
		}
		l, err := r.nonBlank("<type> <extra flags> <wear flags>")
		if err != nil {
			return err
		}
		f := strings.Fields(l)
		var ef, wf []string
		switch {
		case len(f) >= 9: // tbaMUD: type, four extra fields, four wear fields (and four affect fields)
			ef, wf = f[1:5], f[5:9]
		case len(f) >= 3:
			ef, wf = f[1:2], f[2:3]
		default:
			return r.fail("expected <type> <extra flags> <wear flags>, got %q", clip(l))
		}
		var terr error
		if o.Type, terr = atoi(f[0]); terr != nil {
			return r.fail("expected an object type number, got %q", clip(f[0]))
		}
		var ok bool
		if o.Extra, ok = parseFlags(ef); !ok {
			return r.fail("expected extra flags as numbers or letters, got %q", clip(l))
		}
		if o.Wear, ok = parseFlags(wf); !ok {
			return r.fail("expected wear flags as numbers or letters, got %q", clip(l))
		}
		if o.Values, err = r.ints(4, "<value 0> <value 1> <value 2> <value 3>"); err != nil {
			return err
		}
		n, err := r.ints(3, "<weight> <cost> <rent>")
		if err != nil {
			return err
		}
		o.Weight, o.Cost, o.Rent = n[0], n[1], n[2]
		if len(n) > 3 {
			o.Level = n[3]
		}
		for {
			l, ok := r.peek()
			if !ok {
				break
			}
			t := strings.TrimSpace(l)
			if t == "" {
				r.next++
				continue
			}
			if t == "E" {
				r.next++
				e, err := r.extra()
				if err != nil {
					return err
				}
				o.Extras = append(o.Extras, e)
				continue
			}
			if t == "A" {
				r.next++
				n, err := r.ints(2, "<location> <modifier>")
				if err != nil {
					return err
				}
				o.Applies = append(o.Applies, apply{Loc: n[0], Mod: n[1], Line: r.lineNo()})
				continue
			}
			if t[0] == 'T' {
				if err := r.trigs(&o.Trigs); err != nil {
					return err
				}
				continue
			}
			if t[0] == '#' || t[0] == '$' {
				break
			}
			return r.fail("expected E, A, T or the next #<vnum> after an object, got %q", clip(t))
		}
		if first, ok := w.Objs[vnum]; ok {
			w.dup("object", vnum, first.at, file, line)
		} else {
			w.Objs[vnum] = o
		}
		return nil
	})
}

// readZone reads a .zon file: one zone.
func (w *World) readZone(file string, data []byte) {
	r := newReader(file, data)
	done := false
	w.records(r, "zone", func(vnum, line int) *parseError {
		if done {
			return r.fail("a second zone in one file")
		}
		z := &Zone{at: at{file, line}, Vnum: vnum}
		s1, err := r.tilde("the zone name")
		if err != nil {
			return err
		}
		z.Name = s1
		if next, ok := r.peek(); ok && strings.Contains(next, "~") {
			// tbaMUD writes the builders before the name.
			z.Builders = s1
			if z.Name, err = r.tilde("the zone name"); err != nil {
				return err
			}
		}
		n, err := r.ints(3, "<bottom room> <top room> <lifespan> <reset mode>")
		if err != nil {
			return err
		}
		if len(n) == 3 {
			z.Top, z.Lifespan, z.Mode = n[0], n[1], n[2]
		} else {
			z.Bot, z.Top, z.Lifespan, z.Mode, z.HasBot = n[0], n[1], n[2], n[3], true
			// tbaMUD adds four zone flag fields and a level range; the
			// flags may be letters, so take the range from the text.
			if f := strings.Fields(r.lines[r.next-1]); len(f) >= 10 {
				lo, e1 := atoi(f[8])
				hi, e2 := atoi(f[9])
				if e1 == nil && e2 == nil {
					z.MinLvl, z.MaxLvl = lo, hi
				}
			}
		}
		for {
			l, err := r.line("S to end the zone's commands")
			if err != nil {
				return err
			}
			t := strings.TrimSpace(l)
			if t == "" || t[0] == '*' {
				continue
			}
			if t == "S" || t[0] == '$' {
				if t[0] == '$' {
					r.next--
				}
				break
			}
			if t[0] == '#' {
				r.next--
				return r.fail("the zone has no S before the next record")
			}
			c := Cmd{Line: r.lineNo(), Op: t[0]}
			want := map[byte]int{'M': 4, 'O': 4, 'G': 3, 'E': 4, 'P': 4, 'D': 4, 'R': 3, 'T': 3, 'V': 3}[c.Op]
			if want == 0 {
				z.unknownCommands = append(z.unknownCommands, c.Line)
				continue
			}
			fields := strings.Fields(t[1:])
			var nums []int
			for _, f := range fields {
				v, err := atoi(f)
				if err != nil {
					break
				}
				nums = append(nums, v)
			}
			if len(nums) < want && c.Op != 'V' {
				return r.fail("expected %c <if-flag> and %d numbers, got %q", c.Op, want-1, clip(t))
			}
			if c.Op == 'V' {
				c.Comment = strings.Join(fields, " ")
				z.Cmds = append(z.Cmds, c)
				continue
			}
			c.If, c.A, c.B, c.N = nums[0], nums[1], nums[2], len(nums)-1
			if len(nums) > 3 {
				c.C = nums[3]
			}
			if len(fields) > len(nums) {
				c.Comment = strings.Join(fields[len(nums):], " ")
			}
			z.Cmds = append(z.Cmds, c)
		}
		if first, ok := w.Zones[vnum]; ok {
			w.dup("zone", vnum, first.at, file, line)
		} else {
			w.Zones[vnum] = z
		}
		done = true
		return nil
	})
}

// readTriggers reads a .trg file.
func (w *World) readTriggers(file string, data []byte) {
	r := newReader(file, data)
	w.records(r, "trigger", func(vnum, line int) *parseError {
		t := &Trigger{at: at{file, line}, Vnum: vnum}
		var err *parseError
		if t.Name, err = r.tilde("the trigger name"); err != nil {
			return err
		}
		l, err := r.nonBlank("<attach type> <trigger types> <numeric arg>")
		if err != nil {
			return err
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			return r.fail("expected <attach type> <trigger types> <numeric arg>, got %q", clip(l))
		}
		var aerr error
		if t.Attach, aerr = atoi(f[0]); aerr != nil || t.Attach < 0 || t.Attach > 2 {
			return r.fail("expected an attach type 0, 1 or 2, got %q", clip(f[0]))
		}
		t.Types = f[1]
		if t.NArg, aerr = atoi(f[2]); aerr != nil {
			return r.fail("expected a numeric argument, got %q", clip(f[2]))
		}
		if t.Arg, err = r.tilde("the trigger argument"); err != nil {
			return err
		}
		if t.Commands, err = r.tilde("the trigger commands"); err != nil {
			return err
		}
		if first, ok := w.Triggers[vnum]; ok {
			w.dup("trigger", vnum, first.at, file, line)
		} else {
			w.Triggers[vnum] = t
		}
		return nil
	})
}
