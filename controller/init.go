package controller

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ErrExists means a command that only creates files found one there.
var ErrExists = errors.New("already exists; nothing was written")

// NewFile is a file a command creates.
type NewFile struct {
	Path    string
	Content []byte
}

// Init writes a starter workspace into dir, creating dir if needed. It touches no
// existing file (if one of files is there, it writes none of them) and writes
// nothing outside dir, symlinks included.
func Init(sys workspacefs.System, dir string, files []NewFile) error {
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := openWorkspace(sys, dir)
	if err != nil {
		return err
	}
	defer w.close()
	return createAll(w, files)
}

// createAll creates every one of files, or, when one is there already or cannot
// be written, none: those it created are removed again.
func createAll(w workspaceDirs, files []NewFile) error {
	for _, f := range files {
		_, err := w.r.Lstat(f.Path)
		if err == nil {
			return fmt.Errorf("%s %w", f.Path, ErrExists)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", f.Path, workspacefs.Cause(err))
		}
	}
	var creates []*Change
	for _, f := range files {
		creates = append(creates, &Change{Path: f.Path, Action: Create, New: f.Content})
	}
	errs, _ := writeAll(w, creates)
	for i, err := range errs {
		if err != nil {
			uncreate(w, files)
			return fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err))
		}
	}
	return nil
}

// uncreate removes each of files that still holds exactly what was created.
func uncreate(w workspaceDirs, files []NewFile) {
	for _, f := range files {
		if data, err := w.r.ReadRegular(f.Path, int64(len(f.Content))+1); err == nil && string(data) == string(f.Content) {
			w.r.Remove(f.Path)
		}
	}
}
