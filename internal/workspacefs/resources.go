package workspacefs

import (
	"errors"
	"fmt"
	"syscall"
)

// OutOfResources tells whether err is the machine running short (open files,
// memory, disk space) or failing (an I/O error) rather than anything about a file
// or its permissions. Such an error is a failure to report as it is: taken for a
// missing or unreadable input it would give a wrong diagnosis, such as a registry
// glob that matches no file.
func OutOfResources(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.ENOSPC, syscall.EDQUOT, syscall.ENOBUFS, syscall.EIO} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// Explain adds what to do to an error OutOfResources names.
func Explain(err error) error {
	var hint string
	switch {
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		hint = "raise the open-file limit (ulimit -n) and run again"
	case errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.ENOBUFS):
		hint = "free memory, or give skillsync a larger memory limit, and run again"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		hint = "free disk space (or inodes) and run again"
	case errors.Is(err, syscall.EIO):
		hint = "the disk or filesystem reported an I/O error; check it and run again"
	default:
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}
