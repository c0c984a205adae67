package zone

import (
	"encoding/json"
	"strconv"

	"zonemud/content"
	"zonemud/internal/markup"
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
	r := c.room
	if s == nil || r == nil {
		return
	}
	if b, ok := s.(gmcpBurster); ok && !b.GMCPAny() {
		return // most clients never ask, and a crowd walks a lot
	}
	// Encoded once a room, not once a walker; it goes with the room's text.
	if r.info == nil || r.infoOf != r.proto || r.infoSet != z.set {
		b, err := json.Marshal(lazyRoomInfo{z.set, z.proto.Name, r.proto})
		if err != nil {
			return
		}
		r.info, r.infoOf, r.infoSet = b, r.proto, z.set
	}
	z.holdGMCP(c, "Room.Info", json.RawMessage(r.info))
}

// lazyRoomInfo is Room.Info, made when it is encoded. Its fields are
// immutable content, so it may be encoded on any goroutine.
type lazyRoomInfo struct {
	set  *content.Set
	area string
	r    *content.Room
}

func (l lazyRoomInfo) MarshalJSON() ([]byte, error) {
	r := l.r
	info := gmcpRoomInfo{Num: r.Num, Name: markup.Strip(r.Name), Area: l.area, Environment: r.Environment, Exits: map[string]int{}}
	if r.HasCoords {
		info.Coords = strconv.Itoa(r.Coords[0]) + "," + strconv.Itoa(r.Coords[1]) + "," + strconv.Itoa(r.Coords[2])
	}
	for d, ex := range r.Exits {
		if ex == nil {
			continue
		}
		if to := l.set.Rooms[ex.To]; to != nil {
			info.Exits[content.Dir(d).Short()] = to.Num
		}
	}
	if r.Flags.Has(content.RoomSafe) {
		info.Details = append(info.Details, "safe")
	}
	if r.Flags.Has(content.RoomStorage) {
		info.Details = append(info.Details, "storage")
	}
	return json.Marshal(info)
}

type gmcpChannelText struct {
	Channel string `json:"channel"`
	Talker  string `json:"talker"`
	Text    string `json:"text"`
}

// gmcpChannel sends a room's speech to GMCP clients other than the speaker
// (the speaker gets its own copy too: clients log both sides).
func (z *Zone) gmcpChannel(room *Room, from *Char, channel, text string) {
	// Encoded once for the whole room, not once per listener.
	b, err := json.Marshal(gmcpChannelText{Channel: channel, Talker: from.short(), Text: markup.Strip(text)})
	if err != nil {
		return // three strings always encode
	}
	var msg any = json.RawMessage(b) // one interface for the room, not one a hearer
	for _, o := range z.hearers(room, from) {
		if o.pl != nil && o.pl.sess != nil && !o.pl.comm.ignores(from.name) {
			z.holdGMCP(o, "Comm.Channel.Text", msg)
		}
	}
	if z.throng(room) && from.pl != nil && from.pl.sess != nil {
		z.holdGMCP(from, "Comm.Channel.Text", msg) // the talker is not near itself
	}
}

func (z *Zone) gmcpTell(to *Char, from, text string) {
	z.holdGMCP(to, "Comm.Channel.Text", gmcpChannelText{Channel: "tell", Talker: from, Text: markup.Strip(text)})
}

// heldGMCP is a GMCP message waiting with a player's text. Its data is
// encoded when it is sent, so it must not change meanwhile: encoded JSON,
// a value, or a view of immutable content (lazyRoomInfo).
type heldGMCP struct {
	pkg  string
	data any
}

// holdGMCP keeps a GMCP message for c to go out with the text c has
// waiting, in the same burst (flushOne): a room's text and its Room.Info,
// a say, a tell or a channel line and its Comm.Channel.Text reach the
// client together, in one write, and the GMCP of text that waits out a
// gap (a crowd's talk, a channel line under newsGap) waits with it rather
// than going ahead in a write of its own. With no text waiting it goes at
// once; to a client that asked for no GMCP, not at all.
func (z *Zone) holdGMCP(c *Char, pkg string, data any) {
	p := c.pl
	if p == nil || p.sess == nil {
		return
	}
	b, ok := p.sess.(gmcpBurster)
	if !ok || !p.queued {
		p.sess.GMCP(pkg, data)
		return
	}
	if !b.GMCPAny() {
		return // most clients never ask: nothing held for them
	}
	p.gmcpHeld = append(p.gmcpHeld, heldGMCP{pkg, data})
}

// gmcpBurster is a session that can queue a GMCP message to go out in one
// burst with the Write that follows it (the gate's sessions), and says
// whether its client asked for any GMCP at all.
type gmcpBurster interface {
	GMCPBefore(pkg string, data any)
	GMCPAny() bool
}

// gmcpWithWrite sends a GMCP message to s in the burst of the Write that
// must follow, where the session can; else at once.
func gmcpWithWrite(s Session, pkg string, data any) {
	if b, ok := s.(gmcpBurster); ok {
		b.GMCPBefore(pkg, data)
		return
	}
	s.GMCP(pkg, data)
}

// Char.Name, Char.Status and Char.Vitals, numbers as numbers (Aardwolf
// style; documented in areas/README.md for client script writers).
type gmcpCharName struct {
	Name     string `json:"name"`
	Fullname string `json:"fullname"`
}

type gmcpCharStatus struct {
	Level int    `json:"level"`
	Area  string `json:"area"`
	State string `json:"state"`
}

type gmcpVitals struct {
	HP       int `json:"hp"`
	MaxHP    int `json:"maxhp"`
	Mana     int `json:"mana"`
	MaxMana  int `json:"maxmana"`
	Moves    int `json:"moves"`
	MaxMoves int `json:"maxmoves"`
}

// gmcpChar sends the whole Char set: on login, reconnect and zone change.
func (z *Zone) gmcpChar(c *Char) {
	s := c.pl.sess
	if s == nil {
		return
	}
	full := c.name
	if c.pl.title != "" {
		full += " " + c.pl.title
	}
	s.GMCP("Char.Name", gmcpCharName{Name: c.name, Fullname: full})
	s.GMCP("Char.Status", gmcpCharStatus{Level: c.level, Area: z.proto.Name, State: c.stateWord()})
	z.gmcpVitals(c, true)
	if len(c.pl.quests.Active)+len(c.pl.quests.Done) > 0 {
		z.gmcpQuests(c)
	}
}

// gmcpVitals sends Char.Vitals when they changed since the last send (or
// always, if force).
func (z *Zone) gmcpVitals(c *Char, force bool) {
	z.sendVitals(c, force, false)
}

// sendVitals is gmcpVitals; withWrite sends them in the burst of the Write
// that follows (flushOne's prompt).
func (z *Zone) sendVitals(c *Char, force, withWrite bool) {
	s := c.pl.sess
	if s == nil {
		return
	}
	v := gmcpVitals{HP: c.hp, MaxHP: c.maxHP, Mana: c.mana, MaxMana: c.maxM, Moves: c.mv, MaxMoves: c.maxMv}
	if !force && v == c.pl.lastVitals {
		return
	}
	c.pl.lastVitals = v
	if withWrite {
		gmcpWithWrite(s, "Char.Vitals", v)
		return
	}
	s.GMCP("Char.Vitals", v)
}
