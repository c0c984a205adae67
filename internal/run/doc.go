// Package run starts the process's long-lived goroutines, in the manner
// of nats' startGoRoutine: every zone, worker, accept loop, session reader
// and writer and SSH handler of the server is started through a Group.
//
// A Group counts what it started, so its owner's shutdown can wait for
// it, and refuses to start more once closed; every goroutine carries pprof
// labels, so a goroutine profile names what each one is; and the package
// counts every goroutine any Group runs (Live), so a test can assert that
// nothing the process started is left after a shutdown.
//
// A goroutine that is not started here is short-lived and ends with the
// call that made it (a waiter inside Wait), or belongs to a library (the
// standard library's HTTP server, the SSH library's muxes) and ends when
// the connection or listener it serves is closed.
//
// run imports nothing of the project: every layer may use it.
package run
