//go:build unix && (!linux || skillsync_portable)

package workspacefs

import (
	"os"
	"syscall"
)

// linkCount is the number of hard links to the open file f.
func linkCount(f *os.File) (uint64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), nil
	}
	return 1, nil
}

// sharingViolation is false: on Unix an open file never stands in the way of a
// rename or an unlink.
func sharingViolation(error) bool { return false }
