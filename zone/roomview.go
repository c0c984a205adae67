package zone

import (
	"strings"

	"zonemud/content"
)

// roomView keeps the parts of a room's description that describeRoom
// writes on every look and every arrival and that change seldom: the
// description wrapped to a width, and the exits line. Wrapping and joining
// them again for each of thousands of walkers was a tenth of the zones'
// CPU in spread10000 (docs/PERFORMANCE.md, issue 25). Prototypes are not
// changed in place (a reload gives the room a new one), so the prototype,
// the width and the doors' states are the whole key. Zone goroutine only,
// as the room is.
type roomView struct {
	descProto *content.Room
	descWidth int
	desc      string

	exitsProto *content.Room
	exitsDoors [content.NumDirs]doorState
	exits      string
}

// wrappedDesc is the room's description indented and wrapped to width.
func (r *Room) wrappedDesc(width int) string {
	v := &r.view
	if v.descProto != r.proto || v.descWidth != width {
		v.descProto, v.descWidth = r.proto, width
		v.desc = wrap("   "+strings.TrimSpace(r.proto.Description), width)
	}
	return v.desc
}

// exitsLine is the "Exits: north east" line. A closed door shows its
// direction in brackets.
func (z *Zone) exitsLine(r *Room) string {
	v := &r.view
	if v.exitsProto == r.proto && v.exitsDoors == r.doors && v.exits != "" {
		return v.exits
	}
	v.exitsProto, v.exitsDoors = r.proto, r.doors
	v.exits = exitsText(r)
	return v.exits
}

func exitsText(r *Room) string {
	var ds []string
	for d := content.Dir(0); d < content.NumDirs; d++ {
		if r.proto.Exits[d] == nil {
			continue
		}
		if r.exitOpen(d) {
			ds = append(ds, d.String())
		} else {
			ds = append(ds, "["+d.String()+"]")
		}
	}
	if len(ds) == 0 {
		return "{c}Exits: none{x}"
	}
	return "{c}Exits: " + strings.Join(ds, " ") + "{x}"
}
