package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout this binary writes. A database with a larger
// version is refused; a smaller one is migrated at open. Schema 2 adds a
// checksum to every record and meta number, and the count of accounts;
// schema 3 the leases bucket (lease.go); schema 4 the roles an account
// holds (Roles), which nothing needs migrated but which a binary of schema
// 3 would drop the next time it rewrote the account, so it must refuse the
// file; schema 5 the bans bucket (ban.go); schema 6 the comm bucket
// (comm.go).
const SchemaVersion = 6

var (
	bucketMeta       = []byte("meta")
	bucketAccounts   = []byte("accounts")
	bucketCharacters = []byte("characters")
	bucketPlacements = []byte("placements")
	bucketObjects    = []byte("objects")
	bucketLedger     = []byte("ledger")
	bucketHoldings   = []byte("holdings") // holder -> packed ids it holds, for the ledger
	bucketLeases     = []byte("leases")   // zone id -> the lease generation that may write it
	bucketBans       = []byte("bans")     // kind:target -> Ban

	keySchema   = []byte("schema")
	keyBoots    = []byte("boots")
	keyItemHigh = []byte("item_high")
	keyCreated  = []byte("created")
	keyAccounts = []byte("accounts") // accounts ever created: none is ever deleted

	allBuckets = [][]byte{bucketMeta, bucketAccounts, bucketCharacters, bucketPlacements, bucketObjects, bucketLedger, bucketHoldings, bucketLeases, bucketBans, bucketComm}
)

// Config is the [store] section of config.toml.
type Config struct {
	// File is the database file name inside data_dir.
	File string `toml:"file"`
	// OpenTimeout is how long to wait for the file lock before saying
	// another process holds it.
	OpenTimeoutSecs int `toml:"open_timeout_secs"`
	// MaxSizeMB caps the file; a commit past it fails instead of filling
	// the disk (0: no cap).
	MaxSizeMB int `toml:"max_size_mb"`
	// CheckOnOpen runs a full consistency check of the file at start-up.
	CheckOnOpen bool `toml:"check_on_open"`
	// BackupEvery is how often the server writes a backup by itself, as a
	// duration ("6h", "30m"); "0" or "" never. BackupKeep is how many of
	// those it keeps.
	BackupEvery string `toml:"backup_every"`
	BackupKeep  int    `toml:"backup_keep"`
}

// BackupInterval is BackupEvery as a duration; 0 is never.
func (c Config) BackupInterval() time.Duration {
	if c.BackupEvery == "" || c.BackupEvery == "0" {
		return 0
	}
	d, _ := time.ParseDuration(c.BackupEvery) // Validate has refused what does not parse
	return d
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{File: "zonemud.db", OpenTimeoutSecs: 2, MaxSizeMB: 0, CheckOnOpen: true, BackupEvery: "6h", BackupKeep: 8}
}

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	switch {
	case c.File == "" || filepath.Base(c.File) != c.File:
		return fmt.Errorf("store.file: %q must be a plain file name", c.File)
	case c.OpenTimeoutSecs < 1 || c.OpenTimeoutSecs > 300:
		return fmt.Errorf("store.open_timeout_secs: %d is out of range 1 to 300", c.OpenTimeoutSecs)
	case c.MaxSizeMB < 0 || c.MaxSizeMB > 1<<20:
		return fmt.Errorf("store.max_size_mb: %d is out of range 0 to 1048576", c.MaxSizeMB)
	case c.BackupKeep < 1 || c.BackupKeep > 1000:
		return fmt.Errorf("store.backup_keep: %d is out of range 1 to 1000", c.BackupKeep)
	}
	if c.BackupEvery != "" && c.BackupEvery != "0" {
		d, err := time.ParseDuration(c.BackupEvery)
		switch {
		case err != nil:
			return fmt.Errorf("store.backup_every: %q is not a duration like \"6h\" or \"30m\" (\"0\" for never)", c.BackupEvery)
		case d < time.Minute || d > 30*24*time.Hour:
			return fmt.Errorf("store.backup_every: %s is out of range 1m to 720h", d)
		}
	}
	return nil
}

// DB is the open database.
type DB struct {
	bolt *bolt.DB // immutable after Open
	path string   // immutable after Open
	boot uint64   // immutable after Open: this process's boot number
	// created is when the database was first made: the world's birthday.
	created  time.Time // immutable after Open
	fresh    bool      // immutable after Open: this Open made the file
	notes    []string  // immutable after Open
	migrated []string  // immutable after Open

	itemHigh atomic.Uint64 // highest item id ever committed
	refused  atomic.Uint64 // saves refused: stale epoch, ledger conflict or lease fence
	commits  atomic.Uint64
	met      *metrics // immutable after Open
}

// Open opens the database at path to serve it. Only where no file exists
// is a new, empty database made. An existing file is first opened
// read-only and checked, and refused if it is empty, damaged or from a
// newer zonemud: the error is a *Refusal that says what and where, and
// nothing is written to the file. cfg.CheckOnOpen adds the whole-file
// checks (see check). Then the file is opened for writing, migrated if its
// schema is older, and this boot is counted.
func Open(path string, cfg Config) (*DB, error) {
	if cfg.OpenTimeoutSecs == 0 {
		cfg.OpenTimeoutSecs = 2
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("store: create data dir: %w", err)
	}
	fresh := false
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := create(path, cfg); err != nil {
			return nil, err
		}
		fresh = true
	}
	ro, rep, err := check(path, cfg, cfg.CheckOnOpen && !fresh)
	if err != nil {
		return nil, err
	}
	if err := ro.Close(); err != nil {
		return nil, fmt.Errorf("store: close %s after its check: %w", path, err)
	}
	db := &DB{path: path, fresh: fresh, notes: rep.notes}
	db.met = newMetrics(db)
	err = guard(path, func() error {
		opts := &bolt.Options{
			Timeout:         time.Duration(cfg.OpenTimeoutSecs) * time.Second,
			InitialMmapSize: 256 << 20,
			FreelistType:    bolt.FreelistMapType,
			// The file was checked a moment ago: never make a new one here.
			OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
				return os.OpenFile(name, flag&^os.O_CREATE, mode)
			},
		}
		if cfg.MaxSizeMB > 0 {
			opts.MaxSize = cfg.MaxSizeMB << 20
		}
		var err error
		if db.bolt, err = bolt.Open(path, 0o600, opts); err != nil {
			if errors.Is(err, berrors.ErrTimeout) {
				return fmt.Errorf("store: open %s: %w (is another zonemud running on this data_dir?)", path, ErrLocked)
			}
			return fmt.Errorf("store: open %s: %w", path, err)
		}
		return db.start()
	})
	if err != nil {
		if db.bolt != nil {
			db.bolt.Close()
		}
		return nil, err
	}
	return db, nil
}

// OpenReadOnly opens an existing database only to read or copy it, after
// the same checks as Open. It writes nothing: the file stays byte for byte
// as it was, and other readers may share it (a running server may not).
// Boot is zero; every write fails.
func OpenReadOnly(path string, cfg Config) (*DB, error) {
	if cfg.OpenTimeoutSecs == 0 {
		cfg.OpenTimeoutSecs = 2
	}
	bdb, rep, err := check(path, cfg, cfg.CheckOnOpen)
	if err != nil {
		return nil, err
	}
	db := &DB{bolt: bdb, path: path, notes: rep.notes}
	db.met = newMetrics(db)
	err = bdb.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		created, _ := metaU64(meta.Get(keyCreated))
		high, _ := metaU64(meta.Get(keyItemHigh))
		db.created = time.Unix(int64(created), 0)
		db.itemHigh.Store(high)
		return nil
	})
	if err != nil {
		bdb.Close()
		return nil, fmt.Errorf("store: read %s: %w", path, err)
	}
	return db, nil
}

// create makes a new, empty database at path, which must not exist. It is
// built in a temporary file beside path and linked into place whole, so a
// file at path is always a database this package finished: a crash while
// creating leaves no half-made file for the next start to mistake for
// damage, and a file that appears at path meanwhile is never replaced.
func create(path string, cfg Config) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".new-*.db")
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	bdb, err := bolt.Open(tmpPath, 0o600, &bolt.Options{Timeout: time.Duration(cfg.OpenTimeoutSecs) * time.Second})
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	err = bdb.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		for k, v := range map[string]uint64{
			string(keySchema):   SchemaVersion,
			string(keyCreated):  uint64(time.Now().Unix()),
			string(keyBoots):    0,
			string(keyAccounts): 0,
		} {
			if err := meta.Put([]byte(k), u64c(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := bdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("store: create %s: a file appeared there while the new database was made; start again to check it", path)
		}
		// Some file systems have no hard links: rename, which would
		// replace a file made in the last moment, so look once more.
		if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("store: create %s: %w", path, err)
		}
		if err := os.Rename(tmpPath, path); err != nil {
			return fmt.Errorf("store: create %s: %w", path, err)
		}
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	return nil
}

// start migrates a checked database to this schema if it is older, counts
// this boot, and reads what the DB keeps in memory.
func (db *DB) start() error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		ver, err := metaU64(meta.Get(keySchema))
		if err != nil {
			return fmt.Errorf("store: schema version of %s: %w", db.path, err)
		}
		for ; ver < SchemaVersion; ver++ {
			if err := migrations[ver](tx); err != nil {
				return fmt.Errorf("store: migrate %s from schema %d to %d: %w", db.path, ver, ver+1, err)
			}
			if err := meta.Put(keySchema, u64c(ver+1)); err != nil {
				return err
			}
			db.migrated = append(db.migrated, fmt.Sprintf("migrated from schema %d to %d", ver, ver+1))
		}
		created, err := metaU64(meta.Get(keyCreated))
		if err != nil {
			return fmt.Errorf("store: creation time in %s: %w", db.path, err)
		}
		boots, err := metaU64(meta.Get(keyBoots))
		if err != nil {
			return fmt.Errorf("store: boot count in %s: %w", db.path, err)
		}
		db.created = time.Unix(int64(created), 0)
		db.boot = boots + 1
		if v := meta.Get(keyItemHigh); v != nil {
			high, err := metaU64(v)
			if err != nil {
				return fmt.Errorf("store: item high-water mark in %s: %w", db.path, err)
			}
			db.itemHigh.Store(high)
		}
		return meta.Put(keyBoots, u64c(db.boot))
	})
}

// migrations[v] upgrades a database from schema v to v+1, inside the
// transaction that then records v+1.
var migrations = map[uint64]func(tx *bolt.Tx) error{
	1: migrateChecksums,
	2: func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucketLeases); return err },
	3: func(tx *bolt.Tx) error { return nil }, // roles: a field the JSON of an account may now carry
	4: func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucketBans); return err },
	5: func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucketComm); return err },
}

// migrateChecksums rewrites every record and meta number of schema 1 in
// its checksummed form, and counts the accounts. A record that does not
// read is kept as it is: the check of the next start names it.
func migrateChecksums(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	for _, k := range [][]byte{keyBoots, keyCreated, keyItemHigh} {
		if v := meta.Get(k); v != nil {
			n, err := metaU64(v)
			if err != nil {
				return fmt.Errorf("meta %s: %w", k, err)
			}
			if err := meta.Put(k, u64c(n)); err != nil {
				return err
			}
		}
	}
	var accounts uint64
	rewrite := func(bucket []byte, decodeFn func([]byte) (any, bool), encodeFn func(any) ([]byte, error)) error {
		b := tx.Bucket(bucket)
		type kv struct{ k, v []byte }
		var out []kv
		err := b.ForEach(func(k, v []byte) error {
			if bytes.Equal(bucket, bucketAccounts) {
				accounts++
			}
			if v == nil || checkedRecord(v) {
				return nil
			}
			rec, ok := decodeFn(v)
			if !ok {
				return nil
			}
			nv, err := encodeFn(rec)
			if err != nil {
				return err
			}
			out = append(out, kv{append([]byte(nil), k...), nv})
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range out {
			if err := b.Put(e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	}
	generic := func(newRec func() any) func([]byte) (any, bool) {
		return func(v []byte) (any, bool) {
			r := newRec()
			return r, decode(v, r) == nil
		}
	}
	steps := []struct {
		bucket []byte
		dec    func([]byte) (any, bool)
		enc    func(any) ([]byte, error)
	}{
		{bucketAccounts, generic(func() any { return new(Account) }), encode},
		{bucketPlacements, generic(func() any { return new(Placement) }), encode},
		{bucketObjects, generic(func() any { return new([]Item) }), encode},
		{bucketCharacters, func(v []byte) (any, bool) {
			c := new(Character)
			return c, decodeChar(v, c) == nil
		}, func(r any) ([]byte, error) { return encodeChar(r.(*Character)) }},
	}
	for _, s := range steps {
		if err := rewrite(s.bucket, s.dec, s.enc); err != nil {
			return fmt.Errorf("rewrite %s: %w", s.bucket, err)
		}
	}
	return meta.Put(keyAccounts, u64c(accounts))
}

// Notes are what the checks at open found worth a warning without
// refusing the file: a damaged meta page whose twin was used.
func (db *DB) Notes() []string { return db.notes }

// Migrations are the schema migrations this Open ran.
func (db *DB) Migrations() []string { return db.migrated }

// Fresh reports whether this Open made the file: there was none.
func (db *DB) Fresh() bool { return db.fresh }

// Check runs bbolt's consistency check over the whole file.
func (db *DB) Check() error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			// Drain the channel whole: the checker goroutine holds this
			// transaction until it has sent everything.
			if len(errs) < 10 {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("store: %s failed its consistency check: %w: %v; restore it from a backup", db.path, ErrCorrupt, errors.Join(errs...))
		}
		return nil
	})
}

// Close closes the file.
func (db *DB) Close() error { return db.bolt.Close() }

// Path is the file's path.
func (db *DB) Path() string { return db.path }

// Created is when this database was first made.
func (db *DB) Created() time.Time { return db.created }

// Boot is this process's boot number: one more than the last process's.
func (db *DB) Boot() uint64 { return db.boot }

// ItemHigh is the highest item id ever committed.
func (db *DB) ItemHigh() uint64 { return db.itemHigh.Load() }

// Refused counts saves refused for a stale epoch, a ledger conflict, or a
// lease generation that was released or superseded.
func (db *DB) Refused() uint64 { return db.refused.Load() }

// Commits counts committed transactions.
func (db *DB) Commits() uint64 { return db.commits.Load() }

// Backup writes a consistent copy of the database to w while others keep
// reading and writing, and returns the bytes written.
func (db *DB) Backup(w io.Writer) (int64, error) {
	var n int64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("store: backup: %w", err)
	}
	return n, nil
}

// BackupFile writes a consistent copy to path: a temporary file beside it,
// synced, then renamed, so path never holds half a backup.
func (db *DB) BackupFile(path string) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".backup-*")
	if err != nil {
		return 0, fmt.Errorf("store: backup: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := db.Backup(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return 0, fmt.Errorf("store: backup to %s: %w", path, err)
	}
	return n, nil
}

// Size is the database size in bytes.
func (db *DB) Size() int64 {
	var n int64
	_ = db.bolt.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n
}

func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
