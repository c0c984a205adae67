package world

import (
	"maps"
	"slices"

	"zonemud/store"
	"zonemud/zone"
)

func toStoreComm(c zone.CommRecord) *store.Comm {
	if len(c.Channels) == 0 && len(c.Ignore) == 0 && len(c.Aliases) == 0 {
		return nil
	}
	return &store.Comm{Channels: maps.Clone(c.Channels), Ignore: slices.Clone(c.Ignore), Aliases: maps.Clone(c.Aliases)}
}

func fromStoreComm(c *store.Comm) zone.CommRecord {
	if c == nil {
		return zone.CommRecord{}
	}
	return zone.CommRecord{Channels: maps.Clone(c.Channels), Ignore: slices.Clone(c.Ignore), Aliases: maps.Clone(c.Aliases)}
}
