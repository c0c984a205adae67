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

func toStoreQuests(q zone.QuestRecord) *store.QuestRecord {
	if len(q.Active) == 0 && len(q.Done) == 0 {
		return nil
	}
	out := &store.QuestRecord{Done: slices.Clone(q.Done)}
	for _, p := range q.Active {
		out.Active = append(out.Active, store.QuestProgress(p))
	}
	return out
}

func fromStoreQuests(q *store.QuestRecord) zone.QuestRecord {
	if q == nil {
		return zone.QuestRecord{}
	}
	out := zone.QuestRecord{Done: slices.Clone(q.Done)}
	for _, p := range q.Active {
		out.Active = append(out.Active, zone.QuestProgress(p))
	}
	return out
}
