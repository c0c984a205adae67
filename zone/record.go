package zone

// CharRecord is everything durable about a character: what the world hands
// a zone when the character enters, and what the zone hands back when it
// leaves or is saved. It is plain data; a record handed over is owned by the
// receiver.
type CharRecord struct {
	Name    string
	Created int64 // unix seconds
	Played  int64 // seconds in the world, all sessions
	// Commands counts the commands the character has had applied. It only
	// grows, so it measures progress: a restore can be checked against it.
	Commands uint64

	// Zone and Room are where the character stands: Zone is the zone
	// that holds it, an instance copy's id while it is inside one. A copy
	// is never a placement: the world stores such a record's place as its
	// anchor alone (AnchorZone and AnchorRoom, the zone and room the copy
	// was entered from, written at entry and kept until the character
	// arrives in any other zone), and the store keeps the last ordinary
	// zone and room it had (see world/convert.go).
	Zone       string
	Room       string
	AnchorZone string
	AnchorRoom string

	Title string
	// Admin, Builder and BuildZones are the roles the world read from the
	// account (and the config's admins) at login; Builder and BuildZones
	// are never saved with the character.
	Admin   bool
	Builder bool
	// BuildZones limits a builder to these zone ids; empty is every zone.
	BuildZones []string
	// Frozen: an admin froze the character; it can only quit.
	Frozen bool

	Level int
	Exp   int
	HP    int
	Mana  int
	Moves int
	Gold  int

	Items    []ItemRecord
	Affects  []AffectRecord
	Settings Settings
	// Comm is what the player chose about talk: channels, ignores, aliases.
	Comm CommRecord
	// Quests are the character's quests under way and done.
	Quests QuestRecord
	// Attrs are the character's base attributes by name (gear and affects
	// are not included).
	Attrs map[string]int

	// Epoch is the owner epoch of the login that holds the character; the
	// store refuses a save from an older epoch. Arrival counts the
	// character's arrivals in zones; a save carries the arrival it belongs
	// to. Both are set by the world.
	Epoch   uint64
	Arrival uint64
}

// ItemRecord is one item a character owns, with what it contains.
type ItemRecord struct {
	ID       uint64
	Proto    string
	Slot     string // equipment slot it is worn in, "" if carried
	Closed   bool
	Locked   bool
	Coins    int  // a coin pile's amount
	Kept     bool // marked with keep: the "all" forms leave it alone
	Contents []ItemRecord
}

// AffectRecord is one affect on a character.
type AffectRecord struct {
	Name   string
	Pulses int // pulses left; -1 for permanent
	Stacks int
	Mag    int
}

// Settings are a player's own choices.
type Settings struct {
	Color        string // "" (from the client), off, 16, 256, truecolor
	ScreenReader bool
	Brief        bool
	PvP          bool
	Vitals       bool   // show vitals in the prompt
	Prompt       string // the player's own prompt (internal/prompt tokens); "" for the default
	// WizInvis and Holylight are a staff member's sight (staff.go): the
	// wizinvis level (0 visible) and whether holylight is on.
	WizInvis  int
	Holylight bool
}

// Clone returns a deep copy of the record.
func (r *CharRecord) Clone() *CharRecord {
	c := *r
	c.Items = cloneItems(r.Items)
	c.Affects = append([]AffectRecord(nil), r.Affects...)
	c.BuildZones = append([]string(nil), r.BuildZones...)
	c.Comm = r.Comm.Clone()
	c.Quests = r.Quests.Clone()
	if r.Attrs != nil {
		c.Attrs = make(map[string]int, len(r.Attrs))
		for k, v := range r.Attrs {
			c.Attrs[k] = v
		}
	}
	return &c
}

func cloneItems(items []ItemRecord) []ItemRecord {
	if items == nil {
		return nil
	}
	out := make([]ItemRecord, len(items))
	for i, it := range items {
		out[i] = it
		out[i].Contents = cloneItems(it.Contents)
	}
	return out
}

// ItemIDs lists every item id in the record, depth first.
func (r *CharRecord) ItemIDs() []uint64 {
	var out []uint64
	var walk func([]ItemRecord)
	walk = func(items []ItemRecord) {
		for i := range items {
			out = append(out, items[i].ID)
			walk(items[i].Contents)
		}
	}
	walk(r.Items)
	return out
}
