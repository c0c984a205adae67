package gate

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Passwords are hashed with argon2id and stored as a PHC string:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>
//
// The parameters travel with the hash, so raising them later only affects
// new hashes, and a login checks an old hash with the parameters it was
// made with.

// Password length bounds, in bytes. The upper bound keeps hashing cost
// fixed whatever a client sends.
const (
	minPassword = 6
	maxPassword = 256
)

var errBadHash = errors.New("gate: stored password hash is unreadable")

// hashPassword makes a PHC string for pw.
func hashPassword(pw string, memKiB, passes uint32) (string, error) {
	var salt [16]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return "", fmt.Errorf("gate: salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt[:], passes, memKiB, 1, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=1$%s$%s", argon2.Version, memKiB, passes,
		base64.RawStdEncoding.EncodeToString(salt[:]), base64.RawStdEncoding.EncodeToString(key)), nil
}

// checkPassword reports whether pw matches a PHC string, in constant time
// with respect to the key.
func checkPassword(pw, phc string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false, errBadHash
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m < 8 || m > 1<<22 || t < 1 || t > 100 || p < 1 {
		return false, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) < 16 || len(want) > 64 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// passwordProblem says what is wrong with a new password, or "".
func passwordProblem(pw string) string {
	switch {
	case strings.TrimSpace(pw) == "":
		return "An empty password will not do."
	case len(pw) < minPassword:
		return fmt.Sprintf("That password is too short; use at least %d characters.", minPassword)
	case len(pw) > maxPassword:
		return fmt.Sprintf("That password is too long; use at most %d characters.", maxPassword)
	}
	return ""
}
