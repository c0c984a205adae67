//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"fmt"
	"syscall"
)

// raiseFileLimit raises the soft limit on open files to the hard limit and
// returns the limit now in force.
func raiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("loadbot: getrlimit: %w", err)
	}
	if lim.Cur >= lim.Max {
		return uint64(lim.Cur), nil
	}
	want := lim
	want.Cur = want.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return uint64(lim.Cur), fmt.Errorf("loadbot: setrlimit to %d: %w", want.Max, err)
	}
	return uint64(want.Cur), nil
}
