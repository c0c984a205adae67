package store

import "errors"

// Sentinel errors. Callers test them with errors.Is.
var (
	ErrNotFound     = errors.New("store: not found")
	ErrExists       = errors.New("store: already exists")
	ErrLocked       = errors.New("store: database is in use by another process")
	ErrNewerSchema  = errors.New("store: database was written by a newer zonemud")
	ErrCorrupt      = errors.New("store: record is damaged")
	ErrEmpty        = errors.New("store: database file is empty")
	ErrStaleEpoch   = errors.New("store: save from an older owner epoch")
	ErrLedger       = errors.New("store: item would be held twice")
	ErrFenced       = errors.New("store: zone lease generation released or superseded")
	ErrClosed       = errors.New("store: closed")
	ErrInvalidInput = errors.New("store: invalid input")
	ErrFull         = errors.New("store: full")
)
