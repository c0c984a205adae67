package script

// Kind says what an entity is.
type Kind uint8

// The kinds of entity a script can hold a handle to.
const (
	KindRoom Kind = iota + 1
	KindChar      // a mob or a player
	KindItem
)

// ID names an entity inside one zone: a room by its ref, a character or an
// item by its runtime id. An ID means nothing outside the zone that issued
// it (two instances of one template issue the same ids).
type ID struct {
	Kind Kind
	RID  uint64 // characters and items
	Ref  string // rooms
}

// Info is what a script may read about an entity.
type Info struct {
	Kind            Kind
	Proto           string // prototype ref ("" for players)
	Name            string // a player's name, a mob's or item's short
	Short           string // short description ("a giant rat")
	Long            string // the line shown in a room
	Level           int
	Player          bool
	Flags           []string // prototype flags (room, mob or item flags)
	HP, MaxHP       int
	Mana, MaxMana   int
	Moves, MaxMoves int
}

// Host is what a VM needs from the zone that owns it. The zone implements
// it; every method is called on the zone goroutine only, and every method
// validates the IDs it is given against the zone's own containment (an ID
// that names nothing here is a no-op, never a panic). A Host never gives
// the script package a pointer into zone state.
type Host interface {
	// ZoneID is the zone's id ("emberfall", or "crypt#<hex>" in an
	// instance): what mud.zone() returns.
	ZoneID() string
	// IntN returns a number in [0, n) from the zone's seeded RNG.
	IntN(n int) int
	// After runs fn after n pulses on the zone goroutine; the returned
	// func cancels it.
	After(pulses int, fn func()) (cancel func())

	// Reads. ok is false when the ID names nothing in this zone (dead,
	// departed, or never here).
	Info(id ID) (Info, bool)
	Room(id ID) (ID, bool)           // the room an entity is in (an item: its holder's room)
	Contents(id ID) []ID             // items in a room, carried by a character, or in a container
	Occupants(room ID) []ID          // characters in a room
	Exits(room ID) map[string]string // direction -> destination room ref
	Holder(item ID) (ID, bool)       // who or what holds an item

	// Acts. Each reports whether it did anything.
	Send(to ID, text string) bool            // a line to one player
	Say(from ID, text string) bool           // from speaks to its room
	Emote(from ID, text string) bool         // "<from> <text>" to its room
	Broadcast(room ID, text string) bool     // a line to everyone in a room
	Move(who ID, dir string) bool            // a mob walks through an exit (never an instance entrance)
	Teleport(who ID, room string) bool       // within this zone only
	Damage(who ID, amount int, from ID) bool // may kill
	Heal(who ID, amount int) bool
	Give(item ID, to ID) bool                // an item to a character, or into a container, or onto a room
	Purge(id ID) bool                        // remove a mob or an item; never a player
	Spawn(proto string, where ID) (ID, bool) // a mob or item prototype into a room (or an item to a character)
	SetDoor(room ID, dir, state string) bool // open, closed or locked, both sides

	// SendToInstance moves who into an instance of template. The script
	// package calls it only when the actor running the script is who
	// itself (self-only); a mob's or room's script never reaches it.
	SendToInstance(who ID, template string) error

	// QuestStart puts a quest under way for a player here, as quest
	// accept would (level and prerequisites hold) but wherever the player
	// stands; it returns the line that refuses it, "" when it started.
	QuestStart(who ID, quest string) (refusal string)
	// QuestAdvance moves a player's quest under way on: step 0 finishes
	// the step it is at, step n (1-based) puts it at step n; past the last
	// step the quest is done and its rewards paid. It returns the refusal,
	// "" when it moved.
	QuestAdvance(who ID, quest string, step int) (refusal string)
	// QuestState says where a player stands with a quest: "none",
	// "active" (with the 1-based step it is at) or "done"; "" when who is
	// no player here or there is no such quest.
	QuestState(who ID, quest string) (state string, step int)

	// Log records a builder log line for the script.
	Log(script, text string)
	// Report tells the zone a script failed: the zone shows builders
	// online in the zone the message (with file and line) and logs it, at
	// most once per script per minute.
	Report(script, message string)
}
