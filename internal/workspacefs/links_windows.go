//go:build windows

package workspacefs

import (
	"io/fs"
	"os"
)

// linksOf is the link count of the file name in root: Windows keeps it out of
// a stat, so the file is opened for it.
func linksOf(root *os.Root, name string, _ fs.FileInfo) (uint64, error) {
	f, err := root.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return linkCount(f)
}
