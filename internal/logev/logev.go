// Package logev gives every log line zonemud writes a stable numeric event
// id, so that an operator can search, alert and count by number whatever
// the wording of the message. docs/LOG_EVENTS.md lists every id with its
// level and when it is written; a test holds the code and the table
// together.
//
// A log call carries its id as a literal: log.Warn("...", logev.ID(4101),
// ...). The common fields have their own names here so that every package
// spells them alike.
package logev

import "log/slog"

// Key is the attribute an event id is logged under.
const Key = "event"

// ID is the attribute that names a log line's event.
func ID(id int) slog.Attr { return slog.Int(Key, id) }

// Player names the character a line is about.
func Player(name string) slog.Attr { return slog.String("player", name) }

// Session names the connection a line is about.
func Session(id uint64) slog.Attr { return slog.Uint64("session", id) }

// Remote is the address of the connection a line is about.
func Remote(addr string) slog.Attr { return slog.String("remote", addr) }

// Zone names the zone actor a line is about (an instance's id for a copy).
func Zone(id string) slog.Attr { return slog.String("zone", id) }

// Template names whose content that zone runs.
func Template(id string) slog.Attr { return slog.String("template", id) }
