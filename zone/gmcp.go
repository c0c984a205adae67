package zone

import (
	"strconv"

	"zonemud/world/content"
)

// GMCP Room.Info, in the IRE shape Mudlet's mapper reads: num is the room's
// stable number, exits map a direction to the number of the room it leads to.
type gmcpRoomInfo struct {
	Num         int            `json:"num"`
	Name        string         `json:"name"`
	Area        string         `json:"area"`
	Environment string         `json:"environment,omitempty"`
	Coords      string         `json:"coords,omitempty"`
	Exits       map[string]int `json:"exits"`
	Details     []string       `json:"details,omitempty"`
}

func (z *Zone) gmcpRoom(c *Char) {
	s := c.pl.sess
	if s == nil || c.room == nil {
		return
	}
	r := c.room.proto
	info := gmcpRoomInfo{Num: r.Num, Name: content.StripMarkup(r.Name), Area: z.proto.Name, Environment: r.Environment, Exits: map[string]int{}}
	if r.HasCoords {
		info.Coords = strconv.Itoa(r.Coords[0]) + "," + strconv.Itoa(r.Coords[1]) + "," + strconv.Itoa(r.Coords[2])
	}
	for d, ex := range r.Exits {
		if ex == nil {
			continue
		}
		if to := z.set.Rooms[ex.To]; to != nil {
			info.Exits[content.Dir(d).Short()] = to.Num
		}
	}
	if r.Flags.Has(content.RoomSafe) {
		info.Details = append(info.Details, "safe")
	}
	if r.Flags.Has(content.RoomStorage) {
		info.Details = append(info.Details, "storage")
	}
	s.GMCP("Room.Info", info)
}

type gmcpChannelText struct {
	Channel string `json:"channel"`
	Talker  string `json:"talker"`
	Text    string `json:"text"`
}

// gmcpChannel sends a room's speech to GMCP clients other than the speaker
// (the speaker gets its own copy too: clients log both sides).
func (z *Zone) gmcpChannel(room *Room, from *Char, channel, text string) {
	msg := gmcpChannelText{Channel: channel, Talker: from.short(), Text: content.StripMarkup(text)}
	for _, o := range room.people {
		if o.pl != nil && o.pl.sess != nil {
			o.pl.sess.GMCP("Comm.Channel.Text", msg)
		}
	}
}

func (z *Zone) gmcpTell(to *Char, from, text string) {
	if to.pl.sess != nil {
		to.pl.sess.GMCP("Comm.Channel.Text", gmcpChannelText{Channel: "tell", Talker: from, Text: content.StripMarkup(text)})
	}
}
