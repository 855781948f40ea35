// Package observed reads what is on disk in the target directories and says, for each
// skill file, whether skillsync owns it. It only reads.
package observed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/banner"
)

// SkillFile is the one file per skill directory the clients read.
const SkillFile = "SKILL.md"

// Ownership says who a file on disk belongs to.
type Ownership int

const (
	// Unowned files belong to a person: no banner, or a banner for another path.
	Unowned Ownership = iota
	// Owned files carry a banner for their own path and an intact digest.
	Owned
	// Modified files carry a banner for their own path but were edited by hand.
	Modified
)

func (o Ownership) String() string {
	switch o {
	case Owned:
		return "owned"
	case Modified:
		return "modified"
	}
	return "unowned"
}

// File is one skill file found on disk.
type File struct {
	Path      string // workspace-relative, slash-separated
	Ownership Ownership
	Owner     string // from the banner, when there is one
	Reason    string // why an unowned file is not skillsync's
	Bytes     []byte // nil for anything that is not a regular file
}

// State is everything Scan saw.
type State struct {
	Files map[string]File
	// Blocked maps a target directory skillsync must not write into to the reason.
	Blocked map[string]string
	// TempFiles are leftovers of an interrupted write, workspace-relative.
	TempFiles []string
}

// Scan reads each target directory one level deep, the way the clients discover
// skills. It never follows a symlink: a symlinked target directory is blocked and a
// symlinked skill directory or SKILL.md is a person's.
func Scan(root string, dirs []string) (State, error) {
	st := State{Files: map[string]File{}, Blocked: map[string]string{}}
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	for _, dir := range sorted {
		if err := st.scanDir(root, dir); err != nil {
			return State{}, err
		}
	}
	sort.Strings(st.TempFiles)
	return st, nil
}

func (st *State) scanDir(root, dir string) error {
	exists, reason, err := plainDirectory(root, dir)
	if err != nil || !exists {
		return err
	}
	if reason != "" {
		st.Blocked[dir] = reason
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, unwrap(err))
	}
	for _, e := range entries {
		skillPath := path.Join(dir, e.Name(), SkillFile)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			st.Files[skillPath] = File{Path: skillPath, Reason: path.Join(dir, e.Name()) + " is a symlink"}
		case !e.IsDir():
			st.Files[skillPath] = File{Path: skillPath, Reason: path.Join(dir, e.Name()) + " is not a directory"}
		default:
			if err := st.scanSkillDir(root, path.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *State) scanSkillDir(root, skillDir string) error {
	full := filepath.Join(root, filepath.FromSlash(skillDir))
	entries, err := os.ReadDir(full)
	if err != nil {
		return fmt.Errorf("read %s: %w", skillDir, unwrap(err))
	}
	for _, e := range entries {
		rel := path.Join(skillDir, e.Name())
		switch {
		case banner.IsTempName(e.Name()) && e.Type().IsRegular():
			st.TempFiles = append(st.TempFiles, rel)
		case e.Name() != SkillFile:
		case e.Type()&fs.ModeSymlink != 0:
			st.Files[rel] = File{Path: rel, Reason: rel + " is a symlink"}
		case !e.Type().IsRegular():
			st.Files[rel] = File{Path: rel, Reason: rel + " is not a regular file"}
		default:
			data, err := os.ReadFile(filepath.Join(full, e.Name()))
			if err != nil {
				return fmt.Errorf("read %s: %w", rel, unwrap(err))
			}
			st.Files[rel] = Classify(rel, data)
		}
	}
	return nil
}

// Classify decides who owns the file at rel with the given content.
func Classify(rel string, data []byte) File {
	f := File{Path: rel, Bytes: data}
	mark, unmarked, err := banner.Parse(data)
	switch {
	case err != nil:
		f.Reason = "no skillsync banner"
	case mark.Path != rel:
		f.Owner = mark.Owner
		f.Reason = "banner names " + mark.Path + " (a copy is not skillsync's)"
	case !banner.Verify(mark, unmarked):
		f.Ownership, f.Owner = Modified, mark.Owner
	default:
		f.Ownership, f.Owner = Owned, mark.Owner
	}
	return f
}

// plainDirectory reports whether dir exists, and a reason it must not be used when
// it or any parent below root is a symlink or not a directory.
func plainDirectory(root, dir string) (exists bool, reason string, err error) {
	prefix := ""
	for _, part := range strings.Split(dir, "/") {
		prefix = path.Join(prefix, part)
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(prefix)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, "", nil
		case errors.Is(err, fs.ErrPermission):
			return false, "", fmt.Errorf("read %s: %w", prefix, fs.ErrPermission)
		case err != nil:
			return false, "", fmt.Errorf("read %s: %w", prefix, unwrap(err))
		case info.Mode()&fs.ModeSymlink != 0:
			return true, prefix + " is a symlink; skillsync does not write through symlinks", nil
		case !info.IsDir():
			return true, prefix + " is not a directory", nil
		}
	}
	return true, "", nil
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
