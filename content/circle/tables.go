package circle

// The tables of the source formats, as tbaMUD's building.txt documents
// them, and what each entry becomes here.

// dirNames are the exits of D0 to D9: the six of CircleMUD, then the
// diagonals tbaMUD numbers 6 to 9.
var dirNames = [10]string{"north", "east", "south", "west", "up", "down", "northwest", "northeast", "southeast", "southwest"}

// roomFlagNames names the room bits, and roomFlagTo what each becomes
// ("" when it has no equivalent).
var roomFlagNames = []string{"DARK", "DEATH", "NO_MOB", "INDOORS", "PEACEFUL", "SOUNDPROOF", "NO_TRACK", "NO_MAGIC", "TUNNEL", "PRIVATE", "GODROOM", "HOUSE", "HOUSE_CRASH", "ATRIUM", "OLC", "BFS_MARK", "WORLDMAP"}

var roomFlagTo = map[int]string{0: "dark", 2: "nomob", 3: "indoors", 4: "safe"}

// roomFlagInternal are bits the engine sets for itself; they carry
// nothing a builder wrote.
var roomFlagInternal = map[int]bool{11: true, 12: true, 13: true, 14: true, 15: true}

// sectors become a room's environment.
var sectors = []string{"inside", "city", "field", "forest", "hills", "mountain", "water", "deep_water", "air", "underwater"}

var mobFlagNames = []string{"SPEC", "SENTINEL", "SCAVENGER", "ISNPC", "AWARE", "AGGRESSIVE", "STAY_ZONE", "WIMPY", "AGGR_EVIL", "AGGR_GOOD", "AGGR_NEUTRAL", "MEMORY", "HELPER", "NOCHARM", "NOSUMMON", "NOSLEEP", "NOBASH", "NOBLIND", "NOKILL", "NOTDEADYET"}

// Affect bits: CircleMUD numbers BLIND 0; tbaMUD's 128-bit form keeps bit
// 0 unused and numbers BLIND 1.
var affectNames = []string{"BLIND", "INVISIBLE", "DETECT_ALIGN", "DETECT_INVIS", "DETECT_MAGIC", "SENSE_LIFE", "WATERWALK", "SANCTUARY", "GROUP", "CURSE", "INFRAVISION", "POISON", "PROTECT_EVIL", "PROTECT_GOOD", "SLEEP", "NOTRACK", "FLYING", "SCUBA", "SNEAK", "HIDE", "UNUSED", "CHARM"}

var positions = []string{"dead", "mortally wounded", "incapacitated", "stunned", "sleeping", "resting", "sitting", "fighting", "standing"}

// attacks are the bare-hand and weapon attack types, and the damage type
// each is counted as.
var attacks = []struct{ verb, kind string }{
	{"hit", "bludgeon"}, {"sting", "pierce"}, {"whip", "slash"}, {"slash", "slash"},
	{"bite", "pierce"}, {"bludgeon", "bludgeon"}, {"crush", "bludgeon"}, {"pound", "bludgeon"},
	{"claw", "slash"}, {"maul", "bludgeon"}, {"thrash", "bludgeon"}, {"pierce", "pierce"},
	{"blast", "bludgeon"}, {"punch", "bludgeon"}, {"stab", "pierce"}, {"impale", "pierce"},
}

var objTypeNames = []string{"UNDEFINED", "LIGHT", "SCROLL", "WAND", "STAFF", "WEAPON", "FURNITURE", "FREE", "TREASURE", "ARMOR", "POTION", "WORN", "OTHER", "TRASH", "FREE2", "CONTAINER", "NOTE", "DRINKCON", "KEY", "FOOD", "MONEY", "PEN", "BOAT", "FOUNTAIN"}

// objTypeTo is the zonemud item type of each source type.
var objTypeTo = map[int]string{11: "other", 12: "other", 1: "light", 5: "weapon", 6: "furniture", 8: "treasure", 9: "armor", 15: "container", 17: "drink", 18: "key", 19: "food", 20: "money", 23: "drink"}

// objMagic are the types whose use is a spell: the item converts, its
// magic is listed as not converted.
var objMagic = map[int]bool{2: true, 3: true, 4: true, 10: true}

var extraFlagNames = []string{"GLOW", "HUM", "NORENT", "NODONATE", "NOINVIS", "INVISIBLE", "MAGIC", "NODROP", "BLESS", "ANTI_GOOD", "ANTI_EVIL", "ANTI_NEUTRAL", "ANTI_MAGIC_USER", "ANTI_CLERIC", "ANTI_THIEF", "ANTI_WARRIOR", "NOSELL", "QUEST_ITEM"}

var extraFlagTo = map[int]string{0: "glow", 7: "nodrop"}

var wearNames = []string{"TAKE", "FINGER", "NECK", "BODY", "HEAD", "LEGS", "FEET", "HANDS", "ARMS", "SHIELD", "ABOUT", "WAIST", "WRIST", "WIELD", "HOLD"}

// wearTo is the slot of the starter game.toml each wear bit fills.
var wearTo = map[int]string{1: "finger", 2: "neck", 3: "body", 4: "head", 5: "legs", 6: "feet", 7: "hands", 8: "arms", 9: "shield", 11: "waist", 13: "wield", 14: "hold"}

// wearOrder is the order in which an item's wear bits are tried for its
// one slot: the hands last, so a shield that can be held is a shield.
var wearOrder = []int{4, 2, 3, 8, 7, 11, 5, 6, 1, 9, 13, 14, 10, 12}

// equipPos are the E command's equipment positions.
var equipPos = []string{"light", "right finger", "left finger", "neck 1", "neck 2", "body", "head", "legs", "feet", "hands", "arms", "shield", "about body", "waist", "right wrist", "left wrist", "wield", "hold"}

// applyTo maps an object's A locations to zonemud stats ("" when none).
var applyNames = []string{"NONE", "STR", "DEX", "INT", "WIS", "CON", "CHA", "CLASS", "LEVEL", "AGE", "CHAR_WEIGHT", "CHAR_HEIGHT", "MAXMANA", "MAXHIT", "MAXMOVE", "GOLD", "EXP", "ARMOR", "HITROLL", "DAMROLL", "SAVING_PARA", "SAVING_ROD", "SAVING_PETRI", "SAVING_BREATH", "SAVING_SPELL"}

var applyTo = map[int]string{1: "strength", 2: "dexterity", 3: "intelligence", 4: "wisdom", 5: "constitution", 12: "mana", 13: "hp", 14: "moves", 17: "armor", 18: "hitroll", 19: "damroll"}
