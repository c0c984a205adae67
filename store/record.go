package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
)

// Account is a login: a name and how to prove it.
type Account struct {
	Name      string   `json:"name"`
	Hash      string   `json:"hash"` // PHC string: $argon2id$v=19$m=...,t=...,p=...$salt$key
	Created   int64    `json:"created"`
	LastLogin int64    `json:"last_login"`
	Keys      []string `json:"keys,omitempty"` // SSH public keys, authorized_keys format
	Admin     bool     `json:"admin,omitempty"`
}

// Character is everything a player owns and is, as stored.
type Character struct {
	Name     string `json:"name"`
	Epoch    uint64 `json:"epoch"`
	Arrival  uint64 `json:"arrival"`
	Created  int64  `json:"created"`
	Saved    int64  `json:"saved"` // unix nanoseconds of the commit
	Played   int64  `json:"played"`
	Commands uint64 `json:"commands"`

	Title string `json:"title,omitempty"`
	Admin bool   `json:"admin,omitempty"`

	Level int `json:"level"`
	Exp   int `json:"exp"`
	HP    int `json:"hp"`
	Mana  int `json:"mana"`
	Moves int `json:"moves"`
	Gold  int `json:"gold"`

	Items    []Item         `json:"items,omitempty"`
	Affects  []Affect       `json:"affects,omitempty"`
	Settings Settings       `json:"settings"`
	Attrs    map[string]int `json:"attrs,omitempty"`
	Place    Placement      `json:"-"` // kept in its own bucket
}

// Item is an owned item and its contents.
type Item struct {
	ID       uint64 `json:"id"`
	Proto    string `json:"proto"`
	Slot     string `json:"slot,omitempty"`
	Closed   bool   `json:"closed,omitempty"`
	Locked   bool   `json:"locked,omitempty"`
	Contents []Item `json:"contents,omitempty"`
}

// Affect is an affect on a character.
type Affect struct {
	Name   string `json:"name"`
	Pulses int    `json:"pulses"`
	Stacks int    `json:"stacks,omitempty"`
	Mag    int    `json:"mag,omitempty"`
}

// Settings are a player's own choices.
type Settings struct {
	Color        string `json:"color,omitempty"`
	ScreenReader bool   `json:"screenreader,omitempty"`
	Brief        bool   `json:"brief,omitempty"`
	PvP          bool   `json:"pvp,omitempty"`
	Vitals       bool   `json:"vitals,omitempty"`
}

// Placement says where a character is: the zone and room that hold it.
// Zone is never an instance: inside one, the placement keeps the anchor,
// the zone and room the character entered from.
type Placement struct {
	Zone       string `json:"zone,omitempty"`
	Room       string `json:"room,omitempty"`
	AnchorZone string `json:"anchor_zone,omitempty"`
	AnchorRoom string `json:"anchor_room,omitempty"`
}

// ItemIDs lists every item id the character holds, depth first.
func (c *Character) ItemIDs() []uint64 {
	var out []uint64
	var walk func([]Item)
	walk = func(items []Item) {
		for i := range items {
			out = append(out, items[i].ID)
			walk(items[i].Contents)
		}
	}
	walk(c.Items)
	return out
}

// Records are written as one version byte and the JSON encoding of the
// record. The version lets a later schema read old records. JSON was chosen
// over gob and a hand-written binary form on measured size and speed
// (docs/PERFORMANCE.md): it is as small as gob per record, three times as
// fast to write, and an admin can read it with any bbolt tool.
//
// Character records carry their owner epoch in a fixed header before the
// JSON ([2][epoch, 8 bytes big-endian][json]), so the epoch fence reads it
// without decoding the record.
const (
	recordV1   = 1
	recordChar = 2
)

func encodeChar(c *Character) ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 9, len(b)+9)
	out[0] = recordChar
	binary.BigEndian.PutUint64(out[1:9], c.Epoch)
	return append(out, b...), nil
}

func decodeChar(b []byte, c *Character) error {
	if len(b) >= 10 && b[0] == recordChar {
		if err := json.Unmarshal(b[9:], c); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return nil
	}
	return decode(b, c)
}

func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+1)
	out = append(out, recordV1)
	return append(out, b...), nil
}

func decode(b []byte, v any) error {
	if len(b) < 2 {
		return fmt.Errorf("%w: %d bytes", ErrCorrupt, len(b))
	}
	if b[0] != recordV1 {
		return fmt.Errorf("%w: unknown record version %d", ErrCorrupt, b[0])
	}
	if err := json.Unmarshal(b[1:], v); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// key is a name's key: lower case, so names are unique without regard to
// case.
func key(name string) []byte { return []byte(strings.ToLower(name)) }
