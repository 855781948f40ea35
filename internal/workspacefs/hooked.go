package workspacefs

import (
	"io/fs"
	"os"
	"path"
)

// check is asked before every operation of a hooked FS or Dir, with the
// operation's name, whether it writes, and the workspace-relative path it is on
// (for a rename or link, the new name); an error stops the operation.
type check func(op string, write bool, name string) error

// hookedFS is an FS whose every operation is checked first. Each method is
// spelled out, not inherited by embedding, so that an operation added to FS
// cannot pass a decorator unchecked.
type hookedFS struct {
	base  FS
	check check
}

func (f *hookedFS) Root() string { return f.base.Root() }
func (f *hookedFS) Close() error { return f.base.Close() }

func (f *hookedFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check("Stat", false, name); err != nil {
		return nil, pathError("stat", name, err)
	}
	return f.base.Stat(name)
}

func (f *hookedFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.check("Lstat", false, name); err != nil {
		return nil, pathError("lstat", name, err)
	}
	return f.base.Lstat(name)
}

func (f *hookedFS) Readlink(name string) (string, error) {
	if err := f.check("Readlink", false, name); err != nil {
		return "", pathError("readlink", name, err)
	}
	return f.base.Readlink(name)
}

func (f *hookedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check("ReadDir", false, name); err != nil {
		return nil, pathError("readdir", name, err)
	}
	return f.base.ReadDir(name)
}

func (f *hookedFS) ReadFile(name string, limit int64) ([]byte, error) {
	if err := f.check("ReadFile", false, name); err != nil {
		return nil, pathError("read", name, err)
	}
	return f.base.ReadFile(name, limit)
}

func (f *hookedFS) ReadRegular(name string, limit int64) ([]byte, error) {
	if err := f.check("ReadRegular", false, name); err != nil {
		return nil, pathError("read", name, err)
	}
	return f.base.ReadRegular(name, limit)
}

func (f *hookedFS) EvalSymlinks(name string) (string, error) {
	if err := f.check("EvalSymlinks", false, name); err != nil {
		return "", pathError("evalsymlinks", name, err)
	}
	return f.base.EvalSymlinks(name)
}

func (f *hookedFS) Links(name string) (uint64, error) {
	if err := f.check("Links", false, name); err != nil {
		return 0, pathError("stat", name, err)
	}
	return f.base.Links(name)
}

func (f *hookedFS) OpenDir(name string) (Dir, error) {
	if err := f.check("OpenDir", false, name); err != nil {
		return nil, pathError("open", name, err)
	}
	d, err := f.base.OpenDir(name)
	if err != nil {
		return nil, err
	}
	return &hookedDir{base: d, at: path.Clean(name), check: f.check}, nil
}

func (f *hookedFS) MkdirAll(name string, perm fs.FileMode) error {
	if err := f.check("MkdirAll", true, name); err != nil {
		return pathError("mkdir", name, err)
	}
	return f.base.MkdirAll(name, perm)
}

func (f *hookedFS) Remove(name string) error {
	if err := f.check("Remove", true, name); err != nil {
		return pathError("remove", name, err)
	}
	return f.base.Remove(name)
}

// hookedDir is a Dir whose every operation is checked first; at is its
// workspace-relative path.
type hookedDir struct {
	base  Dir
	at    string
	check check
}

func (d *hookedDir) rel(name string) string { return path.Join(d.at, name) }

func (d *hookedDir) Close() error { return d.base.Close() }

func (d *hookedDir) Sub(name string) (Dir, error) {
	if err := d.check("Sub", false, d.rel(name)); err != nil {
		return nil, pathError("open", d.rel(name), err)
	}
	sub, err := d.base.Sub(name)
	if err != nil {
		return nil, err
	}
	return &hookedDir{base: sub, at: d.rel(name), check: d.check}, nil
}

func (d *hookedDir) Beneath(rel string) (Dir, error) {
	if err := d.check("Beneath", false, d.rel(rel)); err != nil {
		return nil, pathError("open", d.rel(rel), err)
	}
	sub, err := d.base.Beneath(rel)
	if err != nil {
		return nil, err
	}
	return &hookedDir{base: sub, at: d.rel(rel), check: d.check}, nil
}

func (d *hookedDir) Entries() ([]Entry, error) {
	if err := d.check("Entries", false, d.at); err != nil {
		return nil, pathError("readdir", d.at, err)
	}
	return d.base.Entries()
}

// EntriesStamped is checked as an Entries: it is one.
func (d *hookedDir) EntriesStamped() ([]Entry, Stamp, error) {
	if err := d.check("Entries", false, d.at); err != nil {
		return nil, Stamp{}, pathError("readdir", d.at, err)
	}
	return d.base.EntriesStamped()
}

func (d *hookedDir) Lstat(name string) (fs.FileMode, error) {
	if err := d.check("Lstat", false, d.rel(name)); err != nil {
		return 0, pathError("lstat", d.rel(name), err)
	}
	return d.base.Lstat(name)
}

func (d *hookedDir) Executable(name string) (bool, error) {
	if err := d.check("Executable", false, d.rel(name)); err != nil {
		return false, pathError("lstat", d.rel(name), err)
	}
	return d.base.Executable(name)
}

func (d *hookedDir) Stamp(name string) (Stamp, error) {
	if err := d.check("Stamp", false, d.rel(name)); err != nil {
		return Stamp{}, pathError("lstat", d.rel(name), err)
	}
	return d.base.Stamp(name)
}

func (d *hookedDir) Filesystem(name string) (string, error) {
	if err := d.check("Filesystem", false, d.rel(name)); err != nil {
		return "", pathError("statfs", d.rel(name), err)
	}
	return d.base.Filesystem(name)
}

func (d *hookedDir) ReadRegular(name string, limit int64) ([]byte, error) {
	if err := d.check("ReadRegular", false, d.rel(name)); err != nil {
		return nil, pathError("read", d.rel(name), err)
	}
	return d.base.ReadRegular(name, limit)
}

// ReadStamped is checked as a ReadRegular: it is one.
func (d *hookedDir) ReadStamped(name string, limit int64) ([]byte, Stamp, error) {
	if err := d.check("ReadRegular", false, d.rel(name)); err != nil {
		return nil, Stamp{}, pathError("read", d.rel(name), err)
	}
	return d.base.ReadStamped(name, limit)
}

func (d *hookedDir) Mkdir(name string, perm uint32) error {
	if err := d.check("Mkdir", true, d.rel(name)); err != nil {
		return pathError("mkdir", d.rel(name), err)
	}
	return d.base.Mkdir(name, perm)
}

func (d *hookedDir) WriteNew(name string, data []byte, perm uint32) error {
	if err := d.check("WriteNew", true, d.rel(name)); err != nil {
		return pathError("write", d.rel(name), err)
	}
	return d.base.WriteNew(name, data, perm)
}

// WriteNewSynced strikes as WriteNew does, then as "SyncFile" on the same path,
// where a failing disk fails the sync of that file.
func (d *hookedDir) WriteNewSynced(name string, data []byte, perm uint32) error {
	if err := d.check("WriteNew", true, d.rel(name)); err != nil {
		return pathError("write", d.rel(name), err)
	}
	if err := d.check("SyncFile", true, d.rel(name)); err != nil {
		return pathError("sync", d.rel(name), err)
	}
	return d.base.WriteNewSynced(name, data, perm)
}

func (d *hookedDir) CreateNew(name string, perm uint32) (*os.File, error) {
	if err := d.check("CreateNew", true, d.rel(name)); err != nil {
		return nil, pathError("create", d.rel(name), err)
	}
	return d.base.CreateNew(name, perm)
}

func (d *hookedDir) OpenFile(name string, flag int, perm uint32) (*os.File, error) {
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
	if err := d.check("OpenFile", write, d.rel(name)); err != nil {
		return nil, pathError("open", d.rel(name), err)
	}
	return d.base.OpenFile(name, flag, perm)
}

func (d *hookedDir) Link(oldName, newName string) error {
	if err := d.check("Link", true, d.rel(newName)); err != nil {
		return &os.LinkError{Op: "link", Old: d.rel(oldName), New: d.rel(newName), Err: err}
	}
	return d.base.Link(oldName, newName)
}

func (d *hookedDir) Rename(oldName, newName string) error {
	if err := d.check("Rename", true, d.rel(newName)); err != nil {
		return &os.LinkError{Op: "rename", Old: d.rel(oldName), New: d.rel(newName), Err: err}
	}
	return d.base.Rename(oldName, newName)
}

func (d *hookedDir) RenameNoReplace(oldName, newName string) error {
	if err := d.check("RenameNoReplace", true, d.rel(newName)); err != nil {
		return &os.LinkError{Op: "rename", Old: d.rel(oldName), New: d.rel(newName), Err: err}
	}
	return d.base.RenameNoReplace(oldName, newName)
}

func (d *hookedDir) Exchange(oldName, newName string) error {
	if err := d.check("Exchange", true, d.rel(newName)); err != nil {
		return &os.LinkError{Op: "exchange", Old: d.rel(oldName), New: d.rel(newName), Err: err}
	}
	return d.base.Exchange(oldName, newName)
}

func (d *hookedDir) Remove(name string) error {
	if err := d.check("Remove", true, d.rel(name)); err != nil {
		return pathError("remove", d.rel(name), err)
	}
	return d.base.Remove(name)
}

func (d *hookedDir) Rmdir(name string) error {
	if err := d.check("Rmdir", true, d.rel(name)); err != nil {
		return pathError("rmdir", d.rel(name), err)
	}
	return d.base.Rmdir(name)
}

func (d *hookedDir) Flush() error {
	if err := d.check("Flush", true, d.at); err != nil {
		return pathError("sync", d.at, err)
	}
	return d.base.Flush()
}

func (d *hookedDir) WriteBack() {
	if d.check("WriteBack", true, d.at) == nil {
		d.base.WriteBack()
	}
}

func pathError(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}
