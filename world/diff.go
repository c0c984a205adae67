package world

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"zonemud/content"
	"zonemud/script"
	"zonemud/zone"
)

// diffContent says, a line each, what a new version of the content changes
// from the running one; nothing means nothing a player could notice did.
// Where a thing is written in its file (its line) does not count: moving a
// room down the file changes nothing.
func diffContent(old *zone.Snapshot, set *content.Set, scripts zone.Scripts) []string {
	var out []string
	ids := slices.Clone(set.ZoneOrder)
	for id := range old.Set.Zones {
		if set.Zones[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		oz, nz := old.Set.Zones[id], set.Zones[id]
		switch {
		case oz == nil:
			kind := "zone"
			if nz.Instanceable {
				kind = "instanceable zone (entered through its copies)"
			}
			out = append(out, fmt.Sprintf("%s: new %s %s, %d rooms, %d mobs, %d items", nz.File, kind, id, len(nz.Rooms), len(nz.Mobs), len(nz.Items)))
			continue
		case nz == nil:
			out = append(out, fmt.Sprintf("%s: zone %s is gone from the files; its players go to the start room", oz.File, id))
			continue
		}
		out = append(out, diffZone(oz, nz)...)
	}
	if rs := diffScripts(old, set, scripts); len(rs) > 0 {
		out = append(out, "scripts recompiled (each starts afresh, switched back on if its breaker had switched it off): "+names(rs))
	}
	if !reflect.DeepEqual(old.Set.Game, set.Game) {
		out = append(out, content.GameFile+": the rules changed (fights, levels, abilities and affects use them from now on)")
	}
	if !reflect.DeepEqual(old.Set.Help, set.Help) {
		out = append(out, content.HelpFile+": help changed")
	}
	return out
}

// diffZone compares one zone's two versions.
func diffZone(oz, nz *content.Zone) []string {
	var out []string
	file := nz.File
	if oz.Instanceable != nz.Instanceable {
		if nz.Instanceable {
			out = append(out, fmt.Sprintf("%s: zone %s is now instanceable: its players go to the start room, and it is entered through its copies", file, nz.ID))
		} else {
			out = append(out, fmt.Sprintf("%s: zone %s is no longer instanceable: it is hosted as a zone of its own", file, nz.ID))
		}
	}
	if oz.Name != nz.Name || oz.Description != nz.Description || oz.Credits != nz.Credits || !slices.Equal(oz.Builders, nz.Builders) ||
		oz.ResetSecs != nz.ResetSecs || oz.StartRoom != nz.StartRoom || oz.Levels != nz.Levels || oz.File != nz.File {
		out = append(out, fmt.Sprintf("%s: [zone] changed", file))
	}
	part := func(kind string, changed, added, removed []string, note string) {
		var parts []string
		if len(changed) > 0 {
			parts = append(parts, "changed: "+names(changed))
		}
		if len(added) > 0 {
			parts = append(parts, "added: "+names(added))
		}
		if len(removed) > 0 {
			parts = append(parts, "removed: "+names(removed))
		}
		if len(parts) > 0 {
			line := fmt.Sprintf("%s: %s %s", file, kind, strings.Join(parts, "; "))
			if note != "" && (len(changed) > 0 || len(removed) > 0) {
				line += " (" + note + ")"
			}
			out = append(out, line)
		}
	}
	c, a, r := compare(oz.Rooms, nz.Rooms, func(x *content.Room) string { return x.Local }, func(x, y *content.Room) bool {
		x2, y2 := *x, *y
		x2.Line, y2.Line, x2.Num, y2.Num, x2.Script, y2.Script = 0, 0, 0, 0, nil, nil
		return reflect.DeepEqual(x2, y2)
	})
	part("rooms", c, a, r, "")
	c, a, r = compare(oz.Mobs, nz.Mobs, func(x *content.Mob) string { return x.Local }, func(x, y *content.Mob) bool {
		x2, y2 := *x, *y
		x2.Line, y2.Line, x2.Script, y2.Script = 0, 0, nil, nil
		return reflect.DeepEqual(x2, y2)
	})
	part("mobs", c, a, r, "those in the world keep their old version; new spawns and resets use the new one")
	c, a, r = compare(oz.Items, nz.Items, func(x *content.Item) string { return x.Local }, func(x, y *content.Item) bool {
		x2, y2 := *x, *y
		x2.Line, y2.Line, x2.Script, y2.Script = 0, 0, nil, nil
		return reflect.DeepEqual(x2, y2)
	})
	part("items", c, a, r, "those in the world keep their old version; new ones use the new one")
	if !sameResets(oz.Resets, nz.Resets) {
		out = append(out, fmt.Sprintf("%s: resets changed (from the next reset on)", file))
	}
	return out
}

// compare pairs two sorted lists by key and returns the keys changed,
// added and removed.
func compare[T any](old, new []T, key func(T) string, same func(a, b T) bool) (changed, added, removed []string) {
	om := make(map[string]T, len(old))
	for _, x := range old {
		om[key(x)] = x
	}
	for _, y := range new {
		k := key(y)
		x, ok := om[k]
		switch {
		case !ok:
			added = append(added, k)
		case !same(x, y):
			changed = append(changed, k)
		}
		delete(om, k)
	}
	for k := range om {
		removed = append(removed, k)
	}
	sort.Strings(removed)
	return changed, added, removed
}

func sameResets(a, b []*content.Reset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := *a[i], *b[i]
		x.Line, y.Line = 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// diffScripts lists the refs whose compiled script is not the one they ran.
func diffScripts(old *zone.Snapshot, set *content.Set, scripts zone.Scripts) []string {
	var out []string
	check := func(ref string, o, n *content.Script) {
		var oc, nc *script.Compiled
		if o != nil {
			oc = old.Scripts.Compiled[o]
		}
		if n != nil {
			nc = scripts.Compiled[n]
		}
		if (o != nil || n != nil) && oc != nc {
			out = append(out, ref)
		}
	}
	for ref, r := range set.Rooms {
		if or := old.Set.Rooms[ref]; or != nil {
			check(ref, or.Script, r.Script)
		}
	}
	for ref, m := range set.Mobs {
		if om := old.Set.Mobs[ref]; om != nil {
			check(ref, om.Script, m.Script)
		}
	}
	for ref, it := range set.Items {
		if oi := old.Set.Items[ref]; oi != nil {
			check(ref, oi.Script, it.Script)
		}
	}
	sort.Strings(out)
	return out
}

// names lists at most ten names, then how many more.
func names(list []string) string {
	const most = 10
	if len(list) <= most {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:most], ", "), len(list)-most)
}
