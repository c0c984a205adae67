package mail

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The bounds of a mailbox and of a letter.
const (
	BoxSize         = 50   // letters one mailbox holds
	MaxSubjectRunes = 60   // a subject
	MaxLineRunes    = 200  // one line of a body
	MaxLines        = 60   // lines of a body
	MaxBodyRunes    = 4000 // a body, its line breaks counted
)

// End on a line of its own sends a letter; Abort gives it up.
const (
	End   = "."
	Abort = "~q"
)

// NoSubject is the subject of a letter written without one.
const NoSubject = "(no subject)"

// Errors the keeper of letters answers with.
var (
	ErrNoSuchPlayer = errors.New("mail: no such player")
	ErrFull         = errors.New("mail: mailbox full")
	ErrNoLetter     = errors.New("mail: no such letter")
)

// Letter is one letter.
type Letter struct {
	From, To string
	At       time.Time
	Subject  string
	Body     string
	Read     bool
}

// Clean is s with every control character, byte that is not UTF-8 and
// replacement character taken out, and spaces trimmed at both ends.
func Clean(s string) string {
	return strings.TrimSpace(clean(s))
}

func clean(s string) string {
	ok := utf8.ValidString(s)
	for _, r := range s {
		if !keep(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n <= 1 {
			continue // not UTF-8: an IAC or a stray byte
		}
		if keep(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keep reports whether r may stand in a letter's line.
func keep(r rune) bool {
	if r == '\t' {
		return true
	}
	return !unicode.IsControl(r) && r != '\u2028' && r != '\u2029' && r != utf8.RuneError
}

// Step is what one line did to a draft.
type Step int

const (
	// Took: the line was taken (the subject, or a line of the body).
	Took Step = iota
	// Refused: the line was not taken, for the reason Feed gives; the
	// draft goes on.
	Refused
	// Send: the letter is done (End); Letter gives it.
	Send
	// Aborted: the player gave the letter up.
	Aborted
)

// Draft is a letter being written. The zero value is not ready: use
// NewDraft.
type Draft struct {
	from, to   string
	subject    string
	hasSubject bool
	lines      []string
	runes      int // of the body, line breaks counted
}

// NewDraft starts a letter from one player to another.
func NewDraft(from, to string) *Draft { return &Draft{from: from, to: to} }

// To is whom the letter is for.
func (d *Draft) To() string { return d.to }

// HasSubject reports whether the subject is written, so the next line is
// the body's.
func (d *Draft) HasSubject() bool { return d.hasSubject }

// Lines is how many body lines are written.
func (d *Draft) Lines() int { return len(d.lines) }

// Feed takes one line the player typed, and says what it did; for
// Refused, why, in a line for the player.
func (d *Draft) Feed(line string) (Step, string) {
	switch strings.TrimSpace(line) {
	case Abort:
		return Aborted, ""
	case End:
		if !d.hasSubject || len(d.body()) == 0 {
			return Refused, "Your letter has nothing in it yet: write a line, or " + Abort + " to give it up."
		}
		return Send, ""
	}
	if !d.hasSubject {
		s := Clean(line)
		if n := utf8.RuneCountInString(s); n > MaxSubjectRunes {
			return Refused, fmt.Sprintf("A subject is %d characters at most (that one is %d); type a shorter one.", MaxSubjectRunes, n)
		}
		if s == "" {
			s = NoSubject
		}
		d.subject, d.hasSubject = s, true
		return Took, ""
	}
	s := strings.TrimRightFunc(clean(line), unicode.IsSpace)
	n := utf8.RuneCountInString(s)
	switch {
	case n > MaxLineRunes:
		return Refused, fmt.Sprintf("A line of a letter is %d characters at most (that one is %d); it was not taken.", MaxLineRunes, n)
	case len(d.lines) >= MaxLines:
		return Refused, fmt.Sprintf("A letter is %d lines at most: type %s to send it or %s to give it up.", MaxLines, End, Abort)
	case d.runes+n+1 > MaxBodyRunes:
		return Refused, fmt.Sprintf("A letter is %d characters at most: that line would not fit. Type %s to send it or %s to give it up.", MaxBodyRunes, End, Abort)
	}
	d.lines = append(d.lines, s)
	d.runes += n + 1
	return Took, ""
}

// body is the body's lines without the blank ones at either end.
func (d *Draft) body() []string {
	l := d.lines
	for len(l) > 0 && strings.TrimSpace(l[0]) == "" {
		l = l[1:]
	}
	for len(l) > 0 && strings.TrimSpace(l[len(l)-1]) == "" {
		l = l[:len(l)-1]
	}
	return l
}

// Letter is the letter written, sent at at.
func (d *Draft) Letter(at time.Time) Letter {
	return Letter{From: d.from, To: d.to, At: at, Subject: d.subject, Body: strings.Join(d.body(), "\n")}
}

// Check says whether a letter, from wherever it came, keeps the rules:
// nil if it does. The keeper of letters checks every letter with it.
func Check(l Letter) error {
	switch {
	case l.From == "" || l.To == "":
		return errors.New("mail: a letter needs a sender and a recipient")
	case l.Subject == "" || utf8.RuneCountInString(l.Subject) > MaxSubjectRunes || Clean(l.Subject) != l.Subject:
		return errors.New("mail: the subject breaks the rules")
	case l.Body == "" || utf8.RuneCountInString(l.Body) > MaxBodyRunes:
		return errors.New("mail: the body is empty or too long")
	}
	lines := strings.Split(l.Body, "\n")
	if len(lines) > MaxLines {
		return errors.New("mail: the body has too many lines")
	}
	for _, s := range lines {
		if utf8.RuneCountInString(s) > MaxLineRunes || clean(s) != s {
			return errors.New("mail: a line of the body breaks the rules")
		}
	}
	return nil
}
