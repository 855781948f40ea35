package workspacefs

import (
	"errors"
	"io/fs"
	"os"
	"path"
)

// Errors of ReadRegular.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// ReadRegular reads name under root. The last path element is never followed if it
// is a symlink (not even to a file inside root: os.Root follows those despite
// O_NOFOLLOW, so the file is opened from its directory's descriptor), a FIFO or
// device never blocks the read, and nothing past limit bytes is read.
func ReadRegular(root *os.Root, name string, limit int64) ([]byte, error) {
	d, err := OpenDir(root, path.Dir(path.Clean(name)))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadRegular(path.Base(name), limit)
}

// ReadFile is ReadRegular for inputs, which may be symlinks as long as they lead to
// a regular file inside root.
func ReadFile(root *os.Root, name string, limit int64) ([]byte, error) {
	if info, err := root.Stat(name); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	return read(root, name, limit, 0)
}

func read(root *os.Root, name string, limit int64, flags int) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlocking|flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrNotRegular}
	}
	data, err := readAll(f.Read, info.Size(), limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, err
}

// ReadDir lists a directory under root.
func ReadDir(root *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Cause strips the path from a *fs.PathError or *os.LinkError, for messages that
// name the path themselves.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// StampOf is what info says of its file's content, as Dir.Stamp gives it; no
// stamp (Valid false) where the system keeps no change time.
func StampOf(info fs.FileInfo) Stamp { return stampOf(info) }
