package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Letters live in the comm bucket, in a nested bucket per recipient
// ("mail:bran"), keyed by that bucket's sequence, so a cursor reads a
// mailbox oldest first. A box is bounded by its caller, and a letter to a
// full box is refused (ErrFull): the letters in it are never dropped to
// make room. Letters are numbered from 1, oldest first, over the letters
// that decode: a damaged one is never served, and numbers the next.

// Letter is one letter in a mailbox.
type Letter struct {
	At      int64  `json:"at"` // unix seconds
	From    string `json:"from"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	Read    bool   `json:"read,omitempty"`
}

func mailKey(name string) []byte { return append([]byte("mail:"), key(name)...) }

// PostLetter puts a letter in the named character's mailbox, which holds
// at most box, and returns how many it holds now. ErrNotFound if there is
// no such account (a character made a moment ago has its account at once,
// its first save only later); ErrFull if the box holds box letters
// already.
func (db *DB) PostLetter(to string, l Letter, box int) (held int, err error) {
	if box < 1 {
		return 0, fmt.Errorf("store: post a letter: %w: box %d", ErrInvalidInput, box)
	}
	v, err := encode(&l)
	if err != nil {
		return 0, err
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketAccounts).Get(key(to)) == nil {
			return ErrNotFound
		}
		b, err := tx.Bucket(bucketComm).CreateBucketIfNotExists(mailKey(to))
		if err != nil {
			return err
		}
		// A box holds at most box entries, so counting is cheap.
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			held++
		}
		if held >= box {
			return ErrFull // refused: the letters in the box are kept
		}
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		var k [8]byte
		binary.BigEndian.PutUint64(k[:], seq)
		held++
		return b.Put(k[:], v)
	})
	if err != nil {
		return 0, fmt.Errorf("store: post a letter to %s: %w", to, err)
	}
	return held, nil
}

// MailboxRoom says whether the named character's mailbox, which holds at
// most box, has room for one more letter: how many it holds, and
// ErrNotFound if there is no such account, ErrFull if it is full.
func (db *DB) MailboxRoom(to string, box int) (held int, err error) {
	err = db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketAccounts).Get(key(to)) == nil {
			return ErrNotFound
		}
		if b := commBucket(tx, mailKey(to)); b != nil {
			c := b.Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				held++
			}
		}
		if held >= box {
			return ErrFull
		}
		return nil
	})
	if err != nil {
		return held, fmt.Errorf("store: mailbox of %s: %w", to, err)
	}
	return held, nil
}

// Letters returns the named character's letters, oldest first.
func (db *DB) Letters(name string) ([]Letter, error) {
	var out []Letter
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return eachLetter(commBucket(tx, mailKey(name)), func(_ []byte, l Letter) bool {
			out = append(out, l)
			return true
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: letters of %s: %w", name, err)
	}
	return out, nil
}

// UnreadLetters counts the named character's letters not yet read.
func (db *DB) UnreadLetters(name string) (int, error) {
	n := 0
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return eachLetter(commBucket(tx, mailKey(name)), func(_ []byte, l Letter) bool {
			if !l.Read {
				n++
			}
			return true
		})
	})
	if err != nil {
		return 0, fmt.Errorf("store: unread letters of %s: %w", name, err)
	}
	return n, nil
}

// ReadLetter returns the named character's letter number n (from 1) and
// marks it read. ErrNotFound if there is no such letter.
func (db *DB) ReadLetter(name string, n int) (Letter, error) {
	var got Letter
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := commBucket(tx, mailKey(name))
		k, l, err := nthLetter(b, n)
		if err != nil {
			return err
		}
		got = l
		if l.Read {
			return nil
		}
		l.Read = true
		v, err := encode(&l)
		if err != nil {
			return err
		}
		return b.Put(k, v)
	})
	if err != nil {
		return Letter{}, fmt.Errorf("store: read letter %d of %s: %w", n, name, err)
	}
	return got, nil
}

// DeleteLetter takes the named character's letter number n (from 1) out
// of their mailbox and returns it. ErrNotFound if there is no such letter.
func (db *DB) DeleteLetter(name string, n int) (Letter, error) {
	var got Letter
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := commBucket(tx, mailKey(name))
		k, l, err := nthLetter(b, n)
		if err != nil {
			return err
		}
		got = l
		return b.Delete(k)
	})
	if err != nil {
		return Letter{}, fmt.Errorf("store: delete letter %d of %s: %w", n, name, err)
	}
	return got, nil
}

// nthLetter finds letter number n (from 1) of mailbox b, and its key.
func nthLetter(b *bolt.Bucket, n int) (k []byte, l Letter, err error) {
	if n < 1 {
		return nil, Letter{}, ErrNotFound
	}
	i := 0
	err = eachLetter(b, func(key []byte, got Letter) bool {
		if i++; i == n {
			k, l = append([]byte(nil), key...), got
			return false
		}
		return true
	})
	if err == nil && k == nil {
		err = ErrNotFound
	}
	return k, l, err
}

// eachLetter calls fn with each letter of mailbox b that decodes, oldest
// first, until fn returns false. A nil b is an empty box.
func eachLetter(b *bolt.Bucket, fn func(k []byte, l Letter) bool) error {
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var l Letter
		if v == nil || decode(v, &l) != nil {
			continue
		}
		if !fn(k, l) {
			return nil
		}
	}
	return nil
}
