package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
)

// Account is a login: a name and how to prove it.
type Account struct {
	Name      string   `json:"name"`
	Hash      string   `json:"hash"` // PHC string: $argon2id$v=19$m=...,t=...,p=...$salt$key
	Created   int64    `json:"created"`
	LastLogin int64    `json:"last_login"`
	Keys      []string `json:"keys,omitempty"` // SSH public keys, authorized_keys format
	Roles
}

// Roles are what an account may do beyond playing, granted in game by an
// admin. The admins named in the config file are admins besides these.
type Roles struct {
	Admin   bool `json:"admin,omitempty"`
	Builder bool `json:"builder,omitempty"`
	// BuildZones limits a builder to these zone ids; empty is every zone.
	BuildZones []string `json:"build_zones,omitempty"`
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

	Title  string `json:"title,omitempty"`
	Admin  bool   `json:"admin,omitempty"`
	Frozen bool   `json:"frozen,omitempty"` // an admin froze it: it can only quit

	Level int `json:"level"`
	Exp   int `json:"exp"`
	HP    int `json:"hp"`
	Mana  int `json:"mana"`
	Moves int `json:"moves"`
	Gold  int `json:"gold"`

	Items    []Item         `json:"items,omitempty"`
	Affects  []Affect       `json:"affects,omitempty"`
	Settings Settings       `json:"settings"`
	Comm     *Comm          `json:"comm,omitempty"`
	Quests   *QuestRecord   `json:"quests,omitempty"`
	Attrs    map[string]int `json:"attrs,omitempty"`
	Place    Placement      `json:"-"` // kept in its own bucket
}

// QuestRecord is a character's quests: those under way, with the step
// each is at, and the ids of those done.
type QuestRecord struct {
	Active []QuestProgress `json:"active,omitempty"`
	Done   []string        `json:"done,omitempty"`
}

// QuestProgress is one quest under way.
type QuestProgress struct {
	ID    string `json:"id"`
	Step  int    `json:"step"`
	Count int    `json:"count,omitempty"`
}

// Item is an owned item and its contents.
type Item struct {
	ID       uint64 `json:"id"`
	Proto    string `json:"proto"`
	Slot     string `json:"slot,omitempty"`
	Closed   bool   `json:"closed,omitempty"`
	Locked   bool   `json:"locked,omitempty"`
	Coins    int    `json:"coins,omitempty"` // a coin pile's amount
	Kept     bool   `json:"kept,omitempty"`  // marked with keep by its owner
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
	Prompt       string `json:"prompt,omitempty"` // the player's own prompt; "" for the default
	WizInvis     int    `json:"wizinvis,omitempty"`
	Holylight    bool   `json:"holylight,omitempty"`
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
// fast to write, and an admin can read it with any bbolt tool. The records
// a checkpoint writes (characters, placements, room items) are encoded by
// hand to the same bytes (recjson.go), five times as fast again.
//
// bbolt checks its pages but not the bytes of a value, so every record
// carries a CRC-32C of what follows it: a bit gone bad on disk is found
// when the record is read, never served as a changed name or a lost item.
//
//	[3][crc 4][json]                  any record
//	[4][epoch 8][crc 4][json]         a character; the crc covers epoch and json
//
// Character records carry their owner epoch in a fixed header before the
// JSON, so the epoch fence reads it without decoding the record. Versions 1
// ([1][json]) and 2 ([2][epoch 8][json]) are the unchecked forms of schema
// 1; they are still read, and rewritten by the migration to schema 2.
const (
	recordV1          = 1
	recordChar        = 2
	recordChecked     = 3
	recordCharChecked = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func encodeChar(c *Character) ([]byte, error) {
	return appendChar(nil, c), nil
}

// appendChar appends c's record (recordCharChecked) to b.
func appendChar(b []byte, c *Character) []byte {
	n := len(b)
	b = append(b, recordCharChecked, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint64(b[n+1:n+9], c.Epoch)
	b = appendCharJSON(b, c)
	crc := crc32.Update(crc32.Checksum(b[n+1:n+9], castagnoli), castagnoli, b[n+13:])
	binary.BigEndian.PutUint32(b[n+9:n+13], crc)
	return b
}

func decodeChar(b []byte, c *Character) error {
	epoch, body, err := unpackChar(b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, c); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if epoch != nil && c.Epoch != *epoch {
		return fmt.Errorf("%w: epoch %d in the header, %d in the record", ErrCorrupt, *epoch, c.Epoch)
	}
	return nil
}

// unpackChar checks a character record's form and checksum and returns the
// epoch in its header (nil for the forms without one) and its JSON.
func unpackChar(b []byte) (epoch *uint64, body []byte, err error) {
	switch {
	case len(b) >= 14 && b[0] == recordCharChecked:
		crc := crc32.Update(crc32.Checksum(b[1:9], castagnoli), castagnoli, b[13:])
		if crc != binary.BigEndian.Uint32(b[9:13]) {
			return nil, nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
		}
		e := binary.BigEndian.Uint64(b[1:9])
		return &e, b[13:], nil
	case len(b) >= 10 && b[0] == recordChar:
		return nil, b[9:], nil
	}
	body, err = unpack(b)
	return nil, body, err
}

func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 5, len(b)+5)
	out[0] = recordChecked
	binary.BigEndian.PutUint32(out[1:5], crc32.Checksum(b, castagnoli))
	return append(out, b...), nil
}

func decode(b []byte, v any) error {
	body, err := unpack(b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// unpack checks a record's form and checksum and returns its JSON.
func unpack(b []byte) ([]byte, error) {
	switch {
	case len(b) >= 6 && b[0] == recordChecked:
		if crc32.Checksum(b[5:], castagnoli) != binary.BigEndian.Uint32(b[1:5]) {
			return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
		}
		return b[5:], nil
	case len(b) >= 2 && b[0] == recordV1:
		return b[1:], nil
	case len(b) < 2:
		return nil, fmt.Errorf("%w: %d bytes", ErrCorrupt, len(b))
	}
	return nil, fmt.Errorf("%w: unknown record version %d", ErrCorrupt, b[0])
}

// checkedRecord reports whether a record is in one of the checksummed
// forms, which are all schema 2 writes.
func checkedRecord(b []byte) bool {
	return len(b) > 0 && (b[0] == recordChecked || b[0] == recordCharChecked)
}

// Numbers in the meta bucket are 8 bytes big-endian followed by their
// CRC-32C; schema 1 wrote the 8 bytes alone.

func u64c(v uint64) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint64(b, v)
	binary.BigEndian.PutUint32(b[8:], crc32.Checksum(b[:8], castagnoli))
	return b
}

// metaU64 reads a meta number in either form.
func metaU64(b []byte) (uint64, error) {
	switch len(b) {
	case 8:
		return binary.BigEndian.Uint64(b), nil
	case 12:
		if crc32.Checksum(b[:8], castagnoli) != binary.BigEndian.Uint32(b[8:]) {
			return 0, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
		}
		return binary.BigEndian.Uint64(b), nil
	}
	return 0, fmt.Errorf("%w: %d bytes where a number was", ErrCorrupt, len(b))
}

// key is a name's key: lower case, so names are unique without regard to
// case.
func key(name string) []byte { return []byte(strings.ToLower(name)) }
