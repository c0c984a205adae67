package zone

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"zonemud/internal/mail"
	"zonemud/internal/markup"
)

const mailUsage = "mail [<player> | read <n> | delete <n>]\n" +
	"  Letters to other players, kept until their owner throws them away.\n" +
	"  mail alone lists yours, new ones marked; mail read 2 shows the second\n" +
	"  and mail delete 2 throws it away. mail bran writes to Bran: the first\n" +
	"  line you type is the subject, then the body a line at a time. A line\n" +
	"  of only . sends the letter; ~q gives it up. A mailbox holds 50\n" +
	"  letters: one that is full takes no more until its owner deletes some."

// A letter is written anywhere, as on Evennia's games (tbaMUD asks for a
// post office): mail NAME checks that the player exists and has room,
// then every line the writer types goes to the draft (composeLine) until
// . sends it or ~q gives it up. The store work is the world's, off this
// goroutine; each answer comes before its prompt.

// draftMsg starts a letter once the world said its recipient may have
// one; answer releases the prompt mail NAME held.
type draftMsg struct {
	to, recipient string
	answer        func(string)
}

func (draftMsg) isMsg() {}

// cmdMail lists, reads, deletes or starts a letter.
func (z *Zone) cmdMail(c *Char, args string) {
	if c.pl == nil {
		return
	}
	word, rest := firstWord(strings.TrimSpace(args))
	me := c.name
	switch strings.ToLower(word) {
	case "":
		answer := z.later(c)
		z.shard.Comm().Letters(me, func(ls []mail.Letter, err error) { answer(mailList(ls, err)) })
		return
	case "read", "delete":
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || n < 1 {
			z.sendLine(c, "Which letter? mail "+strings.ToLower(word)+" <n>, where mail alone lists them by number.")
			return
		}
		answer := z.later(c)
		if strings.EqualFold(word, "read") {
			z.shard.Comm().ReadLetter(me, n, func(l mail.Letter, err error) { answer(mailRead(n, l, err)) })
		} else {
			z.shard.Comm().DeleteLetter(me, n, func(l mail.Letter, err error) { answer(mailDeleted(n, l, err)) })
		}
		return
	}
	if !validPlayerName(word) {
		z.sendLine(c, "There is no player by that name. (mail <player> writes a letter.)")
		return
	}
	if rest != "" {
		z.sendLine(c, "Just the name: mail "+strings.ToLower(word)+". The subject comes on the next line.")
		return
	}
	to := normalName(word)
	answer, home := z.later(c), z
	z.shard.Comm().MailTo(to, func(err error) {
		switch {
		case err == nil:
			home.send(draftMsg{to: me, recipient: to, answer: answer})
		case errors.Is(err, mail.ErrNoSuchPlayer):
			answer("There is no player called " + to + ".")
		case errors.Is(err, mail.ErrFull):
			answer(fmt.Sprintf("%s's mailbox is full (%d letters); it takes no more until they delete some.", to, mail.BoxSize))
		default:
			answer("The post is closed for now; try again later.")
		}
	})
}

// handleDraft starts the letter, here or where the writer went.
func (z *Zone) handleDraft(m draftMsg) {
	c := z.players[m.to]
	if c == nil || c.pl == nil {
		if !z.forward(m, m.to) {
			m.answer("")
		}
		return
	}
	c.pl.draft = mail.NewDraft(c.name, m.recipient)
	m.answer(fmt.Sprintf("You write a letter to %s. Type its subject first, then the body a line at a time.\nA line of only %s sends it; %s gives it up.", m.recipient, mail.End, mail.Abort))
}

// composeLine gives one line the writer typed to their letter.
func (z *Zone) composeLine(c *Char, line string) {
	d := c.pl.draft
	hadSubject := d.HasSubject()
	st, why := d.Feed(line)
	switch st {
	case mail.Refused:
		z.sendLine(c, why)
	case mail.Aborted:
		c.pl.draft = nil
		z.sendLine(c, "You give up your letter to "+d.To()+".")
	case mail.Took:
		if !hadSubject {
			z.sendLine(c, "Now the body; a line of only "+mail.End+" sends it.")
		}
	case mail.Send:
		c.pl.draft = nil
		prev := z.running
		z.running = mailCommand()
		answer := z.later(c)
		z.running = prev
		z.shard.Comm().SendLetter(d.Letter(time.Now()), answer)
	}
}

// mailCommand is the mail command's entry in the table.
func mailCommand() *command {
	for i := range commands {
		if commands[i].name == "mail" {
			return &commands[i]
		}
	}
	panic("zone: no mail command")
}

// mailList is the lines of a mailbox's listing. Off the zone goroutine:
// it reads only its arguments.
func mailList(ls []mail.Letter, err error) string {
	switch {
	case err != nil:
		return "The post is closed for now; try again later."
	case len(ls) == 0:
		return "You have no mail."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your mailbox holds %s (%d at most):", count(len(ls), "letter"), mail.BoxSize)
	for i, l := range ls {
		mark := "   "
		if !l.Read {
			mark = "new"
		}
		fmt.Fprintf(&b, "\n  %2d  %s  %s  %-12s %s", i+1, mark, l.At.UTC().Format("Jan _2 15:04"), l.From, markup.Escape(l.Subject))
	}
	b.WriteString("\nType mail read <n> to read one.")
	return b.String()
}

func mailRead(n int, l mail.Letter, err error) string {
	switch {
	case errors.Is(err, mail.ErrNoLetter):
		return fmt.Sprintf("You have no letter %d.", n)
	case err != nil:
		return "The post is closed for now; try again later."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Letter %d, from %s, %s UTC\nSubject: %s\n", n, l.From, l.At.UTC().Format("Jan _2 15:04"), markup.Escape(l.Subject))
	for _, line := range strings.Split(l.Body, "\n") {
		b.WriteString("\n" + markup.Escape(line))
	}
	return b.String()
}

func mailDeleted(n int, l mail.Letter, err error) string {
	switch {
	case errors.Is(err, mail.ErrNoLetter):
		return fmt.Sprintf("You have no letter %d.", n)
	case err != nil:
		return "The post is closed for now; try again later."
	}
	return fmt.Sprintf("You throw away letter %d, from %s (%s).", n, l.From, markup.Escape(l.Subject))
}
