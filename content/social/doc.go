// Package social owns socials and the act-style formatter they are written
// in: a social is a small table of lines (no target, a target, oneself) in
// which $n, $N, $e, $E, $m, $M, $s and $S stand for the actor, the target
// and their pronouns, as on every Diku.
//
// A Table is built once from the decoded socials file and is immutable
// after New returns, so any goroutine may read it. Nothing here runs a
// goroutine.
//
// This package imports nothing of the project: content holds a Table in
// its Set, and zone formats lines with Act.
package social
