//go:build !linux

package main

import "os/exec"

// childAttrs: elsewhere the game notices its holder is gone when the link
// ends, and stops.
func childAttrs(cmd *exec.Cmd) {}

// checkAttrs: a pre-flight run is bounded by its context.
func checkAttrs(cmd *exec.Cmd) {}

// reapGroup: process groups are left to the system elsewhere.
func reapGroup(cmd *exec.Cmd) {}
