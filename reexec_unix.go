//go:build unix

package main

import "syscall"

// execSelf replaces this process with exe: the same process id, so a
// supervisor watching it sees the server go on.
func execSelf(exe string, args, env []string) error { return syscall.Exec(exe, args, env) }

// umask sets the file mode creation mask and returns the old one.
func umask(m int) int { return syscall.Umask(m) }
