package content

// gameFile is areas/game.toml: the rules a builder tunes that belong to no
// one zone.
type gameFile struct {
	World gameWorld  `toml:"world"`
	Slots []slotSpec `toml:"slots"`
}

type gameWorld struct {
	Name       string `toml:"name"`
	StartRoom  string `toml:"start_room"`
	RecallRoom string `toml:"recall_room"`
}

type slotSpec struct {
	Name  string `toml:"name"`
	Label string `toml:"label"`
}

// Game is the validated game data.
type Game struct {
	Name       string
	StartRoom  string // ref: where new characters begin
	RecallRoom string // ref: where the slain wake when their zone has no start room
	Slots      []Slot // equipment slots, in display order
}

// Slot is an equipment slot.
type Slot struct {
	Name  string // "head"
	Label string // "<worn on head>"
}

// Slot finds a slot by name.
func (g *Game) Slot(name string) (Slot, bool) {
	for _, s := range g.Slots {
		if s.Name == name {
			return s, true
		}
	}
	return Slot{}, false
}
