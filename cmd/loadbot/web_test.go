package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// Bots over the web front against a real server: every bot a WebSocket on
// gmcp.mudstandards.org (as the built-in page), then half and half with
// telnet; each creates its character, every command is answered by its
// prompt, nobody is cut off, and the server counts them under their front.
func TestRun_WebAndMixedFronts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := servertest.Start(t, nil)
	for _, front := range []string{"web", "mixed"} {
		t.Run(front, func(t *testing.T) {
			lc := testConfig(srv.TelnetAddr())
			lc.Front, lc.WebAddr = front, srv.WebAddr()
			lc.Prefix = map[string]string{"web": "Webot", "mixed": "Mixbot"}[front]
			lc.Bots = 10
			lc.Every = 100 * time.Millisecond
			lc.Duration = 2 * time.Second
			lc.ReplyTimeout = 20 * time.Second
			lc.LoginTimeout = 30 * time.Second
			lc.QuitWait = 10 * time.Second
			lc.Commands = mustCommands("look,say hello")
			seen := make(chan map[string]int, 1)
			lc.Logf = func(format string, args ...any) {
				// Once every bot is in, count the sessions by front.
				if strings.Contains(format, "measuring") {
					n := map[string]int{}
					for _, si := range srv.Gate().Sessions() {
						if strings.HasPrefix(si.Name, lc.Prefix) {
							n[si.Front]++
						}
					}
					select {
					case seen <- n:
					default:
					}
				}
			}
			s := runWithin(t, context.Background(), lc, 2*time.Minute)
			checkHealthy(t, s, lc)
			want := map[string]int{"web": 10}
			if front == "mixed" {
				want = map[string]int{"web": 5, "telnet": 5}
			}
			select {
			case n := <-seen:
				for f, k := range want {
					if n[f] != k {
						t.Errorf("sessions by front %v, want %v", n, want)
					}
				}
			default:
				t.Errorf("no progress line said the window opened")
			}
			if txt := s.Text(); !strings.Contains(txt, "web") {
				t.Errorf("the summary does not say the front:\n%s", txt)
			}
		})
	}
}
