package workspacefs

import (
	"io/fs"
	"os"
	"path/filepath"
)

// System opens workspaces. It is the one seam between skillsync and the disk:
// every package reads and writes a workspace through the FS it opens, and nothing
// else touches the disk. OS is the real one; ReadOnly and Faulty wrap one.
type System interface {
	// Open opens the workspace at root.
	Open(root string) (FS, error)
	// MkdirAll creates the directory of a new workspace, and its parents.
	MkdirAll(dir string, perm fs.FileMode) error
}

// FS is one open workspace. Names are relative to its root, slash-separated, and
// nothing reached through them leaves the root.
type FS interface {
	// Root is the workspace's path on the host, for messages and file events.
	Root() string

	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// ReadFile reads name, which may be a symlink to a regular file in the root.
	ReadFile(name string, limit int64) ([]byte, error)
	// ReadRegular reads name, never following a symlink in its last element.
	ReadRegular(name string, limit int64) ([]byte, error)
	// EvalSymlinks resolves every symlink on name, wherever it leads, and returns
	// the host path it ends at: how a link that escapes the root is found.
	EvalSymlinks(name string) (string, error)
	// OpenDir opens the directory name; a symlink in its last element is refused.
	OpenDir(name string) (Dir, error)
	// Links is the number of hard links to the regular file name leads to, 1
	// for anything else: a file with more can change through a name elsewhere.
	Links(name string) (uint64, error)

	MkdirAll(name string, perm fs.FileMode) error
	Remove(name string) error

	Close() error
}

// OS is the System of the real disk.
type OS struct{}

// Open opens the directory root as a workspace.
func (OS) Open(root string) (FS, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	return &rootFS{r: r, root: root}, nil
}

// MkdirAll creates dir and its parents.
func (OS) MkdirAll(dir string, perm fs.FileMode) error { return os.MkdirAll(dir, perm) }

// rootFS is an FS on an *os.Root.
type rootFS struct {
	r    *os.Root
	root string
}

func (f *rootFS) Root() string                               { return f.root }
func (f *rootFS) Stat(name string) (fs.FileInfo, error)      { return f.r.Stat(name) }
func (f *rootFS) Lstat(name string) (fs.FileInfo, error)     { return f.r.Lstat(name) }
func (f *rootFS) Readlink(name string) (string, error)       { return f.r.Readlink(name) }
func (f *rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return ReadDir(f.r, name) }
func (f *rootFS) OpenDir(name string) (Dir, error)           { return OpenDir(f.r, name) }
func (f *rootFS) MkdirAll(name string, perm fs.FileMode) error {
	return f.r.MkdirAll(name, perm)
}
func (f *rootFS) Remove(name string) error { return f.r.Remove(name) }
func (f *rootFS) Close() error             { return f.r.Close() }

func (f *rootFS) ReadFile(name string, limit int64) ([]byte, error) {
	return ReadFile(f.r, name, limit)
}

func (f *rootFS) ReadRegular(name string, limit int64) ([]byte, error) {
	return ReadRegular(f.r, name, limit)
}

func (f *rootFS) Links(name string) (uint64, error) {
	info, err := f.r.Stat(name)
	if err != nil || !info.Mode().IsRegular() {
		return 1, err
	}
	return linksOf(f.r, name, info)
}

func (f *rootFS) EvalSymlinks(name string) (string, error) {
	return filepath.EvalSymlinks(filepath.Join(f.root, filepath.FromSlash(name)))
}

// RealPath is the absolute path of dir with every symlink on it resolved: where a
// workspace really is, so that every part of skillsync names it alike.
func RealPath(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// StatIn stats the file name in the directory dir: how the workspace is looked for
// in the directories above the current one, before there is one to open.
func StatIn(dir, name string) (fs.FileInfo, error) {
	return os.Stat(filepath.Join(dir, name))
}
