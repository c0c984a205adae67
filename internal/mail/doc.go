// Package mail holds the rules of in-game mail, which knows nothing of the
// game: what a letter is, how one is written line by line, what may be in
// it and how many a player may keep. The zone drives a Draft with what the
// player types; the world keeps letters in the store (a bucket per
// recipient in the comm bucket, store/comm.go) and tells a recipient who
// is in the world that one came.
//
// The rules:
//
//   - A letter is From, To, At, Subject and Body (lines joined by "\n"),
//     and whether its recipient has read it.
//   - Writing one (mail NAME) takes the subject first (at most
//     MaxSubjectRunes; an empty one is NoSubject), then the body a line at
//     a time (each at most MaxLineRunes, at most MaxLines of them and
//     MaxBodyRunes in all; a line past a bound is refused with a line and
//     the draft goes on). A line that is only End (".") sends it; Abort
//     ("~q") gives it up. An empty body is not sent.
//   - Text is cleaned of control characters (escape codes, bells, line
//     breaks inside a line), of bytes that are not UTF-8 (a telnet IAC
//     that a front let through is one) and of the replacement character,
//     before any bound is counted. Colour markup is the zone's to escape
//     when it shows a letter.
//   - A mailbox holds at most BoxSize letters. A letter to a full box is
//     refused, and the sender told: the oldest letters are kept, never
//     dropped to make room.
package mail
