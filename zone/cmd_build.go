package zone

import (
	"fmt"
	"strings"
	"time"

	"zonemud/world/content"
)

// Builder commands: the running world seen as builders see it. To anyone
// without the builder role they do not exist.

const reloadUsage = `reload
  Read the area files again now, check the whole world, and apply what
  changed, or say what is wrong and change nothing. The server does this by
  itself when a file is saved (unless watch_areas is off); this is for
  folders whose changes the system does not report. (builder)`

// cmdReload asks the world for a reload and shows its report.
func (z *Zone) cmdReload(c *Char, args string) {
	z.sendLine(c, "Reading the area files...")
	me, home := c.name, z
	z.shard.Reload(me, func(rep ReloadReport) { home.TellBuilder(me, rep.Text()) })
}

// areasBuilder is areas as a builder sees it: every zone with its file,
// what it declares and what is live, the last reload and its problems.
func (z *Zone) areasBuilder(c *Char) {
	var b strings.Builder
	rep := z.shard.LastReload()
	fmt.Fprintf(&b, "{W}Zones of version %d{x} (this zone runs version %d)\n", rep.Version, z.version.Load())
	fmt.Fprintf(&b, "  %-16s %-22s %6s %5s %5s  %s\n", "zone", "file", "rooms", "mobs", "items", "")
	live := map[string]int{}
	for _, o := range z.shard.Zones() {
		live[o.Template()]++
	}
	for _, id := range z.set.ZoneOrder {
		zp := z.set.Zones[id]
		note := ""
		switch {
		case zp.Instanceable:
			note = fmt.Sprintf("instanceable, %d live cop%s", live[id], map[bool]string{true: "y", false: "ies"}[live[id] == 1])
		case live[id] == 0:
			note = "not hosted"
		}
		if !c.mayBuild(id) && !namedBuilder(zp.Builders, c.name) {
			note = strings.TrimLeft(note+", not yours to build", ", ")
		}
		fmt.Fprintf(&b, "  %-16s %-22s %6d %5d %5d  %s\n", id, zp.File, len(zp.Rooms), len(zp.Mobs), len(zp.Items), note)
	}
	fmt.Fprintf(&b, "Last reload: %s, %s ago (%s).", reloadOutcome(rep), time.Since(rep.At).Round(time.Second), rep.Trigger)
	if rep.Refused() {
		b.WriteString(" Its problems:")
		for _, p := range rep.Problems {
			b.WriteString("\n  " + content.EscapeMarkup(p.String()))
		}
	}
	z.sendLine(c, b.String())
}

func reloadOutcome(rep ReloadReport) string {
	switch {
	case rep.Refused():
		return fmt.Sprintf("{R}refused{x}, %d problem(s)", len(rep.Problems))
	case rep.Trigger == "start":
		return "none since the start"
	case rep.Unchanged:
		return "nothing had changed"
	}
	return "applied"
}
