package server

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"zonemud/net/gate"
	"zonemud/server/config"
	"zonemud/store"
)

// The first admin of a world is made on the server's shell, never at the
// name prompt: a name in [world] admins that nobody has made yet would
// otherwise go to whoever types it first. CreateAdmin opens the database
// itself, so it works only while no server holds it (bbolt's file lock).

// ErrServerRunning is CreateAdmin's and GrantAdmin's error while a server
// holds the database.
var ErrServerRunning = errors.New("the server is running")

// ErrAdminExists is CreateAdmin's error for a name that already has a
// character.
var ErrAdminExists = errors.New("the name already has a character")

// CreateAdmin makes a new character that holds the admin role, with
// password, in the database cfg names (made if there is none). It returns
// the name as stored.
func CreateAdmin(cfg *config.Config, typed, password string) (string, error) {
	name, err := gate.CleanName(typed)
	if err != nil {
		return "", err
	}
	hash, err := gate.HashNewPassword(cfg.Gate, password)
	if err != nil {
		return "", err
	}
	db, err := openForShell(cfg)
	if err != nil {
		return "", err
	}
	now := time.Now().Unix()
	err = db.CreateAccount(&store.Account{Name: name, Hash: hash, Created: now, LastLogin: now, Roles: store.Roles{Admin: true}})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, store.ErrExists) {
		return "", fmt.Errorf("%s: %w", name, ErrAdminExists)
	}
	return name, err
}

// GrantAdmin gives the admin role to a character that exists, for an
// operator who made theirs in game (before CreateAdmin existed, say): its
// password is unchanged.
func GrantAdmin(cfg *config.Config, typed string) (string, error) {
	name, err := gate.CleanName(typed)
	if err != nil {
		return "", err
	}
	db, err := openForShell(cfg)
	if err != nil {
		return "", err
	}
	err = db.UpdateAccount(name, func(a *store.Account) error {
		name = a.Name
		a.Admin = true
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return name, err
}

// openForShell opens the database for a shell command's write, telling
// a held lock apart from other failures.
func openForShell(cfg *config.Config) (*store.DB, error) {
	scfg := cfg.Store
	scfg.OpenTimeoutSecs = 1
	db, err := store.Open(filepath.Join(cfg.Server.DataDir, cfg.Store.File), scfg)
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("%w on %s: %w", ErrServerRunning, cfg.Server.DataDir, err)
	}
	return db, err
}
