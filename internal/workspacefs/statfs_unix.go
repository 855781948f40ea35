//go:build linux || darwin || freebsd

package workspacefs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// fstatfs describes the filesystem the open file fd is on, asking again when a
// signal interrupts the call.
func fstatfs(fd uintptr) (unix.Statfs_t, error) {
	var st unix.Statfs_t
	err := unix.Fstatfs(int(fd), &st)
	for errors.Is(err, unix.EINTR) {
		err = unix.Fstatfs(int(fd), &st)
	}
	return st, err
}
