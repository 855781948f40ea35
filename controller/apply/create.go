package apply

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// ErrExists means a command that only creates files found one there.
var ErrExists = errors.New("already exists; nothing was written")

// NewFile is a file a command creates.
type NewFile struct {
	Path    string
	Content []byte
}

// CreateAll creates every one of files, or, when one is there already or cannot
// be written, none: those it created are removed again.
func (w Workspace) CreateAll(files []NewFile) error {
	for _, f := range files {
		_, err := w.r.Lstat(f.Path)
		if err == nil {
			return fmt.Errorf("%s %w", f.Path, ErrExists)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", f.Path, workspacefs.Cause(err))
		}
	}
	var creates []*plan.Change
	for _, f := range files {
		creates = append(creates, &plan.Change{Path: f.Path, Action: plan.Create, New: f.Content})
	}
	errs, _ := w.WriteAll(creates)
	for i, err := range errs {
		if err != nil {
			w.Uncreate(files)
			return fmt.Errorf("write %s: %w", creates[i].Path, workspacefs.Cause(err))
		}
	}
	return nil
}

// Uncreate removes each of files that still holds exactly what was created.
func (w Workspace) Uncreate(files []NewFile) {
	for _, f := range files {
		if data, err := w.r.ReadRegular(f.Path, int64(len(f.Content))+1); err == nil && string(data) == string(f.Content) {
			w.r.Remove(f.Path)
		}
	}
}
