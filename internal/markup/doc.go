// Package markup owns colour: the markup builders and code write, the
// colour level a client renders, and the rendering of one to the other.
// A code is a brace pair:
//
//	{r} {g} {y} {b} {m} {c} {w} {k}   dark red, green, yellow, blue, magenta, cyan, white, black
//	{R} {G} {Y} {B} {M} {C} {W} {K}   the bright ones
//	{#ff8800}                          any colour; downsampled for clients that lack truecolor
//	{x}                                back to normal
//	{{                                 a literal {
//
// Anything else in braces is left as written, so a stray brace in prose
// never eats text.
//
// The Level is one type from the client's report to the encoder: the
// telnet options derive it from TTYPE and MTTS, the gate's connections
// report it, the zone reads it in ClientInfo and overrides it with
// `color`, and the session's writer renders at it. It imports nothing of
// the game.
package markup
