package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The bans bucket holds the bans admins made: by character name, or by
// address (one address or a CIDR block). The key is the kind and the
// target, "name:bob" or "addr:203.0.113.0/24"; the value the Ban. A ban
// that has expired stays until it is pruned (PruneBans) or lifted.

// Ban kinds.
const (
	BanName    = "name"
	BanAddress = "addr"
)

// Ban is one ban.
type Ban struct {
	Kind   string `json:"kind"`   // BanName or BanAddress
	Target string `json:"target"` // a lower-case name, or an address prefix (203.0.113.7/32)
	Reason string `json:"reason,omitempty"`
	By     string `json:"by"`
	// Created and Expires are unix seconds; Expires 0 is never.
	Created int64 `json:"created"`
	Expires int64 `json:"expires,omitempty"`
}

// Key is the ban's key in the bucket.
func (b Ban) Key() string { return b.Kind + ":" + b.Target }

// Expired reports whether the ban no longer holds at now.
func (b Ban) Expired(now time.Time) bool { return b.Expires != 0 && now.Unix() >= b.Expires }

// Bans reads every ban, expired ones included, in key order.
func (db *DB) Bans() ([]Ban, error) {
	var out []Ban
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBans).ForEach(func(k, v []byte) error {
			var b Ban
			if err := decode(v, &b); err != nil {
				return fmt.Errorf("ban %q: %w", k, err)
			}
			out = append(out, b)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: bans: %w", err)
	}
	return out, nil
}

// PutBan writes a ban, replacing one of the same kind and target.
func (db *DB) PutBan(b Ban) error {
	if (b.Kind != BanName && b.Kind != BanAddress) || b.Target == "" {
		return fmt.Errorf("store: put ban: %w: kind %q, target %q", ErrInvalidInput, b.Kind, b.Target)
	}
	v, err := encode(&b)
	if err != nil {
		return err
	}
	err = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketBans).Put([]byte(b.Key()), v) })
	if err != nil {
		return fmt.Errorf("store: put ban %s: %w", b.Key(), err)
	}
	return nil
}

// DeleteBan lifts the ban with key (Ban.Key); ErrNotFound if there is none.
func (db *DB) DeleteBan(key string) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBans)
		if b.Get([]byte(key)) == nil {
			return ErrNotFound
		}
		return b.Delete([]byte(key))
	})
	if err != nil {
		return fmt.Errorf("store: delete ban %s: %w", key, err)
	}
	return nil
}
