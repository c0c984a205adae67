package content

// Dir is one of the ten directions an exit can take.
type Dir uint8

// The ten directions, in the order exits are listed to players.
const (
	North Dir = iota
	East
	South
	West
	Up
	Down
	Northeast
	Northwest
	Southeast
	Southwest
	NumDirs
)

var dirNames = [NumDirs]string{"north", "east", "south", "west", "up", "down", "northeast", "northwest", "southeast", "southwest"}
var dirShort = [NumDirs]string{"n", "e", "s", "w", "u", "d", "ne", "nw", "se", "sw"}
var dirReverse = [NumDirs]Dir{South, West, North, East, Down, Up, Southwest, Southeast, Northwest, Northeast}

// String is the full name: "north".
func (d Dir) String() string {
	if d < NumDirs {
		return dirNames[d]
	}
	return "nowhere"
}

// Short is the abbreviation: "n", "ne".
func (d Dir) Short() string {
	if d < NumDirs {
		return dirShort[d]
	}
	return "?"
}

// Reverse is the opposite direction.
func (d Dir) Reverse() Dir { return dirReverse[d] }

// ParseDir reads a full direction name or its abbreviation.
func ParseDir(s string) (Dir, bool) {
	for i := Dir(0); i < NumDirs; i++ {
		if s == dirNames[i] || s == dirShort[i] {
			return i, true
		}
	}
	return 0, false
}
