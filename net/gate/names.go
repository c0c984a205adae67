package gate

import (
	"strings"
	"unicode/utf8"
)

// Name rules, applied at the trust boundary before a name reaches anything
// else: ASCII letters only (no look-alike letters from other scripts, no
// controls or escapes), 2 to 20 of them, capitalised, not a reserved word.
const (
	minName = 2
	maxName = 20
)

// reserved are words that would confuse targeting, commands or people.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all self me someone somebody something everyone everybody nobody
		none you them it here there new quit exit help who what where admin administrator god gods
		immortal imm wizard sysop root system server zonemud guest player players mob mobs
		north east south west up down northeast northwest southeast southwest
		look get drop give say tell reply emote kill flee inventory equipment score`) {
		reserved[w] = true
	}
}

// cleanName turns what a player typed into a stored name, or explains why
// it cannot be one. The explanation never echoes the raw input, which may
// hold escape sequences.
func cleanName(typed string, taken func(lower string) bool) (string, string) {
	s := strings.TrimSpace(typed)
	if s == "" {
		return "", "A name is needed."
	}
	if !utf8.ValidString(s) {
		return "", "Names are written in the letters A to Z."
	}
	n := utf8.RuneCountInString(s)
	if n > maxName {
		return "", "That name is too long; use at most 20 letters."
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", "Names are written in the letters A to Z, with no spaces or other marks."
		}
	}
	if n < minName {
		return "", "That name is too short; use at least 2 letters."
	}
	lower := strings.ToLower(s)
	if reserved[lower] || (taken != nil && taken(lower)) {
		return "", "That name is reserved; please choose another."
	}
	return strings.ToUpper(lower[:1]) + lower[1:], ""
}
