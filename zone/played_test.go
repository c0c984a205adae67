package zone_test

import (
	"testing"
	"testing/synctest"
	"time"

	"zonemud/world"
)

// score counts played time by the clock, stored time included: a
// character stored with an hour played who plays on for an hour and a
// quarter has played 2 hours and 15 minutes, an hour and 15 minutes of it
// since coming in. The clock is the synctest bubble's, so the figures are
// exact however busy the machine is.
func TestScore_PlayedTimeCountsTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := atBarrow("Keeper")
		c.Played = int64(time.Hour / time.Second)
		w := instWorld(t, world.InstanceConfig{}, c)
		p := enterAs(t, w, "Keeper")
		m := p.mark()
		p.do("score")
		p.expect(m, "You have played for 1 hour, less than a minute of it since you came in.")
		for range 5 { // a step every quarter hour: never idle long enough to be logged out
			time.Sleep(15 * time.Minute)
			p.do("look")
		}
		m = p.mark()
		p.do("score")
		p.expect(m, "You have played for 2 hours and 15 minutes, 1 hour and 15 minutes of it since you came in.")
	})
}
