//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// minOpenFiles is the open-file limit below which skillsync does not start: the Go
// runtime needs a few descriptors for itself, and where it cannot get them it
// aborts instead of reporting an error.
const minOpenFiles = 16

// checkOpenFiles refuses an open-file limit too low to run under. (The runtime has
// already raised the soft limit to the hard one.)
func checkOpenFiles() error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= minOpenFiles {
		return nil
	}
	return fmt.Errorf("the open-file limit is %d, too low to run; raise it to at least %d (ulimit -n)", lim.Cur, minOpenFiles)
}
