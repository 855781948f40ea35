package starter

import (
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Init writes a starter workspace into dir, creating dir if needed. It touches no
// existing file (if one of files is there, it writes none of them) and writes
// nothing outside dir, symlinks included.
func Init(sys workspacefs.System, dir string, files []apply.NewFile) error {
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := apply.OpenWorkspace(sys, dir)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.CreateAll(files)
	return err
}
