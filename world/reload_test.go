package world

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"zonemud/zone"
)

// refusingDir is the local directory refusing to host one zone id, as a
// directory that cannot be reached would.
type refusingDir struct {
	Directory
	id string
}

func (d refusingDir) Host(ctx context.Context, h Hosting) (Lease, error) {
	if h.ID == d.id {
		return Lease{}, errors.New("the directory cannot be reached (a test's)")
	}
	return d.Directory.Host(ctx, h)
}

// A reload that moves the start room into a new zone, which then cannot be
// hosted, is refused whole: a world whose start room runs nowhere would
// have no room to put a new player in, nor the players of a zone taken
// out. The old version goes on, and a login lands where it did.
func TestReload_StartZoneThatCannotBeHostedIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := starterFS(t)
		cfg := DefaultConfig()
		cfg.Areas = fsys
		cfg.Directory = refusingDir{Directory: NewLocalDirectory(LocalOptions{}), id: "harbor"}
		w := startedWorld(t, cfg, nil)
		fsys["harbor.toml"] = &fstest.MapFile{Data: []byte(`[zone]
name = "The Harbor"
description = "Where the ships come in."
reset_secs = 0
levels = [1, 5]

[rooms.quay]
name = "The Quay"
description = "Ropes and barrels along a stone quay."
`)}
		game := fsys["game.toml"]
		game.Data = []byte(strings.Replace(string(game.Data), `start_room = "emberfall:room:square"`, `start_room = "harbor:room:quay"`, 1))
		reports := make(chan zone.ReloadReport, 1)
		w.Reload("Tester", func(r zone.ReloadReport) { reports <- r })
		synctest.Wait()
		rep := <-reports
		if !rep.Refused() {
			t.Fatalf("a reload whose start room's zone is not hosted was applied: %s", rep.Text())
		}
		if v := w.Snapshot().Version; v != 1 {
			t.Fatalf("the world runs version %d after a refused reload, want 1", v)
		}
		if w.Zone("harbor") != nil {
			t.Fatal("harbor is hosted")
		}
		p := playAs(t, w, "Newcomer")
		if !p.s.saw("Emberfall Square") {
			t.Fatal("a new player does not stand in the start room")
		}
	})
}
