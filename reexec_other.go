//go:build !unix

package main

import "errors"

// execSelf cannot replace the process here; the supervisor restarts it.
func execSelf(exe string, args, env []string) error {
	return errors.New("this system cannot replace a running process")
}

// umask does nothing here: the holder's sockets take the folder's rights.
func umask(int) int { return 0 }
