package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Account reads an account. It returns ErrNotFound if there is none.
func (db *DB) Account(name string) (*Account, error) {
	var a Account
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketAccounts).Get(key(name))
		if v == nil {
			return ErrNotFound
		}
		return decode(v, &a)
	})
	if err != nil {
		return nil, fmt.Errorf("store: account %q: %w", name, err)
	}
	return &a, nil
}

// CreateAccount adds a new account. It returns ErrExists if the name is
// taken, whatever its case.
func (db *DB) CreateAccount(a *Account) error {
	if a.Name == "" || a.Hash == "" {
		return fmt.Errorf("store: create account: %w: name and hash are required", ErrInvalidInput)
	}
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAccounts)
		if b.Get(key(a.Name)) != nil {
			return ErrExists
		}
		v, err := encode(a)
		if err != nil {
			return err
		}
		if err := b.Put(key(a.Name), v); err != nil {
			return err
		}
		// The count lets the check at start-up see an account gone
		// missing, which nothing else refers to.
		meta := tx.Bucket(bucketMeta)
		n, err := metaU64(meta.Get(keyAccounts))
		if err != nil {
			return fmt.Errorf("account count: %w", err)
		}
		return meta.Put(keyAccounts, u64c(n+1))
	})
	if err != nil {
		return fmt.Errorf("store: create account %q: %w", a.Name, err)
	}
	return nil
}

// UpdateAccount reads an account, lets fn change it, and writes it back in
// one transaction.
func (db *DB) UpdateAccount(name string, fn func(a *Account) error) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAccounts)
		v := b.Get(key(name))
		if v == nil {
			return ErrNotFound
		}
		var a Account
		if err := decode(v, &a); err != nil {
			return err
		}
		if err := fn(&a); err != nil {
			return err
		}
		nv, err := encode(&a)
		if err != nil {
			return err
		}
		return b.Put(key(name), nv)
	})
	if err != nil {
		return fmt.Errorf("store: update account %q: %w", name, err)
	}
	return nil
}
