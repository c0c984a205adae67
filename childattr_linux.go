package main

import (
	"os/exec"
	"syscall"
)

// childAttrs makes the game die with its holder (a game without a holder
// would keep the database and serve nobody), in a process group of its
// own, so that whatever it started is ended with it (reapGroup).
func childAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
}

// checkAttrs is childAttrs for a new binary's pre-flight run: it is killed
// if the holder dies, and its group is ended when it exits.
func checkAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// reapGroup kills what is left of the process group cmd led, once cmd
// has exited: a binary that is not a zonemud (a script that starts
// something in the background) leaves nothing running behind it.
func reapGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
