package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The comm bucket holds what players said that must outlive a restart:
// each channel's last lines, the tells kept for players who were not in
// the world, and mail. It holds one nested bucket per channel or
// recipient ("channel:gossip", "tells:bran", "mail:bran"); in each, the
// keys are the bucket's own sequence (8 bytes, big-endian), so a cursor
// reads them oldest first, and the values are checksummed records. Every
// nested bucket is bounded by its caller: an append drops the oldest
// entries past the bound in the same transaction.

var bucketComm = []byte("comm")

// ChannelLine is one line said on a channel.
type ChannelLine struct {
	At   int64  `json:"at"` // unix seconds
	From string `json:"from"`
	Text string `json:"text"` // as it was shown, player text already escaped
}

// ChannelAppend is a line for a channel's history and the channel's bound.
type ChannelAppend struct {
	Channel string
	Keep    int
	Line    ChannelLine
}

// Tell is a tell kept for a player who was not in the world.
type Tell struct {
	At   int64  `json:"at"`
	From string `json:"from"`
	Text string `json:"text"`
}

func channelKey(name string) []byte { return []byte("channel:" + name) }
func tellsKey(name string) []byte   { return append([]byte("tells:"), key(name)...) }

// AppendChannelLines adds lines to their channels' histories in one
// transaction, keeping at most each one's Keep newest lines.
func (db *DB) AppendChannelLines(lines []ChannelAppend) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		for _, l := range lines {
			v, err := encode(&l.Line)
			if err != nil {
				return err
			}
			if _, err := appendBounded(tx, channelKey(l.Channel), v, l.Keep); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append channel lines: %w", err)
	}
	return nil
}

// ChannelHistory returns the newest n lines of a channel, oldest first.
// A damaged line is left out, never served.
func (db *DB) ChannelHistory(channel string, n int) ([]ChannelLine, error) {
	var out []ChannelLine
	err := db.bolt.View(func(tx *bolt.Tx) error {
		b := commBucket(tx, channelKey(channel))
		if b == nil || n <= 0 {
			return nil
		}
		c := b.Cursor()
		var vals [][]byte
		for k, v := c.Last(); k != nil && len(vals) < n; k, v = c.Prev() {
			vals = append(vals, v)
		}
		for i := len(vals) - 1; i >= 0; i-- {
			var l ChannelLine
			if decode(vals[i], &l) == nil {
				out = append(out, l)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: channel %s history: %w", channel, err)
	}
	return out, nil
}

// KeepTell keeps a tell for the named character, who must exist, holding
// at most keep for them: it returns how many are waiting and how many of
// the oldest were dropped to make room. ErrNotFound if there is no such
// character.
func (db *DB) KeepTell(to string, t Tell, keep int) (waiting, dropped int, err error) {
	if keep < 1 {
		return 0, 0, fmt.Errorf("store: keep tell: %w: keep %d", ErrInvalidInput, keep)
	}
	v, err := encode(&t)
	if err != nil {
		return 0, 0, err
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketCharacters).Get(key(to)) == nil {
			return ErrNotFound
		}
		var err error
		waiting, dropped, err = appendCounted(tx, tellsKey(to), v, keep)
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: keep a tell for %s: %w", to, err)
	}
	return waiting, dropped, nil
}

// TakeTells returns the tells kept for the named character, oldest first,
// and how many older ones were dropped to make room since the last take,
// and forgets them all. The bucket's sequence starts again at each take,
// so the first key left says how many went before it.
func (db *DB) TakeTells(name string) (tells []Tell, dropped int, err error) {
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		comm := tx.Bucket(bucketComm)
		b := comm.Bucket(tellsKey(name))
		if b == nil {
			return nil
		}
		if k, _ := b.Cursor().First(); len(k) == 8 {
			dropped = int(binary.BigEndian.Uint64(k) - 1)
		}
		err := b.ForEach(func(_, v []byte) error {
			var t Tell
			if decode(v, &t) == nil {
				tells = append(tells, t)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return comm.DeleteBucket(tellsKey(name))
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: take tells of %s: %w", name, err)
	}
	return tells, dropped, nil
}

// commBucket is the nested bucket name of the comm bucket, or nil.
func commBucket(tx *bolt.Tx, name []byte) *bolt.Bucket {
	comm := tx.Bucket(bucketComm)
	if comm == nil {
		return nil
	}
	return comm.Bucket(name)
}

// appendBounded adds v to nested bucket name under the next sequence and
// drops the oldest entries past keep (keep 0 keeps nothing), reporting
// how many it dropped.
func appendBounded(tx *bolt.Tx, name, v []byte, keep int) (int, error) {
	_, dropped, err := appendCounted(tx, name, v, keep)
	return dropped, err
}

func appendCounted(tx *bolt.Tx, name, v []byte, keep int) (n, dropped int, err error) {
	if keep <= 0 {
		return 0, 0, nil
	}
	b, err := tx.Bucket(bucketComm).CreateBucketIfNotExists(name)
	if err != nil {
		return 0, 0, err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return 0, 0, err
	}
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	if err := b.Put(k[:], v); err != nil {
		return 0, 0, err
	}
	// Stats does not count what this transaction wrote; a bucket holds
	// at most keep+1 entries here, so counting is cheap.
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	for k, _ := c.First(); k != nil && n > keep; k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return 0, 0, err
		}
		n--
		dropped++
	}
	return n, dropped, nil
}

// Comm is what a player chose about talk, kept with the character.
type Comm struct {
	Channels map[string]bool   `json:"channels,omitempty"` // channel -> on, where the player chose
	Ignore   []string          `json:"ignore,omitempty"`
	Aliases  map[string]string `json:"aliases,omitempty"`
}
