// Package gitfiles is what skillsync writes so that git treats the skills it
// generates as the workspace says: a file beside each generated SKILL.md, owned
// like it, for git to ignore the skill or to mark it as generated for review tools.
package gitfiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The files, each in a generated skill's directory, and what they hold after
// skillsync's banner. A pattern in them applies to the directory they are in.
const (
	// Ignore makes git ignore the skill directory, itself included.
	Ignore        = ".gitignore"
	IgnoreContent = "*\n"
	// Attributes marks every file of the skill directory as generated, which
	// GitHub and other review tools collapse in diffs.
	Attributes        = ".gitattributes"
	AttributesContent = "* linguist-generated=true\n"
)

// Names are the files this package knows, for a scan to look for.
var Names = []string{Ignore, Attributes}

// InWorkTree says dir is inside a git work tree: it or a directory above it holds
// .git (a directory, or the file a linked worktree or submodule has).
func InWorkTree(dir string) bool {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
