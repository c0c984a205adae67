package script

import "errors"

var (
	// ErrCompile marks a script that does not parse or compile; the error
	// text starts with "file:line:" of the area file.
	ErrCompile = errors.New("script: compile error")
	// ErrSwitchedOff is returned by Attach for a script its breaker has
	// switched off; a new Compiled (a content reload) switches it back on.
	ErrSwitchedOff = errors.New("script: switched off after repeated failures")
	// ErrFailed is returned by Attach when the script's chunk failed; the
	// failure itself has been reported through Host.Report.
	ErrFailed = errors.New("script: chunk failed")
	// ErrClosed is returned by Attach on a closed VM.
	ErrClosed = errors.New("script: VM closed")
)
