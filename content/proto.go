package content

import "zonemud/content/social"

// The prototypes below are immutable once Load returns. Zones and instances
// read them through shared pointers and never write to them; runtime state
// (who stands where, which door is open, how hurt a mob is) lives in the zone.

// Set is one loaded, validated version of all content.
type Set struct {
	Zones map[string]*Zone // by zone id
	Rooms map[string]*Room // by ref
	Mobs  map[string]*Mob  // by ref
	Items map[string]*Item // by ref
	// Quests are every zone's quests by id; quest ids are unique across
	// the world. QuestOrder lists them sorted by level, then id.
	Quests     map[string]*Quest
	QuestOrder []string
	Help       []*Help // in file order
	Game       *Game
	// Socials is the socials file's table; nil if the world has none.
	Socials *social.Table
	// Channels are the channels file's channels, sorted by name.
	Channels []*Channel

	// ZoneOrder lists zone ids sorted, for stable iteration.
	ZoneOrder []string
	rooms     map[int]*Room // by Num
}

// RoomByNum finds a room by its stable number (GMCP Room.Info num).
func (s *Set) RoomByNum(n int) *Room { return s.rooms[n] }

// Zone is a zone header with the things it declares.
type Zone struct {
	ID           string
	Name         string
	Description  string
	Credits      string
	Builders     []string
	ResetSecs    int
	StartRoom    string // ref
	Instanceable bool
	Levels       [2]int
	File         string  // the file it came from, relative to the areas root
	Line         int     // the line of its [zone] table in File (0: not written)
	Rooms        []*Room // sorted by ref
	Mobs         []*Mob  // sorted by ref
	Items        []*Item // sorted by ref
	Resets       []*Reset
	Quests       []*Quest // sorted by id
	// Doors are the rooms that declare an instance entrance into this
	// zone, in load order: a way out of a copy that leads to one of them
	// leads back to the door the player used.
	Doors []string
}

// Room is a room prototype.
type Room struct {
	Ref, Zone, Local string
	Line             int // where it is written in its zone's file
	Num              int // stable across restarts, unique in the set
	Name             string
	Description      string
	Environment      string
	Coords           [3]int
	HasCoords        bool
	Flags            RoomFlags
	Exits            [NumDirs]*Exit
	// Entrances are the declared instance doors: direction to the id of an
	// instanceable zone. They are not exits: nothing that pushes a player
	// (flee, scripted moves) resolves through them.
	Entrances [NumDirs]string
	Extra     []Extra
	Script    *Script
}

// Exit leads from a room in a direction.
type Exit struct {
	To   string // ref of the destination room
	Door *Door  // nil when there is no door
}

// Door is a door prototype on one side of an exit.
type Door struct {
	Keywords []string
	Short    string
	Closed   bool
	Locked   bool
	Key      string // item ref, "" when it has no lock
}

// Extra is an extra description: looking at any keyword shows the text.
type Extra struct {
	Keywords []string
	Text     string
}

// Mob is a mobile prototype.
type Mob struct {
	Ref, Zone, Local string
	Line             int // where it is written in its zone's file
	Keywords         []string
	Short            string
	Long             string
	Description      string
	Level            int
	Flags            MobFlags
	HP               Dice
	Damage           Dice
	DamageType       string
	AttackVerb       string
	Attacks          int
	Armor            int
	Hitroll          int
	Dodge            int
	Gold             Dice
	Exp              int
	Abilities        []string
	WanderEvery      int // pulses between wander attempts
	Script           *Script
	Shop             *Shop // nil unless the mob keeps a shop (shop.go)
}

// ItemType says what an item is for.
type ItemType string

// The item types.
const (
	ItemOther     ItemType = "other"
	ItemWeapon    ItemType = "weapon"
	ItemArmor     ItemType = "armor"
	ItemContainer ItemType = "container"
	ItemLight     ItemType = "light"
	ItemKey       ItemType = "key"
	ItemFood      ItemType = "food"
	ItemDrink     ItemType = "drink"
	ItemTreasure  ItemType = "treasure"
	ItemMoney     ItemType = "money"
	ItemFurniture ItemType = "furniture"
	ItemCorpse    ItemType = "corpse"
)

var itemTypes = []ItemType{ItemOther, ItemWeapon, ItemArmor, ItemContainer, ItemLight, ItemKey, ItemFood, ItemDrink, ItemTreasure, ItemMoney, ItemFurniture}

// Item is an item prototype.
type Item struct {
	Ref, Zone, Local string
	Line             int // where it is written in its zone's file
	Keywords         []string
	Short            string
	Long             string
	Description      string
	Type             ItemType
	Wear             string // slot name from game data, "" if not wearable
	Weight           int
	Value            int
	Level            int
	Flags            ItemFlags
	Damage           Dice
	DamageType       string
	AttackVerb       string
	Armor            int
	Apply            map[string]int
	Capacity         int
	Closeable        bool
	Closed           bool
	Locked           bool
	Key              string
	Heal             Dice
	Extra            []Extra
	Script           *Script
}

// ResetKind says what a reset does.
type ResetKind uint8

// The reset kinds.
const (
	ResetMob ResetKind = iota + 1
	ResetItem
	ResetDoor
)

// Reset is one line of a zone's reset list, run at boot and every reset_secs.
type Reset struct {
	Kind     ResetKind
	Proto    string // mob or item ref
	Room     string // room ref
	Max      int    // mob: live copies from this reset; item: copies in the room
	Equip    []string
	Give     []string
	Contents []string
	Door     Dir
	State    string // door: open, closed or locked
	Key      string // where it was written, for messages: "resets[3]"
	Line     int    // the line it starts on in its zone's file
}

// Script is Lua source attached to a room, mob or item.
type Script struct {
	Source string
	File   string // areas file (or script file) it came from
	Key    string // key path, for messages
	Line   int    // line in File where Source starts, 1-based; 0 if unknown
}

// Help is one help topic.
type Help struct {
	Keywords []string
	Title    string
	Text     string
	Admin    bool // level = "admin": shown to admins only
	Builder  bool // level = "builder": shown to builders and admins
}
