//go:build unix

package workspacefs

import (
	"io/fs"
	"os"
	"syscall"
)

// linksOf is the link count stat gives for the file name in root.
func linksOf(_ *os.Root, _ string, info fs.FileInfo) (uint64, error) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), nil
	}
	return 1, nil
}
