// Package circle reads a CircleMUD or tbaMUD world (the lib/world folder
// of .wld, .mob, .obj, .zon, .shp and .trg files, or one zone's files) and
// writes it as zonemud areas: one TOML file per zone in the schema of
// package content, a game.toml, and IMPORT.md, the report of everything
// that did not convert as written.
//
// Reading follows the files as their engine reads them: tilde-terminated
// strings, '#' records, 'S' and '$' terminators, numeric and letter
// bitvectors, the four-field (128-bit) flag lines of tbaMUD beside the
// one-field lines of CircleMUD, and the E, A and T sections. A record that
// does not read is refused with its file, its line and what was expected
// there, and the import goes on with the next record; a file that is not
// UTF-8 is taken as Latin-1. Nothing here panics on bad input.
//
// Conversion maps each source feature to the nearest zonemud feature and
// notes, with the source file and line, every field, flag or value it
// dropped or approximated and every reference to something that does not
// exist, which it leaves out of the output rather than failing.
//
// The package writes files and starts no goroutines. It imports only
// package content, for its names and limits.
package circle
