package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Batch is one zone's checkpoint: its dirty characters and the persistent
// objects of its rooms that changed, committed all or nothing.
type Batch struct {
	Zone string
	// Gen is the generation of the zone's lease the batch was written
	// under; 0 for a zone that holds no lease (an instance).
	Gen uint64
	// Fence, if set, also adopts or releases Gen (see lease.go).
	Fence FenceOp
	Chars []*Character
	Rooms []RoomObjects
}

// RoomObjects is the full list of persistent items lying in a room. An
// empty list clears the room.
type RoomObjects struct {
	Room  string
	Items []Item
}

// BatchError says why a batch was refused. Fenced says the zone's lease
// generation was released or superseded (nothing else is checked then);
// Stale lists the characters whose save came from an older owner epoch;
// Conflicts the item ids that would have been held twice.
type BatchError struct {
	Zone      string
	Gen       uint64
	Fenced    bool
	Stale     []string
	Conflicts []uint64
}

func (e *BatchError) Error() string {
	if e.Fenced {
		return fmt.Sprintf("store: batch from zone %s refused: lease generation %d was released or superseded", e.Zone, e.Gen)
	}
	return fmt.Sprintf("store: batch from zone %s refused: stale epochs %v, items held elsewhere %v", e.Zone, e.Stale, e.Conflicts)
}

// StaleNames lists the characters refused for a stale epoch. Zones read it
// through an interface, without importing this package.
func (e *BatchError) StaleNames() []string { return e.Stale }

// Unwrap lets errors.Is find ErrFenced, ErrStaleEpoch or ErrLedger.
func (e *BatchError) Unwrap() []error {
	var errs []error
	if e.Fenced {
		errs = append(errs, ErrFenced)
	}
	if len(e.Stale) > 0 {
		errs = append(errs, ErrStaleEpoch)
	}
	if len(e.Conflicts) > 0 {
		errs = append(errs, ErrLedger)
	}
	return errs
}

func charHolder(name string) string { return "c:" + string(key(name)) }
func roomHolder(ref string) string  { return "r:" + ref }

// Commit writes batches in one bbolt transaction, in order. Each batch is
// checked first and either applied whole or refused whole: a batch is
// refused if its zone's lease generation was released or superseded, if any
// character in it carries an owner epoch older than the stored one, or if
// any item in it is held, per the ledger, by a holder this batch does not
// also rewrite. results[i] is nil for a batch that committed and a
// *BatchError for one refused. err is set when the transaction itself
// failed (disk full, size cap), in which case nothing was written.
func (db *DB) Commit(batches []*Batch) (results []error, err error) {
	results = make([]error, len(batches))
	start := time.Now()
	now := start.UnixNano()
	var high uint64
	committed := 0
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		committed = 0
		var a arena // the transaction's records
		for i, b := range batches {
			if berr := db.check(tx, b); berr != nil {
				results[i] = berr
				continue
			}
			committed++
			h, err := db.apply(tx, &a, b, now)
			if err != nil {
				return err
			}
			high = max(high, h)
		}
		if high > db.itemHigh.Load() {
			if err := tx.Bucket(bucketMeta).Put(keyItemHigh, u64c(high)); err != nil {
				return err
			}
		}
		return nil
	})
	db.met.commitDone(start, committed, err)
	if err != nil {
		for i := range results {
			results[i] = err
		}
		return results, fmt.Errorf("store: commit: %w", err)
	}
	if high > db.itemHigh.Load() {
		db.itemHigh.Store(high)
	}
	// Refusals are counted once the transaction they were judged in has
	// committed: one that failed wrote nothing and refused nothing.
	for _, r := range results {
		if berr, ok := r.(*BatchError); ok {
			db.refused.Add(1)
			db.met.countRefused(berr)
		}
	}
	db.commits.Add(1)
	return results, nil
}

// check applies the epoch fence and the ledger rule to a batch without
// writing anything.
func (db *DB) check(tx *bolt.Tx, b *Batch) *BatchError {
	if fenced(tx, b) {
		return &BatchError{Zone: b.Zone, Gen: b.Gen, Fenced: true}
	}
	var be BatchError
	chars := tx.Bucket(bucketCharacters)
	ledger := tx.Bucket(bucketLedger)
	rewrites := map[string]bool{}
	for _, c := range b.Chars {
		rewrites[charHolder(c.Name)] = true
		if v := chars.Get(key(c.Name)); v != nil {
			if stored := storedEpoch(v); stored > c.Epoch {
				be.Stale = append(be.Stale, c.Name)
			}
		}
	}
	for _, r := range b.Rooms {
		rewrites[roomHolder(r.Room)] = true
	}
	seen := map[uint64]bool{}
	conflict := func(id uint64, holder string) {
		if seen[id] {
			be.Conflicts = append(be.Conflicts, id)
			return
		}
		seen[id] = true
		if cur := ledger.Get(u64(id)); cur != nil && string(cur) != holder && !rewrites[string(cur)] {
			be.Conflicts = append(be.Conflicts, id)
		}
	}
	for _, c := range b.Chars {
		h := charHolder(c.Name)
		for _, id := range c.ItemIDs() {
			conflict(id, h)
		}
	}
	for _, r := range b.Rooms {
		h := roomHolder(r.Room)
		for _, id := range itemIDs(r.Items) {
			conflict(id, h)
		}
	}
	if len(be.Stale) == 0 && len(be.Conflicts) == 0 {
		return nil
	}
	be.Zone = b.Zone
	return &be
}

// storedEpoch reads the epoch of a stored record from its header, without
// decoding it; a record it cannot read counts as epoch 0, so a good save may
// replace a damaged one.
func storedEpoch(v []byte) uint64 {
	if len(v) >= 10 && (v[0] == recordChar || v[0] == recordCharChecked) {
		return binary.BigEndian.Uint64(v[1:9])
	}
	var c struct {
		Epoch uint64 `json:"epoch"`
	}
	if decode(v, &c) != nil {
		return 0
	}
	return c.Epoch
}

// apply writes a checked batch. It returns the highest item id written.
func (db *DB) apply(tx *bolt.Tx, a *arena, b *Batch, now int64) (uint64, error) {
	if err := applyFence(tx, b); err != nil {
		return 0, err
	}
	var high uint64
	chars := tx.Bucket(bucketCharacters)
	places := tx.Bucket(bucketPlacements)
	objects := tx.Bucket(bucketObjects)
	// Release first, then claim: an item that moved between two holders of
	// this batch must end up with its new holder whatever the order.
	type claim struct {
		holder string
		ids    []uint64
	}
	var claims []claim
	// A holder whose items did not change since its last save keeps its
	// ledger entries as they are: most saves move no items.
	holdings := tx.Bucket(bucketHoldings)
	unchanged := func(holder string, ids []uint64) bool {
		return bytes.Equal(holdings.Get([]byte(holder)), packIDs(ids))
	}
	for _, c := range b.Chars {
		ids := c.ItemIDs()
		for _, id := range ids {
			high = max(high, id)
		}
		if unchanged(charHolder(c.Name), ids) {
			continue
		}
		if err := db.release(tx, charHolder(c.Name)); err != nil {
			return 0, err
		}
		claims = append(claims, claim{charHolder(c.Name), ids})
	}
	for _, r := range b.Rooms {
		ids := itemIDs(r.Items)
		for _, id := range ids {
			high = max(high, id)
		}
		if unchanged(roomHolder(r.Room), ids) {
			continue
		}
		if err := db.release(tx, roomHolder(r.Room)); err != nil {
			return 0, err
		}
		claims = append(claims, claim{roomHolder(r.Room), ids})
	}
	for _, cl := range claims {
		if err := db.claim(tx, cl.holder, cl.ids); err != nil {
			return 0, err
		}
	}
	for _, c := range b.Chars {
		c.Saved = now
		if err := chars.Put(key(c.Name), a.record(appendChar(a.start(), c))); err != nil {
			return 0, err
		}
		if err := putPlacement(places, a, c.Name, c.Place); err != nil {
			return 0, err
		}
	}
	for _, r := range b.Rooms {
		if len(r.Items) == 0 {
			if err := objects.Delete([]byte(r.Room)); err != nil {
				return 0, err
			}
			continue
		}
		v := a.start()
		n := len(v)
		v = append(v, recordChecked, 0, 0, 0, 0)
		v = appendItemsJSON(v, r.Items)
		if err := objects.Put([]byte(r.Room), a.record(sealChecked(v, n))); err != nil {
			return 0, err
		}
	}
	return high, nil
}

// arena holds the records one transaction encodes, in chunks shared by
// many records rather than an allocation each. bbolt keeps a value it was
// given until the transaction ends, so no chunk is ever reused: a new one,
// twice the size of the last up to arenaMax, starts when the current one is
// nearly full, and they are let go with the transaction. The first is
// small: most transactions hold a few records.
type arena struct {
	b    []byte
	from int // where the record being encoded starts
}

const (
	arenaFirst = 2 << 10
	arenaMax   = 64 << 10
)

// start returns the buffer to append the next record to.
func (a *arena) start() []byte {
	if cap(a.b)-len(a.b) < 1<<10 {
		n := min(max(2*cap(a.b), arenaFirst), arenaMax)
		a.b = make([]byte, 0, n)
	}
	a.from = len(a.b)
	return a.b
}

// record takes the buffer back with the record appended and returns the
// record alone.
func (a *arena) record(v []byte) []byte {
	a.b = v
	return v[a.from:len(v):len(v)]
}

// sealChecked fills in the checksum of the recordChecked record that
// starts at v[n].
func sealChecked(v []byte, n int) []byte {
	binary.BigEndian.PutUint32(v[n+1:n+5], crc32.Checksum(v[n+5:], castagnoli))
	return v
}

// putPlacement writes a placement under the COALESCE rule: an empty zone
// never clobbers a stored one. A character inside an instance is saved
// with an empty zone, so its record keeps naming the last real room it
// stood in, and the anchor says where it entered the instance.
func putPlacement(b *bolt.Bucket, a *arena, name string, p Placement) error {
	if p.Zone == "" {
		var old Placement
		if v := b.Get(key(name)); v != nil && decode(v, &old) == nil {
			p.Zone, p.Room = old.Zone, old.Room
		}
	}
	v := a.start()
	n := len(v)
	v = append(v, recordChecked, 0, 0, 0, 0)
	v = appendPlacementJSON(v, &p)
	return b.Put(key(name), a.record(sealChecked(v, n)))
}

// release drops a holder's ledger entries (those still pointing at it).
func (db *DB) release(tx *bolt.Tx, holder string) error {
	hb := tx.Bucket(bucketHoldings)
	lb := tx.Bucket(bucketLedger)
	packed := hb.Get([]byte(holder))
	for i := 0; i+8 <= len(packed); i += 8 {
		id := packed[i : i+8]
		if cur := lb.Get(id); cur != nil && string(cur) == holder {
			if err := lb.Delete(append([]byte(nil), id...)); err != nil {
				return err
			}
		}
	}
	return nil
}

// claim records that holder holds ids.
func (db *DB) claim(tx *bolt.Tx, holder string, ids []uint64) error {
	hb := tx.Bucket(bucketHoldings)
	lb := tx.Bucket(bucketLedger)
	if len(ids) == 0 {
		return hb.Delete([]byte(holder))
	}
	for _, id := range ids {
		if err := lb.Put(u64(id), []byte(holder)); err != nil {
			return err
		}
	}
	return hb.Put([]byte(holder), packIDs(ids))
}

func packIDs(ids []uint64) []byte {
	if len(ids) == 0 {
		return nil
	}
	packed := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		packed = binary.BigEndian.AppendUint64(packed, id)
	}
	return packed
}

func itemIDs(items []Item) []uint64 {
	c := Character{Items: items}
	return c.ItemIDs()
}

// Character reads a character and its placement. It returns ErrNotFound if
// there is none and ErrCorrupt (with the name) if the record cannot be read.
func (db *DB) Character(name string) (*Character, error) {
	var c Character
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketCharacters).Get(key(name))
		if v == nil {
			return ErrNotFound
		}
		if err := decodeChar(v, &c); err != nil {
			return err
		}
		if pv := tx.Bucket(bucketPlacements).Get(key(name)); pv != nil {
			if err := decode(pv, &c.Place); err != nil {
				return fmt.Errorf("placement: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: character %q: %w", name, err)
	}
	return &c, nil
}

// RoomObjects returns the persistent items lying in the rooms of a zone
// (rooms whose ref starts with zone+":").
func (db *DB) RoomObjects(zone string) (map[string][]Item, error) {
	out := map[string][]Item{}
	prefix := []byte(zone + ":")
	err := db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketObjects).Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
			var items []Item
			if err := decode(v, &items); err != nil {
				return fmt.Errorf("room %s: %w", k, err)
			}
			out[string(k)] = items
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: room objects of %s: %w", zone, err)
	}
	return out, nil
}

// Characters lists every stored character name.
func (db *DB) Characters() ([]string, error) {
	var out []string
	err := db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketCharacters).ForEach(func(k, v []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	return out, err
}
