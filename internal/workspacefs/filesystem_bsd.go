//go:build darwin || freebsd

package workspacefs

import "golang.org/x/sys/unix"

// filesystemType names the type of the filesystem the open file fd is on, as
// the system names it (f_fstypename: "apfs", "hfs", "msdos", "ufs"…).
func filesystemType(fd uintptr) (string, error) {
	st, err := fstatfs(fd)
	if err != nil {
		return "", err
	}
	return unix.ByteSliceToString(st.Fstypename[:]), nil
}
