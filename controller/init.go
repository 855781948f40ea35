package controller

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/starter"
)

// ErrExists means init found a file it would have written.
var ErrExists = errors.New("already exists; init only starts new workspaces")

// Init writes a starter workspace into dir, creating dir if needed. It touches no
// existing file (if one of files is there, it writes none of them) and writes
// nothing outside dir, symlinks included.
func Init(sys workspacefs.System, dir string, files []starter.File) error {
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := openWorkspace(sys, dir)
	if err != nil {
		return err
	}
	defer w.close()
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
		creates = append(creates, &Change{Path: f.Path, Action: Create, New: []byte(f.Content)})
	}
	errs, _ := writeAll(w, creates)
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err))
		}
	}
	return nil
}
