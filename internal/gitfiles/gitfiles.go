package gitfiles

import (
	"path/filepath"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The files, each in a target directory, naming generated files by their paths
// from there (desired writes the lists). A scan reads them in skill directories
// too, so that those earlier versions wrote there are pruned.
const (
	// Ignore makes git ignore the files skillsync writes, itself included.
	Ignore = ".gitignore"
	// Attributes marks the files skillsync writes, itself included, as Generated.
	Attributes = ".gitattributes"
	// Generated is the attribute GitHub and other review tools collapse in diffs.
	Generated = "linguist-generated=true"
)

// Names are the files this package knows, for a scan to look for.
var Names = []string{Ignore, Attributes}

// InWorkTree says dir is inside a git work tree: it or a directory above it holds
// .git (a directory, or the file a linked worktree or submodule has). It reads
// through sys, like every other read of the disk.
func InWorkTree(sys workspacefs.System, dir string) bool {
	_, ok := WorkTreeRoot(sys, dir)
	return ok
}

// WorkTreeRoot is the absolute path of the nearest directory at or above dir
// that holds .git, and whether there is one.
func WorkTreeRoot(sys workspacefs.System, dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if holdsGit(sys, dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func holdsGit(sys workspacefs.System, dir string) bool {
	root, err := sys.Open(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	_, err = root.Lstat(".git")
	return err == nil
}
