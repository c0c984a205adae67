package server_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// A throng crosses a zone and comes back, again and again: 400 players
// on Emberfall's Mine Road (a throng: more than 100) each walk east into
// Ash Ridge and west again five times, all at once, every step as fast as
// it is answered, while the room they leave and come back to tells their
// comings and goings in summaries and a scout there talks. Nobody is lost
// or held twice, the scout's look counts the whole throng when they are
// back, the scout hears only those near it, and after the throng quits
// every character is stored on the Mine Road and the database passes its
// checks. No bound on time but those on a hang.
func TestThrong_CrossesAZoneAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("four hundred telnet players")
	}
	const n, rounds = 400, 5
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		return bytes.ReplaceAll(data, []byte(`flags = ["wander"]`), []byte(`flags = []`))
	})
	cfg.World.MaxPlayers = 2 * n
	cfg.Gate.MaxConnections = 2 * n
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()

	scout := servertest.Dial(t, addr)
	scout.Create("Scout", "scout-pass")
	scout.Do("east")
	scout.DoExpect("east", "Mine Road")

	name := func(i int) string { return "Th" + crowdName(i)[4:] + "ng" }
	clients := make([]*servertest.Client, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c := servertest.Dial(t, addr)
			c.Create(name(i), "throng-pass")
			c.Do("east")
			c.DoExpect("east", "Mine Road")
			clients[i] = c
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	start := make(chan struct{})
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := range rounds {
				for _, step := range []struct{ dir, room string }{{"east", "Ridge Road"}, {"west", "Mine Road"}} {
					c.Send(step.dir)
					if _, ok := c.Try(step.room, 2*time.Minute); !ok { // a bound on a hang
						t.Errorf("%s never reached the %s in round %d", name(i), step.room, r)
						return
					}
				}
			}
		}()
	}
	close(start)
	for i := range 20 {
		scout.Send(fmt.Sprintf("say round %d", i))
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	for i := range n {
		if z := srv.World().Where(name(i)); z == nil || z.ID() != "emberfall" {
			t.Errorf("%s is held by %v, want emberfall alone", name(i), z)
		}
	}
	look := scout.DoExpect("look", "people is here")
	look += scout.Expect("> ") // the rest of the throng's line, to the prompt
	m := throngCount.FindStringSubmatch(look)
	if m == nil {
		t.Fatalf("the scout's look counts no throng:\n%s", look)
	}
	if got, _ := strconv.Atoi(m[1]); got != n {
		t.Errorf("the Mine Road holds %d others besides the scout, want %d:\n%s", got, n, look)
	}
	_, list, _ := strings.Cut(strings.Join(strings.Fields(look), " "), "near you stand ")
	list, _, _ = strings.Cut(list, ".")
	near := strings.Count(list, "Th")
	if near == 0 || near > 20 {
		t.Errorf("the scout's look names %d of the throng, want those near it (1 to 20):\n%s", near, look)
	}

	// One of the throng speaks: at most the twenty near it hear. Each
	// then says something: the answer carries whatever waited for it, so
	// a say that reached them is in the text before it.
	clients[0].DoExpect("say the last word", "the last word")
	heard := 0
	for i, c := range clients[1:] {
		c.Send(fmt.Sprintf("say done-%d-end", i))
		if strings.Contains(c.Expect(fmt.Sprintf("done-%d-end", i)), "the last word") {
			heard++
		}
	}
	if heard == 0 || heard > 20 {
		t.Errorf("%d of the throng heard a say, want those near the talker (1 to 20)", heard)
	}

	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Quit()
		}()
	}
	wg.Wait()
	srv.World().Flush()
	for i := range n {
		c, err := srv.Store().Character(name(i))
		if err != nil || c.Place.Room != "emberfall:room:east_road" {
			t.Errorf("%s stored at %+v, %v; want the Mine Road", name(i), c.Place, err)
		}
	}
	if _, err := srv.Store().Census(); err != nil {
		t.Errorf("the item census after the throng: %v", err)
	}
}
