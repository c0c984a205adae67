package world

import (
	"errors"
	"fmt"
	"time"

	"zonemud/store"
	"zonemud/zone"
)

// What the gate needs of the game, in types the world owns, so that the
// gate imports the world and nothing below it (no zone, store or content).

// Session is a player's connection as the world and its zones see it: an
// output sink. The gate implements it.
type Session = zone.Session

// ClientInfo is what a session knows of its client; its colour levels
// are internal/markup's, which the gate renders with.
type ClientInfo = zone.ClientInfo

// Account is a player's account as a login sees it.
type Account struct {
	Name string
	Hash string   // PHC string of the password hash
	Keys []string // SSH public keys, authorized_keys lines
}

// Account reads an account; ErrNoAccount if there is none.
func (w *World) Account(name string) (*Account, error) {
	a, err := w.db.Account(name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNoAccount, name)
	}
	if err != nil {
		return nil, err
	}
	return &Account{Name: a.Name, Hash: a.Hash, Keys: a.Keys}, nil
}

// CreateAccount adds an account with a password hash; ErrAccountExists if
// the name is taken, whatever its case.
func (w *World) CreateAccount(name, hash string) error {
	now := time.Now().Unix()
	err := w.db.CreateAccount(&store.Account{Name: name, Hash: hash, Created: now, LastLogin: now})
	if errors.Is(err, store.ErrExists) {
		return fmt.Errorf("%w: %q", ErrAccountExists, name)
	}
	return err
}

// TouchLogin records that an account logged in now.
func (w *World) TouchLogin(name string) error {
	return w.db.UpdateAccount(name, func(a *store.Account) error {
		a.LastLogin = time.Now().Unix()
		return nil
	})
}

// GameName is the world's name, from the content.
func (w *World) GameName() string { return w.Content().Game.Name }

// NameTaken reports whether a lower-case name would collide with a mob's
// keyword, which would make targeting ambiguous.
func (w *World) NameTaken(lower string) bool {
	for _, m := range w.Content().Mobs {
		for _, k := range m.Keywords {
			if k == lower {
				return true
			}
		}
	}
	return false
}

// ContentCounts are what the world's content holds, for listings (MSSP).
type ContentCounts struct {
	Zones, Rooms, Mobs, Items, Help int
}

// Counts counts the content.
func (w *World) Counts() ContentCounts {
	return ContentCounts{Zones: len(w.Content().Zones), Rooms: len(w.Content().Rooms), Mobs: len(w.Content().Mobs), Items: len(w.Content().Items), Help: len(w.Content().Help)}
}

// Created is when the world's database was first made: its birthday.
func (w *World) Created() time.Time { return w.db.Created() }
