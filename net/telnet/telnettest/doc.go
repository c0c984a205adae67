// Package telnettest reads the byte notation and the conformance transcripts
// of net/telnet (testdata/transcripts, described in the README there), so
// that the codec's tests and the end-to-end tests of the server replay the
// same files. It is for tests only: nothing outside _test.go files imports
// it.
//
// It imports only the standard library and must not import other zonemud
// packages: net/telnet's internal tests import it, and an import of
// net/telnet here would make a cycle. It therefore keeps its own table of
// names, which net/telnet's tests check against that package's constants.
package telnettest
