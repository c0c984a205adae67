package zone

import (
	"strconv"
	"strings"
)

// Comings and goings in a crowd. In a room with more players than the
// zone's crowd size, the lines that say someone came or went ("Aria has
// entered the world.", "Bran leaves north.") are gathered for up to a
// second (newsEvery) and told as one line each ("Aria, Bran, Cora and 37 others have entered the
// world."). Without this, a thousand players arriving at the start room
// would each be told to everyone already there: a million lines, where a
// summary is a few a second.

// notice is a coming or going in two forms: for one actor, and for many
// ($n becomes the list of names).
type notice struct{ one, many string }

var (
	noticeEntered     = notice{"$n has entered the world.", "$n have entered the world."}
	noticeLeft        = notice{"$n has left the world.", "$n have left the world."}
	noticeLostLink    = notice{"$n has lost $s link.", "$n have lost their links."}
	noticeReconnected = notice{"$n has reconnected.", "$n have reconnected."}
	noticeFades       = notice{"$n fades from the world.", "$n fade from the world."}
	noticeDrifts      = notice{"$n drifts out of the world.", "$n drift out of the world."}
	noticeArrives     = notice{"$n arrives.", "$n arrive."}
	noticeVanishes    = notice{"$n vanishes.", "$n vanish."}
)

// noticeLeaves and noticeArrivesFrom name a direction.
func noticeLeaves(dir string) notice {
	return notice{"$n leaves " + dir + ".", "$n leave " + dir + "."}
}

func noticeArrivesFrom(from string) notice {
	return notice{"$n arrives from " + from + ".", "$n arrive from " + from + "."}
}

// news is what a crowded room has waiting to be told, gathered since the
// last pulse.
type news struct {
	n      notice
	names  []string // the first few actors' names, in order
	count  int
	actors map[*Char]struct{} // not told their own coming or going
}

// newsNames is how many names a summary lists before "and N others".
const newsNames = 3

// crowded reports whether room holds more players than the crowd size,
// where comings and goings are summarised and others' output gathered.
func (z *Zone) crowded(room *Room) bool {
	return room != nil && z.cfg.CrowdSize > 0 && room.nplayers > z.cfg.CrowdSize
}

// presence tells room that actor came or went, as act does; in a crowded
// room it is gathered and told at the next pulse.
func (z *Zone) presence(room *Room, skip, actor *Char, n notice) {
	if room == nil {
		return
	}
	if !z.crowded(room) || z.invisLevel(actor) > 0 {
		// A wizinvis actor is told alone, to those who see it.
		z.lazyOut = true
		z.actSeen(room, skip, actor, n.one)
		z.lazyOut = false
		return
	}
	var w *news
	for _, x := range room.news {
		if x.n == n {
			w = x
			break
		}
	}
	if w == nil {
		w = &news{n: n, actors: map[*Char]struct{}{}}
		if len(room.news) == 0 {
			z.newsRooms = append(z.newsRooms, room)
		}
		room.news = append(room.news, w)
	}
	if len(w.names) < newsNames {
		w.names = append(w.names, capFirst(actor.short()))
	}
	w.count++
	w.actors[actor] = struct{}{}
}

// newsEvery is the least time, in pulses, between two summaries told in
// one room: a second. Told every pulse, a room of thousands with walkers
// coming and going on every side gave each of them a write a pulse.
const newsEvery = 4

// tellNews tells every crowded room what it has waiting, one line per kind
// of notice, if it told none in the last newsEvery pulses. It runs each
// pulse.
func (z *Zone) tellNews() {
	keep := z.newsRooms[:0]
	for _, room := range z.newsRooms {
		if room.newsTold && z.pulses.now-room.newsAt < newsEvery {
			keep = append(keep, room)
			continue
		}
		room.newsAt, room.newsTold = z.pulses.now, true
		z.lazyOut = true
		for _, w := range room.news {
			line := w.line()
			for _, o := range room.people {
				if o.pl == nil || o.pl.sess == nil {
					continue
				}
				if _, own := w.actors[o]; own {
					continue
				}
				z.sendLine(o, line)
			}
		}
		z.lazyOut = false
		clear(room.news)
		room.news = room.news[:0]
	}
	clear(z.newsRooms[len(keep):])
	z.newsRooms = keep
}

// line is the summary: the one-actor form for one, else the names.
func (w *news) line() string {
	if w.count == 1 {
		s := strings.ReplaceAll(w.n.one, "$n", w.names[0])
		return capFirst(strings.ReplaceAll(s, "$s", "their"))
	}
	var who string
	switch others := w.count - len(w.names); {
	case others == 0 && len(w.names) == 2:
		who = w.names[0] + " and " + w.names[1]
	case others == 0:
		who = strings.Join(w.names[:len(w.names)-1], ", ") + " and " + w.names[len(w.names)-1]
	case others == 1:
		who = strings.Join(w.names, ", ") + " and one other"
	default:
		who = strings.Join(w.names, ", ") + " and " + strconv.Itoa(others) + " others"
	}
	return capFirst(strings.ReplaceAll(w.n.many, "$n", who))
}
