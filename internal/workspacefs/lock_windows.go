//go:build windows

package workspacefs

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the one locked byte lies: far past anything written, since
// Windows locks are mandatory and a lock on the pid the file records would keep
// other processes from reading it.
const lockOffset = 1 << 62

// TryLock takes an exclusive lock on f without waiting: ErrLockHeld if another
// handle holds it. Windows lets go of it when the holder exits.
func TryLock(f *os.File) error {
	var ol windows.Overlapped
	ol.Offset, ol.OffsetHigh = uint32(lockOffset&0xffffffff), uint32(lockOffset>>32)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLockHeld
	}
	return err
}

// Unlock lets go of TryLock's lock.
func Unlock(f *os.File) error {
	var ol windows.Overlapped
	ol.Offset, ol.OffsetHigh = uint32(lockOffset&0xffffffff), uint32(lockOffset>>32)
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
