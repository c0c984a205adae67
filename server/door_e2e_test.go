package server_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// crowdName is the i-th name of a crowd: letters only, as names must be.
func crowdName(i int) string {
	b := []byte("Door")
	var tail []byte
	for {
		tail = append(tail, byte('a'+i%26))
		i /= 26
		if i == 0 {
			break
		}
	}
	for len(tail) < 3 {
		tail = append(tail, 'a')
	}
	return string(append(b, tail...))
}

var throngCount = regexp.MustCompile(`A throng of (\d+) people is here`)

// A thousand players walk through one door in the same second: the border
// between Emberfall's East Road and Ash Ridge's Ridge Road, a move from one
// zone to another and a checkpoint of the zone left for each of them. Every
// one arrives (each is answered with the room it walked into), none is
// lost or in two places (the world holds each in Ash Ridge alone), the
// room holds exactly the thousand and the one who waited there, and after
// the crowd quits every character is stored on the Ridge Road and the
// database the server leaves passes its checks (servertest.Start). There
// is no bound on time but those on a hang.
func TestDoor_AThousandThroughOneDoorAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand telnet players")
	}
	const n = 1000
	cfg := servertest.Config(t)
	// No mob may wander onto the Ridge Road and be counted.
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		return bytes.ReplaceAll(data, []byte(`flags = ["wander"]`), []byte(`flags = []`))
	})
	cfg.World.MaxPlayers = 2 * n
	cfg.Gate.MaxConnections = 2 * n
	srv := servertest.Start(t, cfg)
	addr := srv.TelnetAddr()

	scout := servertest.Dial(t, addr)
	scout.Create("Scout", "scout-pass")
	for _, step := range []string{"east", "east", "east"} {
		scout.Do(step)
	}
	scout.DoExpect("look", "Ridge Road")

	// The crowd gathers on the East Road, the room before the door.
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
			c.Create(crowdName(i), "door-pass")
			c.Do("east")
			c.Do("east")
			clients[i] = c
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Everyone steps through at once.
	start := make(chan struct{})
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c.Send("east")
			if _, ok := c.Try("Ridge Road", 2*time.Minute); !ok { // a bound on a hang
				t.Errorf("%s never arrived on the Ridge Road", crowdName(i))
			}
		}()
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	for i := range n {
		if z := srv.World().Where(crowdName(i)); z == nil || z.ID() != "ashridge" {
			t.Errorf("%s is held by %v, want ashridge alone", crowdName(i), z)
		}
	}
	// The room is a throng: the look counts the others in one line.
	look := scout.DoExpect("look", "people is here")
	m := throngCount.FindStringSubmatch(look)
	if m == nil {
		t.Fatalf("the scout's look counts no throng:\n%s", look)
	}
	if got, _ := strconv.Atoi(m[1]); got != n {
		t.Errorf("the Ridge Road holds %d others besides the scout, want %d:\n%s", got, n, look)
	}
	if strings.Contains(look, " is here.") {
		t.Errorf("the throng's look lists players one by one:\n%s", look)
	}

	// The crowd quits; each is stored where it stood.
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
		c, err := srv.Store().Character(crowdName(i))
		if err != nil || c.Place.Room != "ashridge:room:ridge_road" {
			t.Errorf("%s stored at %+v, %v; want the Ridge Road", crowdName(i), c.Place, err)
		}
	}
	if _, err := srv.Store().Census(); err != nil {
		t.Errorf("the item census after the crowd: %v", err)
	}
}
