package world

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/queue"
	"zonemud/store"
	"zonemud/zone"
)

// maxHeldTells bounds the tells kept for one player who is away; past it
// the oldest go, and the player is told how many at login.
const maxHeldTells = 20

// commHub is the world's side of talk that spans zones: the fan-out of
// channel lines to zones, and a worker that does the store work of
// channels and tells (history, tells kept for the absent) in the order
// it was asked for, off every zone goroutine. Channel lines queued
// together are written in one transaction. The worker runs only while
// there is work: an idle world keeps no goroutine for it.
type commHub struct {
	jobs    *queue.Queue[commJob] // set by init
	running atomic.Bool           // a worker is draining jobs
}

// commJob is one piece of store work: a history line to keep, or fn.
type commJob struct {
	line *store.ChannelAppend
	fn   func()
}

func (h *commHub) init() { h.jobs = queue.New(queue.Options[commJob]{KeepCap: 1024}) }

// Comm is the world's side of channels and tells (zone.Shard).
func (w *World) Comm() zone.Comm { return commAPI{w} }

type commAPI struct{ w *World }

// push queues a job for the comm worker, starting one if none runs. It
// reports false if the world is stopping and the job will not run.
func (h *commHub) push(w *World, j commJob) bool {
	if h.jobs.Push(j) != nil {
		return false
	}
	if !h.running.CompareAndSwap(false, true) {
		return true // the running worker takes it
	}
	if _, ok := w.gr.Go(w.ctx, func(context.Context) { h.run(w) }, "world", "comm"); !ok {
		h.jobs.Close()
		h.running.Store(false)
		return false
	}
	return true
}

// run does the queued jobs until there are none. A job pushed as it
// stops either sees it running (and is taken here) or starts the next.
func (h *commHub) run(w *World) {
	for {
		h.drain(w)
		h.running.Store(false)
		if h.jobs.Len() == 0 || !h.running.CompareAndSwap(false, true) {
			return
		}
	}
}

func (h *commHub) drain(w *World) {
	jobs := h.jobs.Pop()
	var lines []store.ChannelAppend
	flush := func() {
		if len(lines) == 0 {
			return
		}
		if err := w.db.AppendChannelLines(lines); err != nil {
			w.log.Error("world: channel lines were not kept in history", logev.ID(4901), "lines", len(lines), "err", err)
		}
		lines = lines[:0]
	}
	for _, j := range jobs {
		if j.line != nil {
			lines = append(lines, *j.line)
			continue
		}
		// Work that reads what earlier lines wrote sees them.
		flush()
		j.fn()
	}
	flush()
	h.jobs.Recycle(jobs)
}

// Channel keeps l in its channel's history and sends it once to every
// zone but from that holds residents. No zone's players are touched
// here: each zone delivers to its own.
func (c commAPI) Channel(l *zone.ChannelLine, from *zone.Zone) {
	w := c.w
	if l.Keep > 0 {
		w.comm.push(w, commJob{line: &store.ChannelAppend{
			Channel: l.Channel, Keep: l.Keep,
			Line: store.ChannelLine{At: l.At.Unix(), From: l.From, Text: l.Text},
		}})
	}
	w.routeMu.RLock()
	defer w.routeMu.RUnlock()
	for _, h := range w.hosts {
		if h.z != from && h.refs.Load() > 0 {
			h.z.DeliverChannel(l)
		}
	}
}

func (c commAPI) History(channel string, n int, done func([]zone.HistoryLine, error)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		lines, err := w.db.ChannelHistory(channel, n)
		out := make([]zone.HistoryLine, 0, len(lines))
		for _, l := range lines {
			out = append(out, zone.HistoryLine{At: time.Unix(l.At, 0), From: l.From, Text: l.Text})
		}
		done(out, err)
	}})
	if !ok {
		done(nil, errors.New("world: stopping"))
	}
}

func (c commAPI) KeepTell(from, to, text string, done func(string)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		waiting, dropped, err := w.db.KeepTell(to, store.Tell{At: time.Now().Unix(), From: from, Text: text}, maxHeldTells)
		switch {
		case errors.Is(err, store.ErrNotFound):
			done("There is no player called " + to + ".")
			return
		case err != nil:
			w.log.Error("world: a tell was not kept", logev.ID(4902), logev.Player(to), "err", err)
			done("Your tell to " + to + " could not be kept; try again later.")
			return
		}
		reply := fmt.Sprintf("%s is not in the world; your tell is kept for them (%d waiting).", to, waiting)
		if dropped > 0 {
			reply += fmt.Sprintf(" Their box holds %d, so the oldest went.", maxHeldTells)
		}
		done(reply)
		// A login that took the tells before this one was kept would
		// leave it waiting for the next: hand it over now.
		if w.Where(to) != nil {
			c.deliverHeld(to)
		}
	}})
	if !ok {
		done("The world is stopping; your tell to " + to + " was not kept.")
	}
}

func (c commAPI) Arrived(name string) {
	w := c.w
	w.comm.push(w, commJob{fn: func() {
		c.deliverHeld(name)
		c.tellNewMail(name)
	}})
}

// deliverHeld takes the tells kept for name and sends them to the zone
// that holds the player; if none does any more, it keeps them again.
// Comm worker only.
func (c commAPI) deliverHeld(name string) {
	w := c.w
	tells, dropped, err := w.db.TakeTells(name)
	if err != nil {
		w.log.Error("world: kept tells could not be read", logev.ID(4902), logev.Player(name), "err", err)
		return
	}
	if len(tells) == 0 && dropped == 0 {
		return
	}
	held := make([]zone.HeldTell, len(tells))
	for i, t := range tells {
		held[i] = zone.HeldTell{At: time.Unix(t.At, 0), From: t.From, Text: t.Text}
	}
	if z := w.Where(name); z != nil && z.DeliverHeldTells(name, held, dropped) {
		return
	}
	for _, t := range tells {
		if _, _, err := w.db.KeepTell(name, t, maxHeldTells); err != nil {
			w.log.Error("world: a kept tell was lost", logev.ID(4902), logev.Player(name), "err", err)
		}
	}
}
