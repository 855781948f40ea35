package state

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// IndexFile is what the last one-shot pass that found nothing to do found, with
// the stamps (size, times, inode) of every file and directory it read, in the
// manner of git's index: a pass that finds every stamp as it was answers the same
// without reading anything.
const IndexFile = Dir + "/index"

// maxIndexSize bounds the index read back; one for tens of thousands of files is
// a few megabytes.
const maxIndexSize = 64 << 20

// ReadIndex returns the index; nil when there is none, or it cannot be read (it
// is only ever a cache).
func ReadIndex(r workspacefs.FS) []byte {
	data, err := r.ReadRegular(IndexFile, maxIndexSize)
	if err != nil {
		return nil
	}
	return data
}

// WriteIndex replaces the index with data, in a .skillsync/ that exists: a pass
// that found nothing to do makes no directory for its cache.
func WriteIndex(r workspacefs.FS, data []byte) error {
	info, err := r.Lstat(Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", Dir)
	}
	return replaceFile(r, IndexFile, data)
}

// RemoveIndex removes the index, which no longer holds.
func RemoveIndex(r workspacefs.FS) {
	r.Remove(IndexFile)
}
