//go:build !linux || skillsync_portable

package workspacefs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
)

// osDir is the portable Dir, held open as an *os.Root, so every name given to it is
// resolved inside it on every platform. Every name is one path element, and a
// symlink in it is never followed: each call checks the element with Lstat and,
// where it opens something, that what it opened is the file it checked.
//
// This is the implementation on macOS, Windows and the BSDs; on Linux the
// skillsync_portable build tag selects it, so the test suite runs against it too.
type osDir struct {
	root *os.Root
	name string // for errors
}

// openAt opens the directory name of root, following a symlink in it.
func openAt(root *os.Root, name string) (*osDir, error) {
	r, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &osDir{root: r, name: path.Clean(name)}, nil
}

func (d *osDir) sub(name string) (*osDir, error) {
	if err := oneElement(name); err != nil && name != "." {
		return nil, d.fail("open", name, err)
	}
	checked, err := d.root.Lstat(name)
	if err != nil {
		return nil, d.fail("open", name, Cause(err))
	}
	if err := mustBeType(checked, fs.ModeDir); err != nil {
		return nil, d.fail("open", name, err)
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, d.fail("open", name, Cause(err))
	}
	opened, err := r.Stat(".")
	if err == nil && !os.SameFile(checked, opened) {
		err = errReplaced
	}
	if err != nil {
		r.Close()
		return nil, d.fail("open", name, Cause(err))
	}
	return &osDir{root: r, name: d.name + "/" + name}, nil
}

// errReplaced is the error for a name that was swapped for another file between
// the check of it and its opening.
var errReplaced = errors.New("replaced while it was opened")

// mustBeType refuses a file that is not of type want (0 for a regular file): a
// symlink is syscall.ELOOP, as open with O_NOFOLLOW reports it, anything else
// ENOTDIR for a directory and ErrNotRegular for a file.
func mustBeType(info fs.FileInfo, want fs.FileMode) error {
	got := typeOf(info.Mode())
	switch {
	case got == want:
		return nil
	case got == fs.ModeSymlink:
		return syscall.ELOOP
	case want == fs.ModeDir:
		return syscall.ENOTDIR
	}
	return ErrNotRegular
}

// typeOf reduces a mode to the types Entry knows. A Windows junction or other
// reparse point is irregular even when it also reports ModeDir.
func typeOf(mode fs.FileMode) fs.FileMode {
	switch t := mode.Type(); {
	case t == 0, t == fs.ModeDir, t == fs.ModeSymlink:
		return t
	}
	return fs.ModeIrregular
}

// beneath opens the directory at the slash-separated path rel inside d, resolved
// afresh from d on every call and refused if any element is a symlink or "..", one
// element at a time.
func (d *osDir) beneath(rel string) (*osDir, error) {
	for _, name := range strings.Split(rel, "/") {
		if err := oneElement(name); err != nil {
			return nil, d.fail("open", rel, err)
		}
	}
	return d.walk(rel)
}

// Close releases the directory.
func (d *osDir) Close() error {
	return d.root.Close()
}

// EntriesStamped lists d, stamped first.
func (d *osDir) EntriesStamped() ([]Entry, Stamp, error) {
	info, err := d.root.Lstat(".")
	if err != nil {
		return nil, Stamp{}, d.fail("lstat", ".", Cause(err))
	}
	entries, err := d.Entries()
	if err != nil {
		return nil, Stamp{}, err
	}
	return entries, stampOf(info), nil
}

// Entries lists d, sorted by name.
func (d *osDir) Entries() ([]Entry, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, d.fail("readdir", ".", Cause(err))
	}
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		return nil, d.fail("readdir", ".", Cause(err))
	}
	out := make([]Entry, 0, len(list))
	for _, e := range list {
		out = append(out, Entry{Name: e.Name(), Type: typeOf(e.Type())})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ReadRegular reads the regular file name in d, as the package's ReadRegular does:
// a symlink is not followed, a FIFO does not block, and past limit bytes is ErrTooLarge.
func (d *osDir) ReadRegular(name string, limit int64) ([]byte, error) {
	data, _, err := d.ReadStamped(name, limit)
	return data, err
}

func (d *osDir) ReadStamped(name string, limit int64) ([]byte, Stamp, error) {
	f, err := d.openRegular(name, os.O_RDONLY, 0, "read")
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, Stamp{}, d.fail("stat", name, err)
	}
	data, err := readAll(f.Read, info.Size(), limit)
	if err != nil {
		return nil, Stamp{}, d.fail("read", name, Cause(err))
	}
	return data, stampOf(info), nil
}

// openRegular opens name in d with flag if it is a regular file (or, with
// os.O_CREATE, does not exist yet) and is still that file once open.
func (d *osDir) openRegular(name string, flag int, perm uint32, op string) (*os.File, error) {
	if err := oneElement(name); err != nil {
		return nil, d.fail(op, name, err)
	}
	checked, err := d.root.Lstat(name)
	switch {
	case err == nil:
		if err := mustBeType(checked, 0); err != nil {
			return nil, d.fail(op, name, ErrNotRegular)
		}
	case flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist):
		return nil, d.fail("open", name, Cause(err))
	}
	f, err := d.root.OpenFile(name, flag|nonBlocking, fs.FileMode(perm))
	if err != nil {
		return nil, d.fail("open", name, Cause(err))
	}
	opened, err := f.Stat()
	if err == nil && !opened.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err == nil && checked == nil {
		// Created, or raced into place, by the open: it must be there under its
		// own name, not reached through a symlink.
		checked, err = d.root.Lstat(name)
	}
	if err == nil && !os.SameFile(checked, opened) {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, d.fail(op, name, Cause(err))
	}
	return f, nil
}

// Mkdir creates the directory name in d.
func (d *osDir) Mkdir(name string, perm uint32) error {
	if err := oneElement(name); err != nil {
		return d.fail("mkdir", name, err)
	}
	return d.fail("mkdir", name, Cause(d.root.Mkdir(name, fs.FileMode(perm))))
}

// WriteNew creates name in d, which must not exist, writes data to it and syncs
// it to the disk (F_FULLFSYNC on macOS, FlushFileBuffers on Windows); a file it
// created but could not fill is removed again.
func (d *osDir) WriteNew(name string, data []byte, perm uint32) error {
	f, err := d.CreateNew(name, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		d.root.Remove(name) // created above, so this call's own
	}
	return d.fail("write", name, Cause(err))
}

// WriteNewSynced is WriteNew, which syncs every file it writes.
func (d *osDir) WriteNewSynced(name string, data []byte, perm uint32) error {
	return d.WriteNew(name, data, perm)
}

// CreateNew creates name in d, which must not exist, for writing.
func (d *osDir) CreateNew(name string, perm uint32) (*os.File, error) {
	if err := oneElement(name); err != nil {
		return nil, d.fail("create", name, err)
	}
	// O_EXCL never follows a symlink: one in the way is an existing name.
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(perm))
	if err != nil {
		return nil, d.fail("create", name, Cause(err))
	}
	return f, nil
}

// OpenFile opens name in d with flag (os.O_RDWR|os.O_CREATE, say), never following
// a symlink there, and refuses anything that is not a regular file of one link: a
// file hard-linked from elsewhere would carry what is written to it out of d.
func (d *osDir) OpenFile(name string, flag int, perm uint32) (*os.File, error) {
	f, err := d.openRegular(name, flag, perm, "open")
	if err != nil {
		return nil, err
	}
	links, err := linkCount(f)
	if err == nil && links != 1 {
		err = ErrLinked
	}
	if err != nil {
		f.Close()
		return nil, d.fail("open", name, err)
	}
	return f, nil
}

// Link makes newName in d a hard link to oldName; it fails if newName exists, and
// with ErrLinksUnsupported where the filesystem has no hard links.
func (d *osDir) Link(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("link", oldName, newName, err)
	}
	return d.linkError("link", oldName, newName, linkFailure(Cause(d.root.Link(oldName, newName))))
}

// Rename renames oldName to newName in d, replacing newName. On Windows a rename
// that an editor, indexer or virus scanner holding either file open refuses is
// tried again for a while.
func (d *osDir) Rename(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("rename", oldName, newName, err)
	}
	err := retryWhileShared(func() error { return d.root.Rename(oldName, newName) })
	return d.linkError("rename", oldName, newName, Cause(err))
}

// Rmdir removes the empty directory name in d; it never removes anything else.
func (d *osDir) Rmdir(name string) error {
	if err := oneElement(name); err != nil {
		return d.fail("rmdir", name, err)
	}
	info, err := d.root.Lstat(name)
	if err == nil && typeOf(info.Mode()) != fs.ModeDir {
		err = syscall.ENOTDIR
	}
	if err == nil {
		err = retryWhileShared(func() error { return d.root.Remove(name) })
	}
	return d.fail("rmdir", name, Cause(err))
}

// RenameNoReplace renames oldName to newName in d, failing with fs.ErrExist if
// newName exists; where the system cannot (os.Root has no such rename, and only
// macOS has one by a descriptor), the error is ErrNoReplaceUnsupported and
// nothing was renamed.
func (d *osDir) RenameNoReplace(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("rename", oldName, newName, err)
	}
	return d.linkError("rename", oldName, newName, renameNoReplace(d.root, oldName, newName))
}

// Exchange swaps oldName and newName in d in one step; where the system cannot
// (os.Root has no swap, and only macOS has one by a descriptor), the error is
// ErrExchangeUnsupported and nothing was swapped.
func (d *osDir) Exchange(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("exchange", oldName, newName, err)
	}
	return d.linkError("exchange", oldName, newName, exchange(d.root, oldName, newName))
}

// Remove unlinks the file name in d; it never removes a directory.
func (d *osDir) Remove(name string) error {
	if err := oneElement(name); err != nil {
		return d.fail("remove", name, err)
	}
	info, err := d.root.Lstat(name)
	if err == nil && info.IsDir() {
		err = syscall.EISDIR
	}
	if err == nil {
		err = retryWhileShared(func() error { return d.root.Remove(name) })
	}
	return d.fail("remove", name, Cause(err))
}

// Lstat reports the type of name in d without following a symlink.
func (d *osDir) Lstat(name string) (fs.FileMode, error) {
	if err := oneElement(name); err != nil {
		return 0, d.fail("lstat", name, err)
	}
	info, err := d.root.Lstat(name)
	if err != nil {
		return 0, d.fail("lstat", name, Cause(err))
	}
	return typeOf(info.Mode()), nil
}

// Executable reports whether name in d has its owner's execute bit, without
// following a symlink.
func (d *osDir) Executable(name string) (bool, error) {
	if err := oneElement(name); err != nil {
		return false, d.fail("lstat", name, err)
	}
	info, err := d.root.Lstat(name)
	if err != nil {
		return false, d.fail("lstat", name, Cause(err))
	}
	return ExecutableBits && info.Mode().Perm()&0o100 != 0, nil
}

// Stamp reports the metadata of name in d without following a symlink.
func (d *osDir) Stamp(name string) (Stamp, error) {
	if err := oneElement(name); err != nil {
		return Stamp{}, d.fail("lstat", name, err)
	}
	info, err := d.root.Lstat(name)
	if err != nil {
		return Stamp{}, d.fail("lstat", name, Cause(err))
	}
	return stampOf(info), nil
}

// Filesystem names the type of the filesystem name in d is on. A directory or
// a regular file is opened (a filesystem may be mounted on either); a symlink,
// which nothing is mounted on, and anything else, which opening could block or
// act on, are taken to be on d's.
func (d *osDir) Filesystem(name string) (string, error) {
	held := d
	var f *os.File
	var err error
	if name != "." {
		if err := oneElement(name); err != nil {
			return "", d.fail("statfs", name, err)
		}
		info, lerr := d.root.Lstat(name)
		if lerr != nil {
			return "", d.fail("lstat", name, Cause(lerr))
		}
		switch typeOf(info.Mode()) {
		case fs.ModeDir:
			if held, err = d.sub(name); err != nil {
				return "", err
			}
			defer held.Close()
		case 0:
			if f, err = d.openRegular(name, os.O_RDONLY, 0, "statfs"); err != nil {
				return "", err
			}
		}
	}
	if f == nil {
		if f, err = held.root.Open("."); err != nil {
			return "", d.fail("open", name, Cause(err))
		}
	}
	defer f.Close()
	kind, err := filesystemType(f.Fd())
	return kind, d.fail("statfs", name, err)
}

// Flush has nothing left to do: WriteNew synced every file it wrote.
func (d *osDir) Flush() error { return nil }

// WriteBack has nothing to start: WriteNew synced every file it wrote.
func (d *osDir) WriteBack() {}

// sharingBackoff is how long retryWhileShared waits before each new try: a little
// over a second in all, about as long as a virus scanner or indexer holds a file
// it has just seen appear.
var sharingBackoff = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond,
	80 * time.Millisecond, 160 * time.Millisecond, 320 * time.Millisecond, 500 * time.Millisecond,
}

// retryWhileShared runs op until it succeeds, fails for another reason than
// another process holding the file open (see sharingViolation), or the backoff
// is spent; then it returns op's last error.
func retryWhileShared(op func() error) error {
	return retryTransient(op, sharingViolation, sharingBackoff, time.Sleep)
}
