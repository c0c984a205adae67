package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Refusal says why a database file is not served: what is wrong and where,
// and that it was only read. It wraps ErrEmpty, ErrCorrupt or
// ErrNewerSchema.
type Refusal struct {
	Path string
	What string // what is wrong, for ErrCorrupt and ErrNewerSchema
	Kind error
}

func (r *Refusal) Error() string {
	const untouched = "It was only read; nothing in it was changed."
	switch r.Kind {
	case ErrEmpty:
		return fmt.Sprintf("store: %s is empty (0 bytes): there is no world in it to serve. %s Put a backup in its place, or delete it to start a new, empty world.", r.Path, untouched)
	case ErrNewerSchema:
		return fmt.Sprintf("store: %s %s. %s Run the newer zonemud, or put a backup in its place.", r.Path, r.What, untouched)
	}
	return fmt.Sprintf("store: %s is damaged: %s. %s Put a backup in its place, or move it aside to start a new, empty world.", r.Path, r.What, untouched)
}

func (r *Refusal) Unwrap() error { return r.Kind }

// damage is what is wrong with a file, found before its path is known to
// the code that found it; check turns it into a Refusal.
type damage struct{ what string }

func (d *damage) Error() string { return d.what }

func damagef(format string, args ...any) error {
	return &damage{fmt.Sprintf(format, args...)}
}

// guard runs fn with memory faults turned into panics, and any panic into
// a refusal of the file. bbolt reads the file through a memory map: a page
// that points outside the file faults (SIGBUS) instead of returning an
// error, and without this the runtime would end the process. The setting
// belongs to the calling goroutine, which must be the one reading.
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		what := fmt.Sprintf("reading it failed (%v)", v)
		if f, ok := v.(interface{ Addr() uintptr }); ok {
			what = fmt.Sprintf("reading it through bbolt's memory map faulted at address %#x, so a page lies past the end of the file", f.Addr())
		}
		err = &Refusal{Path: path, Kind: ErrCorrupt, What: what}
	}()
	return fn()
}

// report is what a check learnt beyond pass or fail.
type report struct {
	notes []string // worth a warning in the log
	pages uint64   // pages in the tree, when walked
}

// check opens the file at path read-only and checks it; deep adds the
// whole-file checks. It returns the read-only handle, which the caller
// closes. Every check reads; none writes.
//
// Always: the file is a regular file and not empty; both meta pages are
// read, the one bbolt uses is valid, the file is as long as that page
// says, and the freelist lies inside it; the schema version is one this
// binary knows, and every bucket and meta value is there.
//
// Deep: every page of the tree is walked (pages.go); bbolt's own
// consistency check (reachable pages, freelist, key order); every record
// reads and passes its checksum; the census of the ledger against every
// holder (census.go).
func check(path string, cfg Config, deep bool) (bdb *bolt.DB, rep report, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, rep, fmt.Errorf("store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, rep, fmt.Errorf("store: %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() == 0 {
		return nil, rep, &Refusal{Path: path, Kind: ErrEmpty}
	}
	err = guard(path, func() error {
		var openErr error
		bdb, openErr = bolt.Open(path, 0o600, &bolt.Options{
			ReadOnly: true,
			Timeout:  time.Duration(cfg.OpenTimeoutSecs) * time.Second,
			// The freelist is read by the check below, once it is known
			// to lie inside the file.
			PreLoadFreelist: false,
		})
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if openErr != nil {
			return explainOpen(f, openErr)
		}
		return inspect(bdb, f, deep, &rep)
	})
	if err != nil {
		if bdb != nil {
			bdb.Close()
			bdb = nil
		}
		var d *damage
		switch {
		case errors.As(err, &d):
			err = &Refusal{Path: path, Kind: ErrCorrupt, What: d.what}
		case errors.Is(err, ErrNewerSchema):
			err = &Refusal{Path: path, Kind: ErrNewerSchema, What: err.Error()}
		case errors.Is(err, ErrLocked):
			err = fmt.Errorf("store: open %s: %w (is another zonemud running on this data_dir?)", path, ErrLocked)
		case errors.As(err, new(*Refusal)):
		default:
			err = fmt.Errorf("store: check %s: %w", path, err)
		}
		return nil, rep, err
	}
	return bdb, rep, nil
}

// explainOpen says why bbolt could not open the file: the lock, the
// system, or what is wrong with it.
func explainOpen(f *os.File, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return ErrLocked
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	fi, serr := f.Stat()
	if serr != nil {
		return serr
	}
	if _, lerr := readLayout(f, fi.Size()); lerr != nil {
		return lerr
	}
	return damagef("bbolt cannot open it (%v)", err)
}

// inspect runs the checks on a file bbolt has open read-only, and so
// locked against writers.
func inspect(bdb *bolt.DB, f *os.File, deep bool, rep *report) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	l, err := readLayout(f, fi.Size())
	if err != nil {
		return err
	}
	if l.note != "" {
		rep.notes = append(rep.notes, l.note)
	}
	if rep.pages, err = walkPages(f, l, !deep); err != nil {
		return err
	}
	return bdb.View(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		if !deep {
			return nil
		}
		var problems []string
		for err := range tx.Check() {
			// Drain the channel whole: the checker goroutine holds this
			// transaction until it has sent everything.
			if len(problems) < auditShown {
				problems = append(problems, err.Error())
			}
		}
		if len(problems) > 0 {
			return damagef("bbolt's consistency check found: %s", strings.Join(problems, "; "))
		}
		a, err := runAudit(tx, nil)
		if err != nil {
			return err
		}
		if a.count > 0 {
			return damagef("the check of its records and item ledger found %s", a.summary())
		}
		return nil
	})
}

// metaKeys are the keys the meta bucket may hold, and whether each must.
var metaKeys = map[string]bool{
	string(keySchema):   true,
	string(keyBoots):    true,
	string(keyCreated):  true,
	string(keyItemHigh): false, // written with the first item
	string(keyAccounts): true,  // from schema 2
}

// checkSchema checks the schema version, that every bucket is there and no
// other, and every value in the meta bucket.
func checkSchema(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		n := 0
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { n++; return nil })
		if n == 0 {
			return damagef("it holds no buckets at all, so it is not a zonemud database")
		}
		return damagef("it has no meta bucket, so its schema version is lost")
	}
	ver, err := metaU64(meta.Get(keySchema))
	switch {
	case meta.Get(keySchema) == nil:
		return damagef("its meta bucket has no schema version")
	case err != nil:
		return damagef("its schema version is unreadable (%v)", err)
	case ver > SchemaVersion:
		return fmt.Errorf("has schema version %d, and this binary knows up to %d: %w", ver, SchemaVersion, ErrNewerSchema)
	case ver < 1:
		return damagef("its schema version is %d, which no zonemud writes", ver)
	}
	for _, b := range allBuckets {
		if tx.Bucket(b) == nil && !(ver < 3 && string(b) == string(bucketLeases)) && !(ver < 5 && string(b) == string(bucketBans)) && !(ver < 6 && string(b) == string(bucketComm)) {
			return damagef("its %s bucket is missing", b)
		}
	}
	err = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if !slices.ContainsFunc(allBuckets, func(b []byte) bool { return string(b) == string(name) }) {
			return damagef("it has a bucket %q that zonemud does not write", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = meta.ForEach(func(k, v []byte) error {
		if _, ok := metaKeys[string(k)]; !ok {
			return damagef("its meta bucket has a key %q that zonemud does not write", k)
		}
		if v == nil {
			return damagef("its meta value %q is a bucket", k)
		}
		if ver >= 2 && len(v) != 12 {
			return damagef("its meta value %q is %d bytes, not a checksummed number", k, len(v))
		}
		if _, err := metaU64(v); err != nil {
			return damagef("its meta value %q is damaged (%v)", k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, must := range metaKeys {
		if must && meta.Get([]byte(k)) == nil && (ver >= 2 || k != string(keyAccounts)) {
			return damagef("its meta value %q is missing", k)
		}
	}
	return nil
}
