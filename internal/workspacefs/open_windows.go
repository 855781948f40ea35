//go:build windows

package workspacefs

import (
	"errors"
	"os"
	"syscall"
)

// elementSeparators are the bytes a single path element may not hold: Windows
// takes a backslash as a separator too, and a colon for a drive or a stream.
const elementSeparators = `/\:`

// nonBlocking is 0: Windows has no FIFOs in the filesystem to block on.
const nonBlocking = 0

// linkCount is the number of hard links to the open file f.
func linkCount(f *os.File) (uint64, error) {
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &info); err != nil {
		return 0, err
	}
	return uint64(info.NumberOfLinks), nil
}

// Windows errors that another process holding a file open causes; they pass once
// it lets go. ERROR_ACCESS_DENIED is among them because a rename over a file that
// is open without FILE_SHARE_DELETE reports it.
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
	errorLockViolation    syscall.Errno = 33
)

// sharingViolation tells whether err is one of those.
func sharingViolation(err error) bool {
	return errors.Is(err, errorSharingViolation) || errors.Is(err, errorLockViolation) || errors.Is(err, errorAccessDenied)
}

// linkUnsupportedErrors are CreateHardLink's errors for a filesystem without hard
// links: ERROR_INVALID_FUNCTION on FAT, ERROR_NOT_SAME_DEVICE across volumes.
var linkUnsupportedErrors = []error{errors.ErrUnsupported, syscall.Errno(1), syscall.Errno(17)}

// The errors of a machine short of open handles, memory or disk, or failing:
// ERROR_TOO_MANY_OPEN_FILES; ERROR_NOT_ENOUGH_MEMORY, ERROR_OUTOFMEMORY;
// ERROR_HANDLE_DISK_FULL, ERROR_DISK_FULL, ERROR_DISK_QUOTA_EXCEEDED;
// ERROR_CRC, ERROR_IO_DEVICE.
var (
	outOfFiles  = []error{syscall.Errno(4)}
	outOfMemory = []error{syscall.Errno(8), syscall.Errno(14)}
	outOfDisk   = []error{syscall.Errno(39), syscall.Errno(112), syscall.Errno(1295)}
	ioFailure   = []error{syscall.Errno(23), syscall.Errno(1117)}
)
