package zone

import "time"

// Test bridges for the output path: batches, the gap, the flush list.

// flushNowForTest flushes every player, gap or not: tests that drive the
// zone by hand see every line at once, as a player does a gap later.
func (z *Zone) flushNowForTest() {
	for _, c := range z.flushList {
		if c.pl != nil && !c.pl.urgent {
			c.pl.urgent = true
			z.urgentList = append(z.urgentList, c)
		}
	}
	for _, w := range z.flushWait {
		if c := w.c; c.pl != nil && c.pl.queued && !c.pl.urgent {
			c.pl.urgent = true
			z.urgentList = append(z.urgentList, c)
		}
	}
	z.flush()
}

// SetFlushGapForTest sets the least time between two flushes of output a
// player did not ask for.
func (z *Zone) SetFlushGapForTest(d time.Duration) { z.gap = d }

// FlushDueForTest is when the zone's waiting output is due; zero if none.
func (z *Zone) FlushDueForTest() time.Time { return z.flushDue }

// QueueInputForTest puts a line in the inbox without handling it, as a
// session does while the zone is busy. The inbox must have room.
func (z *Zone) QueueInputForTest(s Session, seq uint64, line string) {
	select {
	case z.inbox <- inputMsg{sess: s, seq: seq, line: line}:
	default:
		panic("QueueInputForTest: the inbox is full")
	}
}

// BatchForTest runs one turn of Run on what the inbox holds: one batch,
// then the flush (the gap applies).
func (z *Zone) BatchForTest() {
	select {
	case m := <-z.inbox:
		z.batch(m)
	default:
		z.batch(nil)
	}
	z.flush()
}

// WaitingConsistentForTest reports whether the zone's count of players with
// output waiting matches its players.
func (z *Zone) WaitingConsistentForTest() bool {
	n := 0
	for _, c := range z.players {
		if c.pl.queued {
			n++
		}
	}
	return n == z.waiting
}

// SetCrowdSizeForTest sets the room size past which others' output waits
// out the gap.
func (z *Zone) SetCrowdSizeForTest(n int) { z.cfg.CrowdSize = n }

// WaitEntriesForTest counts the players the zone's flush list and heap
// still name, without reading any of them.
func (z *Zone) WaitEntriesForTest() int {
	n := len(z.flushList)
	for _, w := range z.flushWait {
		if w.c != nil {
			n++
		}
	}
	return n
}

// DrainWithGapForTest handles whatever is on the mailbox, then flushes as
// Run does (the gap applies).
func (z *Zone) DrainWithGapForTest() {
	z.drainMail()
	z.flush()
}
