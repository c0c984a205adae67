package content

import "fmt"

// RoomFlags, MobFlags and ItemFlags are sets of named flags.
type (
	RoomFlags uint32
	MobFlags  uint32
	ItemFlags uint32
)

// Room flags.
const (
	RoomDark    RoomFlags = 1 << iota // needs a light to see
	RoomSafe                          // no violence
	RoomStorage                       // items dropped here survive restarts
	RoomNoMob                         // wandering mobs never enter
	RoomPvP                           // players may fight players
	RoomIndoors                       // under a roof
)

// Mob flags.
const (
	MobWander     MobFlags = 1 << iota // moves about its zone
	MobAggressive                      // attacks players on sight
	MobStalker                         // follows its prey out of the room
	MobPeaceful                        // cannot be attacked
	MobNoCorpse                        // leaves no corpse
)

// Item flags.
const (
	ItemPersistent ItemFlags = 1 << iota // survives restarts where it lies
	ItemNoDrop                           // cannot be dropped or given
	ItemNoTake                           // cannot be picked up
	ItemGlow                             // lights the room it is in
	ItemNoDecay                          // never rots (corpses, food)
)

var roomFlagNames = []string{"dark", "safe", "storage", "nomob", "pvp", "indoors"}
var mobFlagNames = []string{"wander", "aggressive", "stalker", "peaceful", "nocorpse"}
var itemFlagNames = []string{"persistent", "nodrop", "notake", "glow", "nodecay"}

func parseFlags(names []string, table []string) (uint32, error) {
	var f uint32
	for _, n := range names {
		found := false
		for i, t := range table {
			if n == t {
				f |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown flag %q (known: %v)", n, table)
		}
	}
	return f, nil
}

func flagNames(f uint32, table []string) []string {
	var out []string
	for i, t := range table {
		if f&(1<<i) != 0 {
			out = append(out, t)
		}
	}
	return out
}

// Has reports whether every flag in g is set.
func (f RoomFlags) Has(g RoomFlags) bool { return f&g == g }

// Has reports whether every flag in g is set.
func (f MobFlags) Has(g MobFlags) bool { return f&g == g }

// Has reports whether every flag in g is set.
func (f ItemFlags) Has(g ItemFlags) bool { return f&g == g }

// Names lists the flags set, for display.
func (f RoomFlags) Names() []string { return flagNames(uint32(f), roomFlagNames) }

// Names lists the flags set, for display.
func (f MobFlags) Names() []string { return flagNames(uint32(f), mobFlagNames) }

// Names lists the flags set, for display.
func (f ItemFlags) Names() []string { return flagNames(uint32(f), itemFlagNames) }
