//go:build darwin || freebsd

package workspacefs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// filesystemType names the type of the filesystem the open file fd is on, as
// the system names it (f_fstypename: "apfs", "hfs", "msdos", "ufs"…).
func filesystemType(fd uintptr) (string, error) {
	var st unix.Statfs_t
	err := unix.Fstatfs(int(fd), &st)
	for errors.Is(err, unix.EINTR) {
		err = unix.Fstatfs(int(fd), &st)
	}
	if err != nil {
		return "", err
	}
	return unix.ByteSliceToString(st.Fstypename[:]), nil
}
