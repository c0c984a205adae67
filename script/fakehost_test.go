package script

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// fakeHost is a test double of a zone: a few rooms, characters and items
// with IDs, and a record of every act the VM asked for.
type fakeHost struct {
	zone   string
	vm     *VM // set by newWorld; Purge and Forget go through it
	rng    *rand.Rand
	rooms  map[string]*fakeRoom
	chars  map[uint64]*fakeChar
	items  map[uint64]*fakeItem
	nextID uint64

	pulse  int
	timers []*fakeTimer

	calls   []string // every act, "Send char:2 hello"
	reports []fakeReport
	logs    []string
}

type fakeRoom struct {
	ref, name string
	flags     []string
	exits     map[string]string
	doors     map[string]string
}

type fakeChar struct {
	name, short, long, proto string
	level, hp, maxHP         int
	player                   bool
	flags                    []string
	room                     string
}

type fakeItem struct {
	short, proto string
	holder       ID
}

type fakeTimer struct {
	due       int
	fn        func()
	cancelled bool
}

type fakeReport struct{ script, msg string }

func room(ref string) ID   { return ID{Kind: KindRoom, Ref: ref} }
func char(rid uint64) ID   { return ID{Kind: KindChar, RID: rid} }
func itemID(rid uint64) ID { return ID{Kind: KindItem, RID: rid} }

// newFakeHost returns a zone with two rooms (hall north of yard), a
// player Ann (char:1) and a priestess mob (char:2) in the hall, a rat
// (char:3) in the yard, and a sword (item:10) on the hall floor.
func newFakeHost(zone string) *fakeHost {
	h := &fakeHost{
		zone:   zone,
		rng:    rand.New(rand.NewPCG(1, 2)),
		rooms:  map[string]*fakeRoom{},
		chars:  map[uint64]*fakeChar{},
		items:  map[uint64]*fakeItem{},
		nextID: 100,
	}
	h.rooms[zone+":hall"] = &fakeRoom{ref: zone + ":hall", name: "The Hall", flags: []string{"indoors"},
		exits: map[string]string{"south": zone + ":yard", "east": "elsewhere:gate"}, doors: map[string]string{}}
	h.rooms[zone+":yard"] = &fakeRoom{ref: zone + ":yard", name: "The Yard",
		exits: map[string]string{"north": zone + ":hall"}, doors: map[string]string{}}
	h.chars[1] = &fakeChar{name: "Ann", short: "Ann", long: "Ann is here.", level: 5, hp: 50, maxHP: 60, player: true, room: zone + ":hall"}
	h.chars[2] = &fakeChar{name: "the priestess", short: "the priestess", long: "A priestess prays here.", proto: "emberfall:priestess",
		level: 20, hp: 200, maxHP: 200, flags: []string{"sentinel", "healer"}, room: zone + ":hall"}
	h.chars[3] = &fakeChar{name: "a rat", short: "a rat", long: "A rat scurries.", proto: "emberfall:rat", level: 1, hp: 5, maxHP: 5, room: zone + ":yard"}
	h.items[10] = &fakeItem{short: "a sword", proto: "emberfall:sword", holder: room(zone + ":hall")}
	return h
}

func (h *fakeHost) record(format string, args ...any) {
	h.calls = append(h.calls, fmt.Sprintf(format, args...))
}

// called reports whether an act starting with prefix was recorded.
func (h *fakeHost) called(prefix string) bool {
	for _, c := range h.calls {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// advance runs n pulses of timers.
func (h *fakeHost) advance(n int) {
	for i := 0; i < n; i++ {
		h.pulse++
		due := h.timers
		h.timers = nil
		for _, t := range due {
			switch {
			case t.cancelled:
			case t.due <= h.pulse:
				t.fn()
			default:
				h.timers = append(h.timers, t)
			}
		}
	}
}

func (h *fakeHost) liveTimers() int {
	n := 0
	for _, t := range h.timers {
		if !t.cancelled {
			n++
		}
	}
	return n
}

func (h *fakeHost) ZoneID() string { return h.zone }
func (h *fakeHost) IntN(n int) int { return h.rng.IntN(n) }
func (h *fakeHost) After(pulses int, fn func()) func() {
	t := &fakeTimer{due: h.pulse + pulses, fn: fn}
	h.timers = append(h.timers, t)
	return func() { t.cancelled = true }
}

func (h *fakeHost) Info(id ID) (Info, bool) {
	switch id.Kind {
	case KindRoom:
		r, ok := h.rooms[id.Ref]
		if !ok {
			return Info{}, false
		}
		return Info{Kind: KindRoom, Name: r.name, Short: r.name, Flags: r.flags}, true
	case KindChar:
		c, ok := h.chars[id.RID]
		if !ok {
			return Info{}, false
		}
		return Info{Kind: KindChar, Proto: c.proto, Name: c.name, Short: c.short, Long: c.long, Level: c.level,
			Player: c.player, Flags: c.flags, HP: c.hp, MaxHP: c.maxHP, Mana: 10, MaxMana: 20, Moves: 30, MaxMoves: 40}, true
	case KindItem:
		it, ok := h.items[id.RID]
		if !ok {
			return Info{}, false
		}
		return Info{Kind: KindItem, Proto: it.proto, Name: it.short, Short: it.short}, true
	}
	return Info{}, false
}

func (h *fakeHost) Room(id ID) (ID, bool) {
	switch id.Kind {
	case KindRoom:
		_, ok := h.rooms[id.Ref]
		return id, ok
	case KindChar:
		if c, ok := h.chars[id.RID]; ok {
			return room(c.room), true
		}
	case KindItem:
		if it, ok := h.items[id.RID]; ok {
			return h.Room(it.holder)
		}
	}
	return ID{}, false
}

func (h *fakeHost) Contents(id ID) []ID {
	var out []ID
	for rid, it := range h.items {
		if it.holder == id {
			out = append(out, itemID(rid))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RID < out[j].RID })
	return out
}

func (h *fakeHost) Occupants(r ID) []ID {
	var out []ID
	for rid, c := range h.chars {
		if c.room == r.Ref {
			out = append(out, char(rid))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RID < out[j].RID })
	return out
}

func (h *fakeHost) Exits(r ID) map[string]string {
	if rm, ok := h.rooms[r.Ref]; ok {
		return rm.exits
	}
	return nil
}

func (h *fakeHost) Holder(it ID) (ID, bool) {
	if i, ok := h.items[it.RID]; ok {
		return i.holder, true
	}
	return ID{}, false
}

func (h *fakeHost) exists(id ID) bool { _, ok := h.Info(id); return ok }

func (h *fakeHost) Send(to ID, text string) bool {
	h.record("Send %s %s", idString(to), text)
	return h.exists(to)
}

func (h *fakeHost) Say(from ID, text string) bool {
	h.record("Say %s %s", idString(from), text)
	return h.exists(from)
}

func (h *fakeHost) Emote(from ID, text string) bool {
	h.record("Emote %s %s", idString(from), text)
	return h.exists(from)
}

func (h *fakeHost) Broadcast(r ID, text string) bool {
	h.record("Broadcast %s %s", idString(r), text)
	return h.exists(r)
}

func (h *fakeHost) Move(who ID, dir string) bool {
	h.record("Move %s %s", idString(who), dir)
	c, ok := h.chars[who.RID]
	if !ok || who.Kind != KindChar {
		return false
	}
	to, ok := h.rooms[c.room].exits[dir]
	if !ok {
		return false
	}
	c.room = to
	return true
}

func (h *fakeHost) Teleport(who ID, ref string) bool {
	h.record("Teleport %s %s", idString(who), ref)
	c, ok := h.chars[who.RID]
	if _, here := h.rooms[ref]; !ok || !here {
		return false
	}
	c.room = ref
	return true
}

func (h *fakeHost) Damage(who ID, n int, from ID) bool {
	h.record("Damage %s %d from %s", idString(who), n, idString(from))
	c, ok := h.chars[who.RID]
	if !ok {
		return false
	}
	c.hp -= n
	return true
}

func (h *fakeHost) Heal(who ID, n int) bool {
	h.record("Heal %s %d", idString(who), n)
	c, ok := h.chars[who.RID]
	if !ok {
		return false
	}
	c.hp += n
	return true
}

func (h *fakeHost) Give(it ID, to ID) bool {
	h.record("Give %s %s", idString(it), idString(to))
	i, ok := h.items[it.RID]
	if !ok || !h.exists(to) {
		return false
	}
	i.holder = to
	return true
}

func (h *fakeHost) Purge(id ID) bool {
	h.record("Purge %s", idString(id))
	switch id.Kind {
	case KindChar:
		c, ok := h.chars[id.RID]
		if !ok || c.player {
			return false
		}
		delete(h.chars, id.RID)
	case KindItem:
		if _, ok := h.items[id.RID]; !ok {
			return false
		}
		delete(h.items, id.RID)
	default:
		return false
	}
	if h.vm != nil {
		h.vm.Forget(id)
	}
	return true
}

func (h *fakeHost) Spawn(proto string, where ID) (ID, bool) {
	h.record("Spawn %s %s", proto, idString(where))
	if strings.HasSuffix(proto, "sword") {
		h.nextID++
		h.items[h.nextID] = &fakeItem{short: "a sword", proto: proto, holder: where}
		return itemID(h.nextID), true
	}
	if _, ok := h.rooms[where.Ref]; !ok {
		return ID{}, false
	}
	h.nextID++
	h.chars[h.nextID] = &fakeChar{name: "a rat", short: "a rat", proto: proto, level: 1, hp: 5, maxHP: 5, room: where.Ref}
	return char(h.nextID), true
}

func (h *fakeHost) SetDoor(r ID, dir, state string) bool {
	h.record("SetDoor %s %s %s", idString(r), dir, state)
	rm, ok := h.rooms[r.Ref]
	if !ok {
		return false
	}
	rm.doors[dir] = state
	return true
}

func (h *fakeHost) SendToInstance(who ID, template string) error {
	h.record("SendToInstance %s %s", idString(who), template)
	if !h.exists(who) {
		return errors.New("no such player")
	}
	return nil
}

func (h *fakeHost) QuestStart(who ID, quest string) string {
	h.record("QuestStart %s %s", idString(who), quest)
	if quest != "rats" {
		return "no quest " + quest
	}
	return ""
}

func (h *fakeHost) QuestAdvance(who ID, quest string, step int) string {
	h.record("QuestAdvance %s %s %d", idString(who), quest, step)
	return ""
}

func (h *fakeHost) QuestState(who ID, quest string) (string, int) {
	h.record("QuestState %s %s", idString(who), quest)
	if quest == "rats" {
		return "active", 2
	}
	return "", 0
}

func (h *fakeHost) Log(script, text string) {
	h.logs = append(h.logs, script+": "+text)
}

func (h *fakeHost) Report(script, message string) {
	h.reports = append(h.reports, fakeReport{script, message})
}

// world is a VM on a fake zone, for tests.
type world struct {
	t    testing.TB
	host *fakeHost
	vm   *VM
}

// newWorld returns a VM on a fake zone. Its calls are limited by their
// instruction budget only: the wall-clock hang guard is off, so no stall
// of a loaded test machine decides an outcome. The hang guard has tests of
// its own.
func newWorld(t testing.TB, zone string, cfg Config) *world {
	t.Helper()
	h := newFakeHost(zone)
	vm := New(h, cfg)
	vm.deadline = 0
	h.vm = vm
	t.Cleanup(vm.Close)
	return &world{t: t, host: h, vm: vm}
}

// attach compiles src as the script of id and attaches it; the script
// starts at line 10 of "test.toml".
func (w *world) attach(id ID, key, src string) *Compiled {
	w.t.Helper()
	c, err := Compile(src, "test.toml", 10, key)
	if err != nil {
		w.t.Fatalf("compile %s: %v", key, err)
	}
	if err := w.vm.Attach(id, c); err != nil {
		w.t.Fatalf("attach %s: %v", key, err)
	}
	return c
}

// lastReport returns the last report, or fails.
func (w *world) lastReport() fakeReport {
	w.t.Helper()
	if len(w.host.reports) == 0 {
		w.t.Fatalf("no report, want one")
	}
	return w.host.reports[len(w.host.reports)-1]
}
