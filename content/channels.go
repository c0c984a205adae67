package content

import (
	"fmt"
	"sort"
)

// ChannelsFile is the reserved file that defines the channels.
const ChannelsFile = "channels.toml"

// Channel is one channel players talk on across the world.
type Channel struct {
	Name        string // the command that speaks on it: gossip
	Description string
	// Role is the least role that hears and speaks on it: "player",
	// "builder" or "admin". To anyone below it the channel is not there.
	Role string
	// On says whether a player who never turned it on or off hears it.
	On bool
	// History is how many lines the channel keeps, across restarts,
	// for `<channel> history`; 0 keeps none.
	History int
	// Rate lines in PerSecs seconds is the most one player may say on it.
	Rate, PerSecs int
	// Color is the markup the channel's lines are shown in ({Y}).
	Color string
}

// Channel finds a channel by name, or nil.
func (s *Set) Channel(name string) *Channel {
	for _, c := range s.Channels {
		if c.Name == name {
			return c
		}
	}
	return nil
}

type channelSpec struct {
	Description string `toml:"description"`
	Role        string `toml:"role"`
	On          *bool  `toml:"on"`
	History     *int   `toml:"history"`
	Rate        *int   `toml:"rate"`
	PerSecs     *int   `toml:"per_secs"`
	Color       string `toml:"color"`
}

// Limits on a channel's numbers.
const (
	maxChannels       = 32
	maxChannelHistory = 200
	maxChannelRate    = 1000
	maxChannelPer     = 86400
)

// loadChannels reads the channels file, if there is one, into the set.
func (l *loader) loadChannels(have bool) bool {
	if !have {
		return true
	}
	var f map[string]channelSpec
	if !l.decode(ChannelsFile, &f) {
		return false
	}
	if len(f) > maxChannels {
		l.problem(ChannelsFile, "", "%d channels; the limit is %d", len(f), maxChannels)
	}
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		s := f[name]
		key := quoteKey(name)
		if !validChannelName(name) {
			l.problem(ChannelsFile, key, "a channel's name is 2 to 20 lower-case letters, got %q", name)
			continue
		}
		ch := &Channel{Name: name, Description: s.Description, Role: orDefault(s.Role, "player"), On: true, History: 20, Rate: 5, PerSecs: 10, Color: s.Color}
		l.text(ChannelsFile, key+".description", s.Description, maxShortBytes, true)
		l.text(ChannelsFile, key+".color", s.Color, 16, false)
		switch ch.Role {
		case "player", "builder", "admin":
		default:
			l.problem(ChannelsFile, key+".role", "want player, builder or admin, got %q", s.Role)
		}
		if s.On != nil {
			ch.On = *s.On
		}
		num := func(field string, p *int, dst *int, lo, hi int) {
			if p == nil {
				return
			}
			if *p < lo || *p > hi {
				l.problem(ChannelsFile, key+"."+field, "want %d to %d, got %d", lo, hi, *p)
				return
			}
			*dst = *p
		}
		num("history", s.History, &ch.History, 0, maxChannelHistory)
		num("rate", s.Rate, &ch.Rate, 1, maxChannelRate)
		num("per_secs", s.PerSecs, &ch.PerSecs, 1, maxChannelPer)
		l.set.Channels = append(l.set.Channels, ch)
	}
	return true
}

func validChannelName(s string) bool {
	if len(s) < 2 || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// String is how a channel is named in a problem or a log line.
func (c *Channel) String() string { return fmt.Sprintf("channel %s", c.Name) }
