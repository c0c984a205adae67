package zone

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// ref is a parsed authored ref. An unparsable string gives the zero ref,
// which names no room.
type ref struct {
	zone, kind, local string
}

// parseRef splits zone:kind:local. It does not validate the charset; the
// content loader did that for every authored ref.
func parseRef(s string) ref {
	a, rest, ok := strings.Cut(s, ":")
	if !ok {
		return ref{}
	}
	b, c, ok := strings.Cut(rest, ":")
	if !ok {
		return ref{}
	}
	return ref{zone: a, kind: b, local: c}
}

// ownsZoneRef answers the routing question: does a ref whose zone segment is
// zoneID stay inside this zone? An instance runs its template's content, so
// its rooms carry the template's refs: the template id counts as its own.
//
// It is not the isolation question (may this actor reach that entity?),
// which stays strict on z.id. The room map is the isolation boundary: each
// zone, each instance included, holds its own.
func (z *Zone) ownsZoneRef(zoneID string) bool {
	return zoneID == "" || zoneID == z.id || zoneID == z.template
}

// localRoom resolves a room ref to this zone's room, or nil if the ref
// leads out of the zone or names no room here. It is the one correct order
// for an instance: parse, ask ownsZoneRef, then look in our own room map.
func (z *Zone) localRoom(s string) *Room {
	r := parseRef(s)
	if !z.ownsZoneRef(r.zone) {
		return nil
	}
	return z.rooms[s]
}

// NewInstanceID makes an id for an instance of template: the template id,
// '#', and 128 random bits in hex. '#' is outside the authored charset, so
// an instance id can never equal an authored ref or zone id, and the serial
// cannot be guessed or enumerated.
func NewInstanceID(template string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return template + "#" + hex.EncodeToString(b[:])
}

// IsInstanceID reports whether id names an instance rather than an
// authored zone.
func IsInstanceID(id string) bool { return strings.IndexByte(id, '#') >= 0 }

// isInstance reports whether this zone is an instance.
func (z *Zone) isInstance() bool { return z.id != z.template }

// startRoom is the zone's start room; for a zone that declares none, the
// world's start or recall room if it is here; else the zone's first room.
func (z *Zone) startRoom() *Room {
	for _, ref := range []string{z.proto.StartRoom, z.set.Game.StartRoom, z.set.Game.RecallRoom} {
		if r := z.localRoom(ref); r != nil {
			return r
		}
	}
	if len(z.proto.Rooms) > 0 {
		return z.rooms[z.proto.Rooms[0].Ref]
	}
	return nil
}
