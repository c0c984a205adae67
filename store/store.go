package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout this binary writes. A database with a larger
// version is refused; a smaller one is migrated at open.
const SchemaVersion = 1

var (
	bucketMeta       = []byte("meta")
	bucketAccounts   = []byte("accounts")
	bucketCharacters = []byte("characters")
	bucketPlacements = []byte("placements")
	bucketObjects    = []byte("objects")
	bucketLedger     = []byte("ledger")
	bucketHoldings   = []byte("holdings") // holder -> packed ids it holds, for the ledger

	keySchema   = []byte("schema")
	keyBoots    = []byte("boots")
	keyItemHigh = []byte("item_high")
	keyCreated  = []byte("created")

	allBuckets = [][]byte{bucketMeta, bucketAccounts, bucketCharacters, bucketPlacements, bucketObjects, bucketLedger, bucketHoldings}
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
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{File: "zonemud.db", OpenTimeoutSecs: 2, MaxSizeMB: 0, CheckOnOpen: true}
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
	}
	return nil
}

// DB is the open database.
type DB struct {
	bolt *bolt.DB // immutable after Open
	path string   // immutable after Open
	boot uint64   // immutable after Open: this process's boot number
	// created is when the database was first made: the world's birthday.
	created time.Time // immutable after Open

	itemHigh atomic.Uint64 // highest item id ever committed
	refused  atomic.Uint64 // saves refused: stale epoch or ledger conflict
	commits  atomic.Uint64
}

// Open opens (creating if needed) the database at path, checks its schema
// and consistency, and counts this boot.
func Open(path string, cfg Config) (*DB, error) {
	if cfg.OpenTimeoutSecs == 0 {
		cfg.OpenTimeoutSecs = 2
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("store: create data dir: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && fi.Size() < 4096 {
		return nil, fmt.Errorf("store: %s is only %d bytes: %w (truncated?); restore it from a backup", path, fi.Size(), ErrCorrupt)
	}
	opts := &bolt.Options{
		Timeout:         time.Duration(cfg.OpenTimeoutSecs) * time.Second,
		InitialMmapSize: 256 << 20,
		FreelistType:    bolt.FreelistMapType,
	}
	if cfg.MaxSizeMB > 0 {
		opts.MaxSize = cfg.MaxSizeMB << 20
	}
	bdb, err := openBolt(path, opts)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("store: open %s: %w (is another zonemud running on this data_dir?)", path, ErrLocked)
		}
		if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch) {
			return nil, fmt.Errorf("store: open %s: %w: %v; restore it from a backup", path, ErrCorrupt, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db := &DB{bolt: bdb, path: path}
	if cfg.CheckOnOpen {
		if err := db.Check(); err != nil {
			bdb.Close()
			return nil, err
		}
	}
	if err := db.initSchema(); err != nil {
		bdb.Close()
		return nil, err
	}
	return db, nil
}

// openBolt opens the file, turning a panic inside bbolt on a damaged file
// into an error: a corrupt file must stop start-up with a message, not a
// stack trace.
func openBolt(path string, opts *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, v)
		}
	}()
	return bolt.Open(path, 0o600, opts)
}

func (db *DB) initSchema() error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			for _, b := range allBuckets {
				if tx.Bucket(b) != nil && b[0] != 'm' {
					return fmt.Errorf("store: %s has data but no schema version: %w", db.path, ErrCorrupt)
				}
			}
			var err error
			if meta, err = tx.CreateBucket(bucketMeta); err != nil {
				return fmt.Errorf("store: init: %w", err)
			}
			if err := meta.Put(keySchema, u64(SchemaVersion)); err != nil {
				return err
			}
		}
		v := meta.Get(keySchema)
		if len(v) != 8 {
			return fmt.Errorf("store: schema version unreadable in %s: %w", db.path, ErrCorrupt)
		}
		ver := binary.BigEndian.Uint64(v)
		if ver > SchemaVersion {
			return fmt.Errorf("store: %s has schema version %d, this binary knows up to %d: %w; run the newer zonemud or restore a backup", db.path, ver, SchemaVersion, ErrNewerSchema)
		}
		for ver < SchemaVersion {
			step := migrations[ver]
			if err := step(tx); err != nil {
				return fmt.Errorf("store: migrate schema %d to %d: %w", ver, ver+1, err)
			}
			ver++
			if err := meta.Put(keySchema, u64(ver)); err != nil {
				return err
			}
		}
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return fmt.Errorf("store: init bucket %s: %w", b, err)
			}
		}
		if meta.Get(keyCreated) == nil {
			if err := meta.Put(keyCreated, u64(uint64(time.Now().Unix()))); err != nil {
				return err
			}
		}
		db.created = time.Unix(int64(getU64(meta.Get(keyCreated))), 0)
		db.boot = getU64(meta.Get(keyBoots)) + 1
		if err := meta.Put(keyBoots, u64(db.boot)); err != nil {
			return err
		}
		db.itemHigh.Store(getU64(meta.Get(keyItemHigh)))
		return nil
	})
}

// migrations[v] upgrades a database from schema v to v+1, inside the
// transaction that then records v+1. Version 0 is an empty file.
var migrations = map[uint64]func(tx *bolt.Tx) error{
	0: func(tx *bolt.Tx) error { return nil },
}

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

// Refused counts saves refused for a stale epoch or a ledger conflict.
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
