package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The leases bucket is the store's half of the zone lease: the fencing
// token check (Kleppmann's "fencing token", the same rule as the owner
// epoch on characters). The directory hands each hosting of a zone a lease
// whose generation only grows; every batch the zone's saves carry names
// that generation, and the store keeps, per zone, the highest generation
// it has seen and whether it was released. A batch from an older
// generation, or from a released one, is refused whole: the zone that
// wrote it no longer owns what it writes.
//
// A record is never deleted: a zone's generation is immortal, so a zombie
// writer can never find its old generation current again.

// FenceOp is what a batch does to its zone's lease record besides saving.
type FenceOp uint8

const (
	// FenceNone is an ordinary save: checked against the lease record,
	// and it moves the record up to its generation if that is newer.
	FenceNone FenceOp = iota
	// FenceAdopt records Gen as the zone's current generation before the
	// zone writes anything; it is refused if a newer one is recorded.
	FenceAdopt
	// FenceRelease marks Gen released: the zone has stopped, or its lease
	// expired, and nothing written under Gen may commit from now on. It
	// is never refused.
	FenceRelease
)

// Lease is a zone's record in the leases bucket (a checksummed record,
// as every record is).
type Lease struct {
	Gen      uint64 `json:"gen"`
	Released bool   `json:"released,omitempty"`
}

func readLease(v []byte) (Lease, bool) {
	var l Lease
	return l, decode(v, &l) == nil
}

// ZoneLease reads a zone's lease record; ErrNotFound if the zone never
// wrote under a lease.
func (db *DB) ZoneLease(zone string) (Lease, error) {
	var l Lease
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketLeases).Get([]byte(zone))
		if v == nil {
			return ErrNotFound
		}
		var ok bool
		if l, ok = readLease(v); !ok {
			return fmt.Errorf("store: lease record of zone %q: %w", zone, ErrCorrupt)
		}
		return nil
	})
	return l, err
}

// fenced reports whether the lease record refuses batch b, without
// writing anything.
func fenced(tx *bolt.Tx, b *Batch) bool {
	v := tx.Bucket(bucketLeases).Get([]byte(b.Zone))
	if v == nil {
		return false
	}
	cur, ok := readLease(v)
	switch {
	case b.Fence == FenceRelease:
		return false
	case !ok:
		return true // a damaged record fences everyone until an admin looks
	case b.Gen == 0:
		return true // an unleased writer for a zone that has had leases
	case b.Fence == FenceAdopt:
		return cur.Gen > b.Gen
	}
	return cur.Gen > b.Gen || (cur.Gen == b.Gen && cur.Released)
}

// applyFence updates the lease record for a checked batch.
func applyFence(tx *bolt.Tx, b *Batch) error {
	if b.Gen == 0 {
		return nil
	}
	leases := tx.Bucket(bucketLeases)
	cur, _ := readLease(leases.Get([]byte(b.Zone)))
	next := cur
	switch b.Fence {
	case FenceAdopt:
		next = Lease{Gen: b.Gen}
	case FenceRelease:
		if b.Gen < cur.Gen {
			return nil // already superseded
		}
		next = Lease{Gen: b.Gen, Released: true}
	default:
		if b.Gen > cur.Gen {
			next = Lease{Gen: b.Gen}
		}
	}
	if next == cur && leases.Get([]byte(b.Zone)) != nil {
		return nil
	}
	v, err := encode(next)
	if err != nil {
		return err
	}
	return leases.Put([]byte(b.Zone), v)
}
