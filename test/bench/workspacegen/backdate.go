package workspacegen

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
)

// Backdate sets the modification time of everything in the workspace dir outside
// the directories skillsync writes (client directories and .skillsync/) to an hour
// ago: inputs saved long before a run, whose deletes need not wait for them to settle.
func Backdate(dir string) error {
	written := map[string]bool{}
	for _, out := range registry.OutputDirs() {
		written[strings.SplitN(out, "/", 2)[0]] = true
	}
	old := time.Now().Add(-time.Hour)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && written[d.Name()] {
			return filepath.SkipDir
		}
		return os.Chtimes(p, old, old)
	})
}
