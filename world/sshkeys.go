package world

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"zonemud/store"
)

// maxKeys is how many SSH keys one account may register.
const maxKeys = 16

// SSHKeys lists, adds or removes an account's SSH public keys, on its own
// goroutine (it writes the store), and reports to done what to tell the
// player.
func (w *World) SSHKeys(name, op, arg string, done func(reply string)) {
	_, ok := w.gr.Go(context.Background(), func(context.Context) { done(w.sshKeys(name, op, arg)) }, "world", "sshkeys")
	if !ok {
		done("The world is shutting down; your keys were not changed.")
	}
}

func (w *World) sshKeys(name, op, arg string) string {
	switch op {
	case "list":
		a, err := w.db.Account(name)
		if err != nil {
			return "Your keys cannot be read right now."
		}
		if len(a.Keys) == 0 {
			return "You have no SSH keys. Add one with: sshkey add <the line from your .pub file>"
		}
		var b strings.Builder
		b.WriteString("Your SSH keys:")
		for i, k := range a.Keys {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, describeKey(k))
		}
		return b.String()
	case "add":
		pub, comment, _, rest, err := gossh.ParseAuthorizedKey([]byte(arg))
		if err != nil || len(strings.TrimSpace(string(rest))) > 0 {
			return "That is not an SSH public key. Paste one line from your id_ed25519.pub (or id_rsa.pub) file."
		}
		line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pub)))
		if comment != "" {
			line += " " + cleanComment(comment)
		}
		err = w.db.UpdateAccount(name, func(a *store.Account) error {
			for _, k := range a.Keys {
				if p, _, _, _, err := gossh.ParseAuthorizedKey([]byte(k)); err == nil && gossh.FingerprintSHA256(p) == gossh.FingerprintSHA256(pub) {
					return errDupKey
				}
			}
			if len(a.Keys) >= maxKeys {
				return errTooManyKeys
			}
			a.Keys = append(a.Keys, line)
			return nil
		})
		switch {
		case errors.Is(err, errDupKey):
			return "That key is already yours."
		case errors.Is(err, errTooManyKeys):
			return fmt.Sprintf("You already have %d keys; remove one first.", maxKeys)
		case err != nil:
			return "The key could not be saved right now."
		}
		return "Key added: " + describeKey(line) + "\nYou can now log in with: ssh " + name + "@<this host> -p <ssh port>"
	case "remove":
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 1 {
			return "Remove which key? Give its number from sshkey list."
		}
		var removed string
		err = w.db.UpdateAccount(name, func(a *store.Account) error {
			if n > len(a.Keys) {
				return errNoSuchKey
			}
			removed = a.Keys[n-1]
			a.Keys = append(a.Keys[:n-1], a.Keys[n:]...)
			return nil
		})
		if err != nil {
			return "There is no such key. See sshkey list."
		}
		return "Key removed: " + describeKey(removed)
	}
	return "sshkey add <key> | sshkey list | sshkey remove <number>"
}

var (
	errDupKey      = errors.New("duplicate key")
	errTooManyKeys = errors.New("too many keys")
	errNoSuchKey   = errors.New("no such key")
)

// describeKey shows a key the way ssh-keygen -l does: type, fingerprint,
// comment.
func describeKey(line string) string {
	pub, comment, _, _, err := gossh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return "(unreadable key)"
	}
	s := pub.Type() + " " + gossh.FingerprintSHA256(pub)
	if comment != "" {
		s += " " + comment
	}
	return s
}

// cleanComment keeps a key comment printable and short.
func cleanComment(c string) string {
	c = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '{' {
			return -1
		}
		return r
	}, c)
	if len(c) > 60 {
		c = c[:60]
	}
	return c
}
