package workspacefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Tree is the directory a workspace root's path led to when it was looked up:
// its path with every symlink resolved, and the directory itself. A root's path
// can come to lead elsewhere: git-sync publishes each worktree by renaming a new
// symlink over the old one, and a tool may move a directory away and put a copy
// in its place. Comparing trees tells.
type Tree struct {
	Real string
	dir  fs.FileInfo
}

// TreeAt looks up the directory root leads to now.
func TreeAt(root string) (Tree, error) {
	for range 3 {
		before, err := os.Stat(root)
		if err != nil {
			return Tree{}, err
		}
		if !before.IsDir() {
			return Tree{}, &fs.PathError{Op: "open", Path: root, Err: errors.New("not a directory")}
		}
		real, err := RealPath(root)
		if err != nil {
			return Tree{}, err
		}
		dir, err := os.Stat(real)
		if err != nil {
			return Tree{}, err
		}
		// On Windows os.SameFile reads a file's identity by its path when first
		// asked, by which time the path may name another directory: ask now.
		if os.SameFile(before, dir) {
			return Tree{Real: real, dir: dir}, nil
		}
	}
	return Tree{}, &fs.PathError{Op: "open", Path: root, Err: errors.New("leads somewhere else at every look")}
}

// Same tells whether t and o are one directory.
func (t Tree) Same(o Tree) bool {
	return t.dir != nil && o.dir != nil && os.SameFile(t.dir, o.dir)
}

// maxRootHops bounds the symlinks followed on the way to a root, as the kernel
// bounds them (ELOOP).
const maxRootHops = 40

// RootHolders lists the directories whose entries decide where the path root
// leads, each with the names in it that do: the directory of every symlink met
// on the way (a link swapped by renaming another over it), and the parent of
// the directory it ends at (moved away, and another put in its place). A root at
// the top of its volume has no parent.
func RootHolders(root string) (map[string][]string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	holders := map[string][]string{}
	add := func(dir, name string) {
		holders[dir] = append(holders[dir], name)
	}
	cur, parts := splitPath(abs)
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		next := filepath.Join(cur, part)
		info, err := os.Lstat(next)
		if err != nil {
			return holders, err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxRootHops {
			return holders, fmt.Errorf("%s: too many links", root)
		}
		add(cur, part)
		target, err := os.Readlink(next)
		if err != nil {
			return holders, err
		}
		var rest []string
		if filepath.IsAbs(target) {
			cur, rest = splitPath(target)
		} else {
			_, rest = splitPath(target)
		}
		parts = append(rest, parts...)
	}
	if parent := filepath.Dir(cur); parent != cur {
		add(parent, filepath.Base(cur))
	}
	return holders, nil
}

// splitPath splits a path into the top of its volume and its elements.
func splitPath(p string) (string, []string) {
	vol := filepath.VolumeName(p)
	top := vol + string(filepath.Separator)
	var parts []string
	for _, e := range strings.FieldsFunc(p[len(vol):], func(r rune) bool { return os.IsPathSeparator(uint8(r)) }) {
		if e != "." {
			parts = append(parts, e)
		}
	}
	return top, parts
}
