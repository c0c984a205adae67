package store

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// The records a checkpoint writes (characters, placements, the items lying
// in rooms) are JSON encoded by hand here rather than by encoding/json's
// reflection: the saver encodes every changed character of every zone,
// and reflection was most of that cost (docs/PERFORMANCE.md, issue 25).
// The output is byte for byte what json.Marshal writes for the same value
// (TestRecordJSON_MatchesEncodingJSON checks it over random records with
// every field set, so a field added to a record type and not here fails
// it), so the stored form, and every database already written, is the
// same: nothing to migrate, and decoding stays with encoding/json.

// appendCharJSON appends c's JSON, as json.Marshal(c) writes it.
func appendCharJSON(b []byte, c *Character) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"epoch":`...)
	b = strconv.AppendUint(b, c.Epoch, 10)
	b = append(b, `,"arrival":`...)
	b = strconv.AppendUint(b, c.Arrival, 10)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, c.Created, 10)
	b = append(b, `,"saved":`...)
	b = strconv.AppendInt(b, c.Saved, 10)
	b = append(b, `,"played":`...)
	b = strconv.AppendInt(b, c.Played, 10)
	b = append(b, `,"commands":`...)
	b = strconv.AppendUint(b, c.Commands, 10)
	if c.Title != "" {
		b = append(b, `,"title":`...)
		b = appendJSONString(b, c.Title)
	}
	if c.Admin {
		b = append(b, `,"admin":true`...)
	}
	if c.Frozen {
		b = append(b, `,"frozen":true`...)
	}
	b = appendJSONInt(b, `,"level":`, c.Level)
	b = appendJSONInt(b, `,"exp":`, c.Exp)
	b = appendJSONInt(b, `,"hp":`, c.HP)
	b = appendJSONInt(b, `,"mana":`, c.Mana)
	b = appendJSONInt(b, `,"moves":`, c.Moves)
	b = appendJSONInt(b, `,"gold":`, c.Gold)
	if len(c.Items) > 0 {
		b = append(b, `,"items":`...)
		b = appendItemsJSON(b, c.Items)
	}
	if len(c.Affects) > 0 {
		b = append(b, `,"affects":[`...)
		for i := range c.Affects {
			if i > 0 {
				b = append(b, ',')
			}
			a := &c.Affects[i]
			b = append(b, `{"name":`...)
			b = appendJSONString(b, a.Name)
			b = appendJSONInt(b, `,"pulses":`, a.Pulses)
			if a.Stacks != 0 {
				b = appendJSONInt(b, `,"stacks":`, a.Stacks)
			}
			if a.Mag != 0 {
				b = appendJSONInt(b, `,"mag":`, a.Mag)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"settings":`...)
	b = appendSettingsJSON(b, &c.Settings)
	if c.Comm != nil {
		b = append(b, `,"comm":`...)
		b = appendCommJSON(b, c.Comm)
	}
	if c.Quests != nil {
		b = append(b, `,"quests":`...)
		b = appendQuestsJSON(b, c.Quests)
	}
	if len(c.Attrs) > 0 {
		b = append(b, `,"attrs":{`...)
		for i, k := range sortedKeys(c.Attrs) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(c.Attrs[k]), 10)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendItemsJSON appends a list of items, as json.Marshal writes a
// []Item (null for a nil one).
func appendItemsJSON(b []byte, items []Item) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItemJSON(b, &items[i])
	}
	return append(b, ']')
}

func appendItemJSON(b []byte, it *Item) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, it.ID, 10)
	b = append(b, `,"proto":`...)
	b = appendJSONString(b, it.Proto)
	if it.Slot != "" {
		b = append(b, `,"slot":`...)
		b = appendJSONString(b, it.Slot)
	}
	if it.Closed {
		b = append(b, `,"closed":true`...)
	}
	if it.Locked {
		b = append(b, `,"locked":true`...)
	}
	if it.Coins != 0 {
		b = appendJSONInt(b, `,"coins":`, it.Coins)
	}
	if it.Kept {
		b = append(b, `,"kept":true`...)
	}
	if len(it.Contents) > 0 {
		b = append(b, `,"contents":`...)
		b = appendItemsJSON(b, it.Contents)
	}
	return append(b, '}')
}

func appendSettingsJSON(b []byte, s *Settings) []byte {
	n := len(b)
	b = append(b, '{')
	field := func(name string) {
		if len(b) > n+1 {
			b = append(b, ',')
		}
		b = append(b, name...)
	}
	if s.Color != "" {
		field(`"color":`)
		b = appendJSONString(b, s.Color)
	}
	if s.ScreenReader {
		field(`"screenreader":true`)
	}
	if s.Brief {
		field(`"brief":true`)
	}
	if s.PvP {
		field(`"pvp":true`)
	}
	if s.Vitals {
		field(`"vitals":true`)
	}
	if s.Prompt != "" {
		field(`"prompt":`)
		b = appendJSONString(b, s.Prompt)
	}
	if s.WizInvis != 0 {
		field(`"wizinvis":`)
		b = strconv.AppendInt(b, int64(s.WizInvis), 10)
	}
	if s.Holylight {
		field(`"holylight":true`)
	}
	return append(b, '}')
}

func appendCommJSON(b []byte, c *Comm) []byte {
	n := len(b)
	b = append(b, '{')
	field := func(name string) {
		if len(b) > n+1 {
			b = append(b, ',')
		}
		b = append(b, name...)
	}
	if len(c.Channels) > 0 {
		field(`"channels":{`)
		for i, k := range sortedKeys(c.Channels) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = strconv.AppendBool(append(b, ':'), c.Channels[k])
		}
		b = append(b, '}')
	}
	if len(c.Ignore) > 0 {
		field(`"ignore":`)
		b = appendStringsJSON(b, c.Ignore)
	}
	if len(c.Aliases) > 0 {
		field(`"aliases":{`)
		for i, k := range sortedKeys(c.Aliases) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = appendJSONString(append(b, ':'), c.Aliases[k])
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendQuestsJSON(b []byte, q *QuestRecord) []byte {
	b = append(b, '{')
	if len(q.Active) > 0 {
		b = append(b, `"active":[`...)
		for i := range q.Active {
			if i > 0 {
				b = append(b, ',')
			}
			p := &q.Active[i]
			b = append(b, `{"id":`...)
			b = appendJSONString(b, p.ID)
			b = appendJSONInt(b, `,"step":`, p.Step)
			if p.Count != 0 {
				b = appendJSONInt(b, `,"count":`, p.Count)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(q.Done) > 0 {
		if len(q.Active) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"done":`...)
		b = appendStringsJSON(b, q.Done)
	}
	return append(b, '}')
}

// appendPlacementJSON appends p's JSON, as json.Marshal(p) writes it.
func appendPlacementJSON(b []byte, p *Placement) []byte {
	n := len(b)
	b = append(b, '{')
	field := func(name, v string) {
		if v == "" {
			return
		}
		if len(b) > n+1 {
			b = append(b, ',')
		}
		b = append(b, name...)
		b = appendJSONString(b, v)
	}
	field(`"zone":`, p.Zone)
	field(`"room":`, p.Room)
	field(`"anchor_zone":`, p.AnchorZone)
	field(`"anchor_room":`, p.AnchorRoom)
	return append(b, '}')
}

func appendStringsJSON(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

func appendJSONInt(b []byte, name string, v int) []byte {
	return strconv.AppendInt(append(b, name...), int64(v), 10)
}

// sortedKeys is a map's keys in the order json.Marshal writes them.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes a JSON string holds as they are: ASCII from
// space up, but for the quote, the backslash and HTML's <, > and &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s quoted as json.Marshal quotes a string: with
// HTML's <, > and & escaped, invalid UTF-8 replaced by U+FFFD, and U+2028
// and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
