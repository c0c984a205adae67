// Package leaktest holds one test in a test binary of its own: a whole
// server started, played on over every front, and shut down, after which
// no goroutine the process started may be left. It is a package of its
// own so that nothing else running in the process can leave goroutines
// the test would blame on the server, or hide one the server left.
package leaktest
