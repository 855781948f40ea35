package workspacefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// Entry is one name in a directory and its type bits (fs.ModeDir, fs.ModeSymlink,
// 0 for a regular file, fs.ModeIrregular for anything else).
type Entry struct {
	Name string
	Type fs.FileMode
}

// readAll reads through read to the end into a buffer sized for size bytes (a
// reader of a whole file keeps no spare capacity), and past limit bytes fails with
// ErrTooLarge. One read usually does it: a byte more than size is asked for, to
// see the end.
func readAll(read func([]byte) (int, error), size, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(size, 0), limit)+1)
	for {
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data)) // the file grew since it was measured
		}
		n, err := read(data[len(data):min(int64(cap(data)), limit+1)])
		if n > 0 {
			data = data[:len(data)+n]
		}
		if err == io.EOF || (err == nil && n == 0) {
			return slices.Clip(data), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ErrLinked is OpenFile's error for a file with more than one hard link.
var ErrLinked = errors.New("a hard link shared with another file")

// ErrNoReplaceUnsupported is RenameNoReplace where renameat2 cannot refuse to replace.
var ErrNoReplaceUnsupported = errors.New("rename without replacing is not supported here")

// ErrNotOneElement is the error for a name that is not one path element.
var ErrNotOneElement = errors.New("not a single path element")

// oneElement refuses a name that would lead out of the directory: only "..", an
// empty name, or a name holding a separator could (on Windows a backslash too,
// and a colon, which names a drive or a file's alternate data stream).
func oneElement(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, elementSeparators) {
		return ErrNotOneElement
	}
	return nil
}

// ErrLockHeld is TryLock's error for a lock another process holds.
var ErrLockHeld = errors.New("locked by another process")

// ErrLinksUnsupported is Link's error where the filesystem has no hard links
// (FAT, some network and FUSE filesystems) or refuses them.
var ErrLinksUnsupported = errors.New("hard links are not supported here")

// linkFailure marks a link error that means the filesystem cannot link at all.
func linkFailure(err error) error {
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, cannot := range linkUnsupportedErrors {
		if errors.Is(err, cannot) {
			return fmt.Errorf("%w: %w", ErrLinksUnsupported, err)
		}
	}
	return err
}
