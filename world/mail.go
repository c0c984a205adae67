package world

import (
	"errors"
	"fmt"
	"time"

	"zonemud/internal/logev"
	"zonemud/internal/mail"
	"zonemud/store"
)

// Mail is kept by the comm worker, in the order it was asked for, off
// every zone goroutine. A recipient who is in the world is told a letter
// came by a notice to the zone that holds them: the world never touches
// another zone's players.

// newMailLine is what a player is told when a letter is waiting.
const newMailLine = "{Y}You have new mail.{x}"

// mailErr turns a store error into the mail package's.
func mailErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return mail.ErrNoLetter
	case errors.Is(err, store.ErrFull):
		return mail.ErrFull
	}
	return err
}

func (c commAPI) MailTo(to string, done func(error)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		_, err := w.db.MailboxRoom(to, mail.BoxSize)
		if errors.Is(err, store.ErrNotFound) {
			err = mail.ErrNoSuchPlayer
		}
		done(mailErr(err))
	}})
	if !ok {
		done(errors.New("world: stopping"))
	}
}

func (c commAPI) SendLetter(l mail.Letter, done func(reply string)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		if err := mail.Check(l); err != nil {
			done("That letter breaks the rules of mail; it was not sent.")
			return
		}
		_, err := w.db.PostLetter(l.To, store.Letter{At: l.At.Unix(), From: l.From, Subject: l.Subject, Body: l.Body}, mail.BoxSize)
		switch {
		case errors.Is(err, store.ErrNotFound):
			done("There is no player called " + l.To + "; your letter was not sent.")
			return
		case errors.Is(err, store.ErrFull):
			done(fmt.Sprintf("%s's mailbox is full (%d letters); your letter was not sent.", l.To, mail.BoxSize))
			return
		case err != nil:
			w.log.Error("world: a letter was not kept", logev.ID(4903), logev.Player(l.To), "err", err)
			done("Your letter to " + l.To + " could not be sent; try again later.")
			return
		}
		done("Your letter to " + l.To + " is sent.")
		if z := w.Where(l.To); z != nil {
			z.Notice(l.To, newMailLine)
		}
	}})
	if !ok {
		done("The world is stopping; your letter to " + l.To + " was not sent.")
	}
}

func (c commAPI) Letters(name string, done func([]mail.Letter, error)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		ls, err := w.db.Letters(name)
		out := make([]mail.Letter, len(ls))
		for i, l := range ls {
			out[i] = fromStoreLetter(name, l)
		}
		done(out, mailErr(err))
	}})
	if !ok {
		done(nil, errors.New("world: stopping"))
	}
}

func (c commAPI) ReadLetter(name string, n int, done func(mail.Letter, error)) {
	c.letter(name, n, done, c.w.db.ReadLetter)
}

func (c commAPI) DeleteLetter(name string, n int, done func(mail.Letter, error)) {
	c.letter(name, n, done, c.w.db.DeleteLetter)
}

func (c commAPI) letter(name string, n int, done func(mail.Letter, error), op func(string, int) (store.Letter, error)) {
	w := c.w
	ok := w.comm.push(w, commJob{fn: func() {
		l, err := op(name, n)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			w.log.Error("world: a mailbox could not be read", logev.ID(4903), logev.Player(name), "err", err)
		}
		done(fromStoreLetter(name, l), mailErr(err))
	}})
	if !ok {
		done(mail.Letter{}, errors.New("world: stopping"))
	}
}

func fromStoreLetter(to string, l store.Letter) mail.Letter {
	return mail.Letter{From: l.From, To: to, At: time.Unix(l.At, 0), Subject: l.Subject, Body: l.Body, Read: l.Read}
}

// tellNewMail tells a player who just came into the world that letters
// are waiting, if any are unread. Comm worker only.
func (c commAPI) tellNewMail(name string) {
	w := c.w
	n, err := w.db.UnreadLetters(name)
	if err != nil {
		w.log.Error("world: a mailbox could not be read", logev.ID(4903), logev.Player(name), "err", err)
		return
	}
	if n == 0 {
		return
	}
	if z := w.Where(name); z != nil {
		z.Notice(name, newMailLine)
	}
}
