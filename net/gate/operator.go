package gate

import "errors"

// What the operator's shell commands (zonemud admin create) need of the
// login rules, so a character made there obeys the same ones as a
// character made at the name prompt.

// CleanName turns a typed name into the stored one by the rules of the
// name prompt (letters only, 2 to 20, not a reserved word), or says why
// it cannot be one.
func CleanName(typed string) (string, error) {
	name, why := cleanName(typed, nil)
	if why != "" {
		return "", errors.New(why)
	}
	return name, nil
}

// HashNewPassword checks a new password by the rules of the creation
// dialogue and hashes it at cfg's argon2id cost.
func HashNewPassword(cfg Config, pw string) (string, error) {
	if why := passwordProblem(pw); why != "" {
		return "", errors.New(why)
	}
	return hashPassword(pw, uint32(cfg.ArgonMemoryKiB), uint32(cfg.ArgonTime))
}
