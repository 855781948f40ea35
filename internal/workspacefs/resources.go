package workspacefs

import (
	"errors"
	"fmt"
)

// OutOfResources tells whether err is the machine running short (open files,
// memory, disk space) or failing (an I/O error) rather than anything about a file
// or its permissions. Such an error is a failure to report as it is: taken for a
// missing or unreadable input it would give a wrong diagnosis, such as a registry
// glob that matches no file.
func OutOfResources(err error) bool {
	return Explain(err) != err
}

// Explain adds what to do to an error OutOfResources names.
func Explain(err error) error {
	var hint string
	switch {
	case isAny(err, outOfFiles):
		hint = "raise the open-file limit (ulimit -n) and run again"
	case isAny(err, outOfMemory):
		hint = "free memory, or give skillsync a larger memory limit, and run again"
	case isAny(err, outOfDisk):
		hint = "free disk space (or inodes) and run again"
	case isAny(err, ioFailure):
		hint = "the disk or filesystem reported an I/O error; check it and run again"
	default:
		return err
	}
	return fmt.Errorf("%w (%s)", err, hint)
}

func isAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
