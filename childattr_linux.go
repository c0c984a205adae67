package main

import (
	"os/exec"
	"syscall"
)

// childAttrs makes the game die with its holder: a game without a holder
// would keep the database and serve nobody.
func childAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
