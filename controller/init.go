package controller

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ErrExists means init found a file it would have written.
var ErrExists = errors.New("already exists; init only starts new workspaces")

// Init writes a starter workspace into dir, creating dir if needed. It touches no
// existing file and writes nothing outside dir, symlinks included.
func Init(sys workspacefs.System, dir string) ([]string, error) {
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w, err := openWorkspace(sys, dir)
	if err != nil {
		return nil, err
	}
	defer w.close()
	r := w.r
	files := registry.StarterFiles()
	names := make([]string, 0, len(files))
	for _, f := range files {
		_, err := r.Lstat(f.Path)
		if err == nil {
			return nil, fmt.Errorf("%s %w", f.Path, ErrExists)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", f.Path, workspacefs.Cause(err))
		}
		names = append(names, f.Path)
	}
	var creates []*Change
	for _, f := range files {
		creates = append(creates, &Change{Path: f.Path, Action: Create, New: []byte(f.Content)})
	}
	errs, _ := writeAll(w, creates)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err))
		}
	}
	return names, nil
}
