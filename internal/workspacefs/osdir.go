package workspacefs

import (
	"io/fs"
	"os"
	"path"
	"strings"
)

// What the Linux and the portable osDir (dir_linux.go, dir_portable.go) share.

// OpenDir opens name under root as a Dir; a symlink in its last element is refused.
// (os.Root follows a symlink that stays inside the root even with O_NOFOLLOW, so the
// last element is opened from its parent.)
func OpenDir(root *os.Root, name string) (Dir, error) {
	return asDir(openDir(root, name))
}

func openDir(root *os.Root, name string) (*osDir, error) {
	parentName, base := path.Split(path.Clean(name))
	if parentName == "" {
		parentName = "."
	}
	parent, err := openAt(root, parentName)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	if base == "." {
		return parent.sub(".")
	}
	d, err := parent.sub(base)
	if err != nil {
		return nil, err
	}
	d.name = path.Clean(name)
	return d, nil
}

// Sub opens the directory name inside d.
func (d *osDir) Sub(name string) (Dir, error) {
	return asDir(d.sub(name))
}

// Beneath opens the directory at the slash-separated path rel inside d.
func (d *osDir) Beneath(rel string) (Dir, error) {
	return asDir(d.beneath(rel))
}

// walk is Beneath an element at a time.
func (d *osDir) walk(rel string) (*osDir, error) {
	at := d
	for _, name := range strings.Split(rel, "/") {
		next, err := at.sub(name)
		if at != d {
			at.Close()
		}
		if err != nil {
			return nil, err
		}
		at = next
	}
	at.name = d.name + "/" + rel
	return at, nil
}

func (d *osDir) fail(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: d.name + "/" + name, Err: err}
}

func (d *osDir) linkError(op, oldName, newName string, err error) error {
	if err == nil {
		return nil
	}
	return &os.LinkError{Op: op, Old: d.name + "/" + oldName, New: d.name + "/" + newName, Err: err}
}
