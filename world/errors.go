package world

import "errors"

// Errors a login can get from Enter and the account methods.
var (
	ErrStopping      = errors.New("world: shutting down")
	ErrBadRecord     = errors.New("world: character record cannot be read")
	ErrFull          = errors.New("world: full")
	ErrNoAccount     = errors.New("world: no such account")
	ErrAccountExists = errors.New("world: account name taken")
	// ErrTakenOver: a later login for the character took it while this
	// one loaded it; this session has been closed.
	ErrTakenOver = errors.New("world: another login took the character")
)

// Errors of hosting and of the directory.
var (
	// ErrHosted: the zone id is hosted already.
	ErrHosted = errors.New("world: zone is already hosted")
	// ErrNotHosted: no live hosting has that id.
	ErrNotHosted = errors.New("world: zone is not hosted")
	// ErrLeaseLost: the lease lapsed, was released, or another hosting of
	// the id superseded it.
	ErrLeaseLost = errors.New("world: zone lease lost")
	// ErrBadHosting: a hosting or claim request that no directory accepts
	// (no id, no owner, a TTL of zero).
	ErrBadHosting = errors.New("world: bad hosting request")
	// ErrBusy: an unhost found the zone not quiescent (someone is in it,
	// on the way in, or waiting to take a character in it over). A
	// refused unhost is ordinary; try again later.
	ErrBusy = errors.New("world: zone is not quiescent")
	// ErrPinned: the zone holds the start room and is never unhosted.
	ErrPinned = errors.New("world: zone holds the start room")
	// ErrNoTemplate: the content has no zone of that id, or not one that
	// can be hosted that way.
	ErrNoTemplate = errors.New("world: no such zone to host")
	// ErrWedged: a zone's goroutine did not stop in time at unhost.
	ErrWedged = errors.New("world: zone did not stop")
	// ErrInstanceCap: the process holds as many instance copies as
	// [instance] per_process allows.
	ErrInstanceCap = errors.New("world: too many instance copies")
)
