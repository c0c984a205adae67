package zone

import (
	"sync/atomic"
	"time"
)

// A command answered off the zone's goroutine (by a world worker or
// another zone) holds its prompt until the answer is here: clients that
// take the prompt's GA or EOR for "answer complete" (Mudlet triggers,
// scripted clients) see the answer before it. Lines the player types
// meanwhile wait their turn, as they do under lag, so every command's
// answer comes before its own prompt. A held prompt never waits longer
// than answerWait: an answer that never comes does not hang the player.

// answerWait bounds how long a command's prompt waits for its answer.
const answerWait = 30 * time.Second

// answerTokens numbers held prompts across every zone, so an answer that
// follows its player to another zone never releases a prompt held there
// by a later command.
var answerTokens atomic.Uint64

// answerMsg is the answer to a command a player typed. tok names the
// held prompt it releases.
type answerMsg struct {
	to   string
	tok  uint64
	text string
}

func (answerMsg) isMsg() {}

// later holds c's prompt for the answer of the command c is running, and
// returns what gives that answer. The returned function may be called from
// any goroutine, once; empty text only releases the prompt.
func (z *Zone) later(c *Char) func(text string) {
	if z.running == nil || !z.running.async {
		// A command that answers later unmarked would escape the walk
		// over every async command that pins the order of its bytes.
		panic("zone: later called outside a command marked async")
	}
	tok := answerTokens.Add(1)
	c.pl.await = tok
	name, home := c.name, z
	z.pulses.after(uint64(answerWait/PulseInterval), func() {
		if z.holds(c) && c.pl.await == tok {
			z.sendLine(c, "{Y}The answer is taking a while; it will come when it is ready.{x}")
			z.release(c)
		}
	})
	return func(text string) { home.send(answerMsg{to: name, tok: tok, text: text}) }
}

// handleAnswer shows an answer, then the prompt it held.
func (z *Zone) handleAnswer(m answerMsg) {
	c := z.players[m.to]
	if c == nil {
		z.forward(m, m.to) // the player walked on while a worker ran
		return
	}
	if m.text != "" {
		z.sendLine(c, m.text)
	}
	switch {
	case c.pl.await == m.tok:
		z.release(c)
	case m.text != "":
		z.prompt(c)
	}
}

// release ends c's wait for an answer: the prompt goes out, and the lines
// typed meanwhile run, one a pulse.
func (z *Zone) release(c *Char) {
	c.pl.await = 0
	z.prompt(c)
	if c.pl.backlog() {
		z.wake(c)
	}
}

// answerHere gives the answer of a command that meant to answer later
// but has it now (its message could not be sent): the prompt is not held.
func (z *Zone) answerHere(c *Char, text string) {
	c.pl.await = 0
	z.sendLine(c, text)
}
