package content

import (
	"fmt"
	"strings"
)

// Kind is the middle segment of a ref.
type Kind string

// The kinds of thing an area file declares.
const (
	KindRoom Kind = "room"
	KindMob  Kind = "mob"
	KindItem Kind = "item"
)

// Ref is a parsed authored ref: zone:kind:local.
type Ref struct {
	Zone  string
	Kind  Kind
	Local string
}

// String returns the ref in its written form.
func (r Ref) String() string { return r.Zone + ":" + string(r.Kind) + ":" + r.Local }

// IsRefByte reports whether b may appear in an authored ref. The set is
// [a-z0-9_:]; anything else, '#' above all, is refused.
func IsRefByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == ':'
}

// ValidName reports whether s is a valid zone id or local name: one or more
// bytes of [a-z0-9_], at most 64.
func ValidName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsRefByte(s[i]) || s[i] == ':' {
			return false
		}
	}
	return true
}

// ParseRef splits an authored ref into its parts. It refuses anything that
// is not exactly three valid names joined by ':' with a known kind.
func ParseRef(s string) (Ref, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Ref{}, fmt.Errorf("ref %q: want zone:kind:name", s)
	}
	for _, p := range parts {
		if !ValidName(p) {
			return Ref{}, fmt.Errorf("ref %q: each part must be 1 to 64 of a-z, 0-9 and _", s)
		}
	}
	k := Kind(parts[1])
	switch k {
	case KindRoom, KindMob, KindItem:
	default:
		return Ref{}, fmt.Errorf("ref %q: kind %q is not room, mob or item", s, parts[1])
	}
	return Ref{Zone: parts[0], Kind: k, Local: parts[2]}, nil
}

// RefZone returns the zone segment of a ref-like string without validating
// the rest: everything before the first ':'. An empty string gives "".
func RefZone(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		return s[:i]
	}
	return s
}

// resolve turns what a builder wrote where a ref of kind k is expected into
// a full ref. A bare local name means "in this zone"; a full ref is checked.
func resolve(zone string, k Kind, written string) (string, error) {
	if written == "" {
		return "", fmt.Errorf("empty %s ref", k)
	}
	if !strings.Contains(written, ":") {
		if !ValidName(written) {
			return "", fmt.Errorf("%q is not a valid %s name (a-z, 0-9 and _ only)", written, k)
		}
		return zone + ":" + string(k) + ":" + written, nil
	}
	r, err := ParseRef(written)
	if err != nil {
		return "", err
	}
	if r.Kind != k {
		return "", fmt.Errorf("ref %q names a %s where a %s is expected", written, r.Kind, k)
	}
	return r.String(), nil
}
