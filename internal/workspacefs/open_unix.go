//go:build unix

package workspacefs

import (
	"errors"
	"syscall"
)

// elementSeparators are the bytes a single path element may not hold.
const elementSeparators = "/"

// nonBlocking keeps an open of a FIFO that was swapped in after a check from
// waiting for a writer.
const nonBlocking = syscall.O_NONBLOCK

// linkUnsupportedErrors are link(2)'s errors for a filesystem without hard links.
var linkUnsupportedErrors = []error{errors.ErrUnsupported, syscall.EPERM, syscall.EXDEV}

// The errors of a machine short of open files, memory or disk, or failing.
var (
	outOfFiles  = []error{syscall.EMFILE, syscall.ENFILE}
	outOfMemory = []error{syscall.ENOMEM, syscall.ENOBUFS}
	outOfDisk   = []error{syscall.ENOSPC, syscall.EDQUOT}
	ioFailure   = []error{syscall.EIO}
)
