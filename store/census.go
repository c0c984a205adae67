package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Census maps every item id in the ledger to its holder, after checking
// every record and the ledger against them (see audit). The error names
// every problem found, up to a few.
func (db *DB) Census() (map[uint64]string, error) {
	out := map[uint64]string{}
	var a *audit
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		a, err = runAudit(tx, func(id uint64, holder []byte) { out[id] = string(holder) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: census: %w", err)
	}
	if err := a.err(); err != nil {
		return out, fmt.Errorf("store: census: %w", err)
	}
	return out, nil
}

// audit collects what is wrong with the records of a database: a record
// that does not read or fails its checksum, a key that is not its record's
// name, a character without a placement or the reverse, an account count
// that does not match, and the census of items: every item in a character
// or room record is in the ledger under that holder, every ledger entry is
// held by the record it names, no id is held twice, each holder's entry in
// the holdings index lists exactly its items, no id is above the item
// high-water mark, and no owner epoch is from a boot the boot counter has
// not reached.
type audit struct {
	problems []string // the first few
	count    int      // all of them
}

const auditShown = 8

func (a *audit) add(format string, args ...any) {
	a.count++
	if len(a.problems) < auditShown {
		a.problems = append(a.problems, fmt.Sprintf(format, args...))
	}
}

func (a *audit) err() error {
	if a.count == 0 {
		return nil
	}
	errs := make([]error, 0, len(a.problems)+1)
	for _, p := range a.problems {
		errs = append(errs, errors.New(p))
	}
	if a.count > len(a.problems) {
		errs = append(errs, fmt.Errorf("and %d more", a.count-len(a.problems)))
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(errs...))
}

// summary is the problems on one line, for a refusal message.
func (a *audit) summary() string {
	s := fmt.Sprintf("%d problem", a.count)
	if a.count != 1 {
		s += "s"
	}
	s += ": " + strings.Join(a.problems, "; ")
	if a.count > len(a.problems) {
		s += fmt.Sprintf("; and %d more", a.count-len(a.problems))
	}
	return s
}

// censusItem is the part of an Item the census reads. A record's checksum
// proves the rest is as it was written; decoding only this is most of
// the cost of the whole check at start-up (docs/PERFORMANCE.md).
type censusItem struct {
	ID       uint64       `json:"id"`
	Contents []censusItem `json:"contents"`
}

// censusIDs lists the ids of items and everything inside them, in the
// order Character.ItemIDs does.
func censusIDs(items []censusItem) []uint64 {
	var out []uint64
	var walk func([]censusItem)
	walk = func(items []censusItem) {
		for i := range items {
			out = append(out, items[i].ID)
			walk(items[i].Contents)
		}
	}
	walk(items)
	return out
}

// decoded is one record of a bucket, decoded by eachRecord.
type decoded[T any] struct {
	key    []byte
	rec    T
	err    error
	bucket bool // the key holds a bucket, not a record
}

// recordChunk is how many records eachRecord decodes at once.
var recordChunk = 2048

// eachRecord decodes every record of b on every core and hands them to use
// in key order, on the calling goroutine. Decoding JSON is most of the
// cost of the whole check; this spreads it. Values are copied out of the
// memory map first, so the decoding goroutines never read the file: a
// fault can happen only on the calling goroutine, under guard.
//
// newDec makes one decoder per worker goroutine, so a decoder may reuse
// its own scratch space from record to record.
func eachRecord[T any](b *bolt.Bucket, newDec func() func(v []byte) (T, error), use func(d *decoded[T])) {
	chunk := recordChunk
	workers := runtime.GOMAXPROCS(0)
	batch := make([]decoded[T], 0, chunk)
	raw := make([][]byte, 0, chunk)
	var arena []byte // the chunk's keys and values, reused chunk after chunk
	flush := func() {
		var wg sync.WaitGroup
		per := (len(batch) + workers - 1) / workers
		for lo := 0; lo < len(batch); lo += per {
			hi := min(lo+per, len(batch))
			wg.Go(func() {
				dec := newDec()
				for i := lo; i < hi; i++ {
					if !batch[i].bucket {
						batch[i].rec, batch[i].err = dec(raw[i])
					}
				}
			})
		}
		wg.Wait()
		for i := range batch {
			use(&batch[i])
		}
		batch, raw, arena = batch[:0], raw[:0], arena[:0]
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(arena)+len(k)+len(v) > cap(arena) && len(batch) > 0 {
			flush() // keep the slices into arena valid: it must not grow
		}
		if len(k)+len(v) > cap(arena) {
			arena = make([]byte, 0, max(len(k)+len(v), 4<<20))
		}
		n := len(arena)
		arena = append(append(arena, k...), v...)
		batch = append(batch, decoded[T]{key: arena[n : n+len(k) : n+len(k)], bucket: v == nil})
		raw = append(raw, arena[n+len(k):len(arena):len(arena)])
		if len(batch) == chunk {
			flush()
		}
	}
	flush()
}

func unmarshal(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// strictForm refuses, when strict, a record that is not in a checksummed
// form. An empty value is damage in either case; it is refused here, before
// anything reads its version byte.
func strictForm(strict bool, v []byte) error {
	switch {
	case len(v) == 0:
		return fmt.Errorf("%w: an empty record", ErrCorrupt)
	case strict && !checkedRecord(v):
		return fmt.Errorf("not in a checksummed form (version %d)", v[0])
	}
	return nil
}

// recordAs returns decoders of records checked by unpack into a T.
func recordAs[T any](strict bool) func() func(v []byte) (T, error) {
	return func() func(v []byte) (T, error) {
		return func(v []byte) (T, error) {
			var r T
			if err := strictForm(strict, v); err != nil {
				return r, err
			}
			body, err := unpack(v)
			if err == nil {
				err = unmarshal(body, &r)
			}
			return r, err
		}
	}
}

// censusChar is the part of a Character the census reads.
type censusChar struct {
	Name  string       `json:"name"`
	Epoch uint64       `json:"epoch"`
	Items []censusItem `json:"items"`
}

// heldItem is one item id in a record, and which holder's record.
type heldItem struct {
	id     uint64
	holder int32 // index into the audit's holder names
}

// charIDs is what the census keeps of a character.
type charIDs struct {
	name  string
	epoch uint64
	ids   []uint64
}

// runAudit reads every record in tx once. each, if not nil, sees every
// ledger entry in id order. The error is for a failed read; what is wrong
// with the data is in the audit.
func runAudit(tx *bolt.Tx, each func(id uint64, holder []byte)) (*audit, error) {
	r := newAuditRun(tx)
	r.accounts()
	r.characters()
	r.placementsOwned()
	r.rooms()
	r.holdingsCounted()
	r.ledger(each)
	r.counters()
	r.leases()
	r.bans()
	return r.a, nil
}

// auditRun is one audit as it reads: what it found so far, and every item
// id the records hold, for the ledger to be read against.
type auditRun struct {
	a          *audit
	tx         *bolt.Tx
	meta       *bolt.Bucket
	holdings   *bolt.Bucket
	placements *bolt.Bucket
	strict     bool // every record checksummed (schema 2 on)

	holders  []string   // every record that holds items
	items    []heldItem // every item id held, with its holder
	withItem int        // holders that hold anything
	maxEpoch uint64     // the highest character epoch
}

func newAuditRun(tx *bolt.Tx) *auditRun {
	meta := tx.Bucket(bucketMeta)
	schema, _ := metaU64(meta.Get(keySchema))
	return &auditRun{
		a: &audit{}, tx: tx, meta: meta, strict: schema >= 2,
		holdings: tx.Bucket(bucketHoldings), placements: tx.Bucket(bucketPlacements),
	}
}

// accounts checks every account record, and the count of them.
func (r *auditRun) accounts() {
	var accounts uint64
	type name struct {
		Name string `json:"name"`
	}
	eachRecord(r.tx.Bucket(bucketAccounts), recordAs[name](r.strict), func(d *decoded[name]) {
		accounts++
		switch {
		case d.bucket:
			r.a.add("account %q is a bucket, not a record", d.key)
		case d.err != nil:
			r.a.add("account %q: %v", d.key, d.err)
		case !bytes.Equal(key(d.rec.Name), d.key):
			r.a.add("account %q holds the record of %q", d.key, d.rec.Name)
		}
	})
	if v := r.meta.Get(keyAccounts); v != nil || r.strict {
		if n, err := metaU64(v); err != nil {
			r.a.add("meta: account count: %v", err)
		} else if n != accounts {
			r.a.add("there are %d accounts, but %d were created", accounts, n)
		}
	}
}

// hold notes the items one record holds, and checks the holdings index
// lists them.
func (r *auditRun) hold(holder string, ids []uint64) {
	if len(ids) == 0 {
		if v := r.holdings.Get([]byte(holder)); v != nil {
			r.a.add("the holdings index lists %d items for %s, which holds none", len(v)/8, holder)
		}
		return
	}
	r.withItem++
	h := int32(len(r.holders))
	r.holders = append(r.holders, holder)
	for _, id := range ids {
		r.items = append(r.items, heldItem{id, h})
	}
	if v := r.holdings.Get([]byte(holder)); !bytes.Equal(v, packIDs(ids)) {
		r.a.add("the holdings index for %s does not list its %d items", holder, len(ids))
	}
}

// characters checks every character record and notes what it holds.
func (r *auditRun) characters() {
	eachRecord(r.tx.Bucket(bucketCharacters), charDecoder(r.strict), func(d *decoded[charIDs]) {
		switch {
		case d.bucket:
			r.a.add("character %q is a bucket, not a record", d.key)
		case d.err != nil:
			r.a.add("character %q: %v", d.key, d.err)
		case !bytes.Equal(key(d.rec.name), d.key):
			r.a.add("character %q holds the record of %q", d.key, d.rec.name)
		default:
			if r.placements.Get(d.key) == nil {
				r.a.add("character %q has no placement", d.key)
			}
			r.maxEpoch = max(r.maxEpoch, d.rec.epoch)
			r.hold(charHolder(d.rec.name), d.rec.ids)
		}
	})
}

// placementsOwned checks every placement belongs to a character.
func (r *auditRun) placementsOwned() {
	chars := r.tx.Bucket(bucketCharacters)
	eachRecord(r.placements, recordAs[struct{}](r.strict), func(d *decoded[struct{}]) {
		switch {
		case d.bucket:
			r.a.add("placement %q is a bucket, not a record", d.key)
		case d.err != nil:
			r.a.add("placement %q: %v", d.key, d.err)
		case chars.Get(d.key) == nil:
			r.a.add("placement %q has no character", d.key)
		}
	})
}

// rooms checks every room's objects and notes what they hold.
func (r *auditRun) rooms() {
	eachRecord(r.tx.Bucket(bucketObjects), recordAs[[]censusItem](r.strict), func(d *decoded[[]censusItem]) {
		switch {
		case d.bucket:
			r.a.add("room %q is a bucket, not a record", d.key)
		case d.err != nil:
			r.a.add("room %q: %v", d.key, d.err)
		default:
			if len(d.rec) == 0 {
				r.a.add("room %q has an empty list of objects", d.key)
			}
			r.hold(roomHolder(string(d.key)), censusIDs(d.rec))
		}
	})
}

// holdingsCounted checks the holdings index has no holder beyond those
// the records name.
func (r *auditRun) holdingsCounted() {
	if n := r.holdings.Stats().KeyN; n != r.withItem {
		r.a.add("the holdings index has %d holders, but %d records hold items", n, r.withItem)
	}
}

// ledger reads the ledger and the records, both in id order, side by
// side: every item held is in the ledger under its holder, once.
func (r *auditRun) ledger(each func(id uint64, holder []byte)) {
	slices.SortFunc(r.items, func(x, y heldItem) int { return cmp.Compare(x.id, y.id) })
	c := r.tx.Bucket(bucketLedger).Cursor()
	k, v := c.First()
	i := 0
	for k != nil || i < len(r.items) {
		if k != nil && len(k) != 8 {
			r.a.add("the ledger has a key %q that is not an item id", k)
			k, v = c.Next()
			continue
		}
		switch {
		case k == nil || (i < len(r.items) && r.items[i].id < getU64(k)):
			r.a.add("item %d is held by %s but is not in the ledger", r.items[i].id, r.holders[r.items[i].holder])
			i++
		case i >= len(r.items) || getU64(k) < r.items[i].id:
			r.a.add("the ledger names %q for item %d, which no record holds", v, getU64(k))
			if each != nil {
				each(getU64(k), v)
			}
			k, v = c.Next()
		default:
			id, first := r.items[i].id, r.holders[r.items[i].holder]
			if string(v) != first {
				r.a.add("item %d is held by %s but the ledger says %q", id, first, v)
			}
			for i++; i < len(r.items) && r.items[i].id == id; i++ {
				r.a.add("item %d is held twice, by %s and %s", id, first, r.holders[r.items[i].holder])
			}
			if each != nil {
				each(id, v)
			}
			k, v = c.Next()
		}
	}
}

// counters checks the item high-water mark and the boot counter are past
// every item and every save.
func (r *auditRun) counters() {
	if len(r.items) > 0 {
		top := r.items[len(r.items)-1].id
		high, err := metaU64(r.meta.Get(keyItemHigh))
		switch {
		case err != nil:
			r.a.add("meta: item high-water mark: %v", err)
		case top > high:
			r.a.add("item %d exists, but the item high-water mark is %d", top, high)
		}
	}
	if boots, err := metaU64(r.meta.Get(keyBoots)); err == nil && r.maxEpoch>>32 > boots {
		r.a.add("a character was saved in boot %d, but the boot counter is %d", r.maxEpoch>>32, boots)
	}
}

// leases checks every zone lease.
func (r *auditRun) leases() {
	if leases := r.tx.Bucket(bucketLeases); leases != nil {
		eachRecord(leases, recordAs[Lease](r.strict), func(d *decoded[Lease]) {
			switch {
			case d.bucket:
				r.a.add("the lease of zone %q is a bucket, not a record", d.key)
			case d.err != nil:
				r.a.add("the lease of zone %q: %v", d.key, d.err)
			case d.rec.Gen == 0:
				r.a.add("the lease of zone %q has no generation", d.key)
			}
		})
	}
}

// bans checks every ban.
func (r *auditRun) bans() {
	if bans := r.tx.Bucket(bucketBans); bans != nil {
		eachRecord(bans, recordAs[Ban](r.strict), func(d *decoded[Ban]) {
			switch {
			case d.bucket:
				r.a.add("ban %q is a bucket, not a record", d.key)
			case d.err != nil:
				r.a.add("ban %q: %v", d.key, d.err)
			case d.rec.Key() != string(d.key):
				r.a.add("ban %q holds the record of %q", d.key, d.rec.Key())
			}
		})
	}
}

// charDecoder returns, for each census worker, a decoder of character
// records that keeps only the name, the epoch and the item ids. It decodes
// into one censusChar over and over (json reuses the slices): a large world
// allocates a gigabyte less per check. strict refuses the unchecked forms.
func charDecoder(strict bool) func() func(v []byte) (charIDs, error) {
	return func() func(v []byte) (charIDs, error) {
		var c censusChar
		return func(v []byte) (charIDs, error) {
			if err := strictForm(strict, v); err != nil {
				return charIDs{}, err
			}
			epoch, body, err := unpackChar(v)
			if err != nil {
				return charIDs{}, err
			}
			// json decodes into the elements already there without
			// zeroing them: clear them, or an item without contents
			// would keep the last record's.
			clear(c.Items[:cap(c.Items)])
			c.Name, c.Epoch, c.Items = "", 0, c.Items[:0]
			if err := unmarshal(body, &c); err != nil {
				return charIDs{}, err
			}
			if epoch != nil && *epoch != c.Epoch {
				return charIDs{}, fmt.Errorf("%w: epoch %d in the header, %d in the record", ErrCorrupt, *epoch, c.Epoch)
			}
			return charIDs{c.Name, c.Epoch, censusIDs(c.Items)}, nil
		}
	}
}
