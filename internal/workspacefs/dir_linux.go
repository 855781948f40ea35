//go:build linux && !skillsync_portable

package workspacefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// osDir is the Linux Dir, held open by its descriptor, for the hot paths that touch
// thousands of skill directories: every name given to it is one path element,
// resolved against the descriptor and never followed if it is a symlink, so it is
// as confined as an *os.Root at one system call per step (a root walks the path
// again on every call, with an open and a close per element).
type osDir struct {
	fd   int
	file *os.File // when opened through an *os.Root, it owns fd
	name string   // for errors
	// unsynced counts the files WriteNew wrote through this Dir, and those
	// opened from it, since the last Flush.
	unsynced *atomic.Int64
	// listed says Entries has read the directory through fd, which a next
	// listing rewinds; a descriptor just opened is at the start already.
	listed bool
}

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openAt opens the directory name of root, following a symlink in it.
func openAt(root *os.Root, name string) (*osDir, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &osDir{fd: int(f.Fd()), file: f, name: path.Clean(name), unsynced: new(atomic.Int64)}, nil
}

func (d *osDir) sub(name string) (*osDir, error) {
	if err := oneElement(name); err != nil && name != "." {
		return nil, d.fail("open", name, err)
	}
	fd, err := retry(func() (int, error) { return unix.Openat(d.fd, name, dirFlags, 0) })
	if err != nil {
		return nil, d.fail("open", name, err)
	}
	return &osDir{fd: fd, name: d.name + "/" + name, unsynced: d.unsynced}, nil
}

// beneath opens the directory at the slash-separated path rel inside d, resolved
// afresh from d on every call and refused if any element is a symlink or "..": a
// directory moved out from under d since an earlier call is not followed. It is one
// openat2 system call where the kernel has it, one openat per element otherwise.
func (d *osDir) beneath(rel string) (*osDir, error) {
	for _, name := range strings.Split(rel, "/") {
		if err := oneElement(name); err != nil {
			return nil, d.fail("open", rel, err)
		}
	}
	how := unix.OpenHow{
		Flags:   dirFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := retry(func() (int, error) { return unix.Openat2(d.fd, rel, &how) })
	if err == nil {
		return &osDir{fd: fd, name: d.name + "/" + rel, unsynced: d.unsynced}, nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EINVAL) {
		return nil, d.fail("open", rel, err)
	}
	// No openat2 (before Linux 5.6, or filtered by a sandbox): walk the elements.
	return d.walk(rel)
}

// Close releases the descriptor.
func (d *osDir) Close() error {
	if d.file != nil {
		return d.file.Close()
	}
	return unix.Close(d.fd)
}

// EntriesStamped lists d, stamped first by one fstat of the directory it lists.
func (d *osDir) EntriesStamped() ([]Entry, Stamp, error) {
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstat(d.fd, &st) }); err != nil {
		return nil, Stamp{}, d.fail("stat", ".", err)
	}
	entries, err := d.Entries()
	if err != nil {
		return nil, Stamp{}, err
	}
	return entries, stampOfStat(&st), nil
}

// Entries lists d, sorted by name.
func (d *osDir) Entries() ([]Entry, error) {
	var out []Entry
	buf := make([]byte, 8<<10)
	if d.listed {
		if _, err := unix.Seek(d.fd, 0, 0); err != nil {
			return nil, d.fail("readdir", ".", err)
		}
	}
	d.listed = true
	for {
		n, err := retry(func() (int, error) { return unix.Getdents(d.fd, buf) })
		if err != nil {
			return nil, d.fail("readdir", ".", err)
		}
		if n <= 0 {
			break
		}
		for rec := buf[:n]; len(rec) > 0; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&rec[16])))
			if reclen == 0 || reclen > len(rec) {
				return nil, d.fail("readdir", ".", fmt.Errorf("malformed directory entry"))
			}
			typ, name := rec[18], cString(rec[19:reclen])
			rec = rec[reclen:]
			if name == "." || name == ".." {
				continue
			}
			mode, err := d.entryType(name, typ)
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone since it was listed
			}
			if err != nil {
				return nil, err
			}
			out = append(out, Entry{Name: name, Type: mode})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (d *osDir) entryType(name string, typ byte) (fs.FileMode, error) {
	switch typ {
	case unix.DT_REG:
		return 0, nil
	case unix.DT_DIR:
		return fs.ModeDir, nil
	case unix.DT_LNK:
		return fs.ModeSymlink, nil
	case unix.DT_UNKNOWN:
		// Some filesystems do not fill in the type: ask.
		var st unix.Stat_t
		if _, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
			return 0, d.fail("lstat", name, err)
		}
		return modeType(st.Mode), nil
	}
	return fs.ModeIrregular, nil
}

func modeType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// ReadRegular reads the regular file name in d, as the package's ReadRegular does:
// a symlink is not followed, a FIFO does not block, and past limit bytes is ErrTooLarge.
func (d *osDir) ReadRegular(name string, limit int64) ([]byte, error) {
	data, _, err := d.ReadStamped(name, limit)
	return data, err
}

func (d *osDir) ReadStamped(name string, limit int64) ([]byte, Stamp, error) {
	if err := oneElement(name); err != nil {
		return nil, Stamp{}, d.fail("read", name, err)
	}
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if errors.Is(err, unix.ELOOP) {
		return nil, Stamp{}, d.fail("read", name, ErrNotRegular)
	}
	if err != nil {
		return nil, Stamp{}, d.fail("open", name, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		return nil, Stamp{}, d.fail("stat", name, err)
	}
	if modeType(st.Mode) != 0 {
		return nil, Stamp{}, d.fail("read", name, ErrNotRegular)
	}
	data, err := readAll(func(b []byte) (int, error) {
		return retry(func() (int, error) { return unix.Read(fd, b) })
	}, st.Size, limit)
	if err != nil {
		return nil, Stamp{}, d.fail("read", name, err)
	}
	return data, stampOfStat(&st), nil
}

// Mkdir creates the directory name in d.
func (d *osDir) Mkdir(name string, perm uint32) error {
	if err := oneElement(name); err != nil {
		return d.fail("mkdir", name, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Mkdirat(d.fd, name, perm) })
	return d.fail("mkdir", name, err)
}

// WriteNew creates name in d, which must not exist, and writes data to it; a file
// it created but could not fill is removed again.
func (d *osDir) WriteNew(name string, data []byte, perm uint32) error {
	err := d.writeNew(name, data, perm, false)
	if err == nil {
		d.unsynced.Add(1)
	}
	return err
}

// WriteNewSynced is WriteNew with an fdatasync before the file is closed.
func (d *osDir) WriteNewSynced(name string, data []byte, perm uint32) error {
	return d.writeNew(name, data, perm, true)
}

func (d *osDir) writeNew(name string, data []byte, perm uint32, synced bool) error {
	if err := oneElement(name); err != nil {
		return d.fail("create", name, err)
	}
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	})
	if err != nil {
		return d.fail("create", name, err)
	}
	for rest := data; len(rest) > 0 && err == nil; {
		var n int
		if n, err = retry(func() (int, error) { return unix.Write(fd, rest) }); err == nil {
			rest = rest[n:]
		}
	}
	if err == nil && synced {
		_, err = retry(func() (int, error) { return 0, unix.Fdatasync(fd) })
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			// A file that cannot be synced alone is left to Flush, as an
			// unsynced one is.
			d.unsynced.Add(1)
			err = nil
		}
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		retry(func() (int, error) { return 0, unix.Unlinkat(d.fd, name, 0) }) // created above, so this call's own
	}
	return d.fail("write", name, err)
}

// CreateNew creates name in d, which must not exist, for writing.
func (d *osDir) CreateNew(name string, perm uint32) (*os.File, error) {
	if err := oneElement(name); err != nil {
		return nil, d.fail("create", name, err)
	}
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	})
	if err != nil {
		return nil, d.fail("create", name, err)
	}
	return os.NewFile(uintptr(fd), d.name+"/"+name), nil
}

// OpenFile opens name in d with flag (os.O_RDWR|os.O_CREATE, say), never following
// a symlink there, and refuses anything that is not a regular file of one link: a
// file hard-linked from elsewhere would carry what is written to it out of d.
func (d *osDir) OpenFile(name string, flag int, perm uint32) (*os.File, error) {
	if err := oneElement(name); err != nil {
		return nil, d.fail("open", name, err)
	}
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	})
	if errors.Is(err, unix.ELOOP) {
		return nil, d.fail("open", name, ErrNotRegular)
	}
	if err != nil {
		return nil, d.fail("open", name, err)
	}
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		unix.Close(fd)
		return nil, d.fail("stat", name, err)
	}
	switch {
	case modeType(st.Mode) != 0:
		err = ErrNotRegular
	case st.Nlink != 1:
		err = ErrLinked
	}
	if err != nil {
		unix.Close(fd)
		return nil, d.fail("open", name, err)
	}
	return os.NewFile(uintptr(fd), d.name+"/"+name), nil
}

// Link makes newName in d a hard link to oldName; it fails if newName exists, and
// with ErrLinksUnsupported where the filesystem has no hard links.
func (d *osDir) Link(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("link", oldName, newName, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Linkat(d.fd, oldName, d.fd, newName, 0) })
	if err != nil {
		return d.linkError("link", oldName, newName, linkFailure(err))
	}
	return nil
}

// Rename renames oldName to newName in d, replacing newName.
func (d *osDir) Rename(oldName, newName string) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError("rename", oldName, newName, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Renameat(d.fd, oldName, d.fd, newName) })
	if err != nil {
		return d.linkError("rename", oldName, newName, err)
	}
	return nil
}

// Rmdir removes the empty directory name in d; it never removes anything else.
func (d *osDir) Rmdir(name string) error {
	if err := oneElement(name); err != nil {
		return d.fail("rmdir", name, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR) })
	return d.fail("rmdir", name, err)
}

// RenameNoReplace renames oldName to newName in d, failing with fs.ErrExist if
// newName exists; where the kernel or filesystem cannot, the error is
// ErrNoReplaceUnsupported and nothing was renamed.
func (d *osDir) RenameNoReplace(oldName, newName string) error {
	return d.renameat2("rename", oldName, newName, unix.RENAME_NOREPLACE, ErrNoReplaceUnsupported)
}

// Exchange swaps oldName and newName in d with renameat2's RENAME_EXCHANGE;
// where the kernel or filesystem cannot, the error is ErrExchangeUnsupported
// and nothing was swapped.
func (d *osDir) Exchange(oldName, newName string) error {
	return d.renameat2("exchange", oldName, newName, unix.RENAME_EXCHANGE, ErrExchangeUnsupported)
}

// renameat2 runs renameat2 with flags on two names of d; a kernel or
// filesystem without the flag gives unsupported, and nothing was renamed.
func (d *osDir) renameat2(op, oldName, newName string, flags uint, unsupported error) error {
	if err := errors.Join(oneElement(oldName), oneElement(newName)); err != nil {
		return d.linkError(op, oldName, newName, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Renameat2(d.fd, oldName, d.fd, newName, flags) })
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		err = unsupported
	}
	return d.linkError(op, oldName, newName, err)
}

// Remove unlinks the file name in d; it never removes a directory.
func (d *osDir) Remove(name string) error {
	if err := oneElement(name); err != nil {
		return d.fail("remove", name, err)
	}
	_, err := retry(func() (int, error) { return 0, unix.Unlinkat(d.fd, name, 0) })
	return d.fail("remove", name, err)
}

// Lstat reports the type of name in d without following a symlink.
func (d *osDir) Lstat(name string) (fs.FileMode, error) {
	if err := oneElement(name); err != nil {
		return 0, d.fail("lstat", name, err)
	}
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return 0, d.fail("lstat", name, err)
	}
	return modeType(st.Mode), nil
}

// Executable reports whether name in d has its owner's execute bit, without
// following a symlink.
func (d *osDir) Executable(name string) (bool, error) {
	if err := oneElement(name); err != nil {
		return false, d.fail("lstat", name, err)
	}
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return false, d.fail("lstat", name, err)
	}
	return st.Mode&unix.S_IXUSR != 0, nil
}

// Stamp reports the metadata of name in d without following a symlink.
func (d *osDir) Stamp(name string) (Stamp, error) {
	if err := oneElement(name); err != nil {
		return Stamp{}, d.fail("lstat", name, err)
	}
	var st unix.Stat_t
	if _, err := retry(func() (int, error) { return 0, unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return Stamp{}, d.fail("lstat", name, err)
	}
	return stampOfStat(&st), nil
}

func stampOfStat(st *unix.Stat_t) Stamp {
	return Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev), Valid: true}
}

// Filesystem names the type of the filesystem name in d is on, opened without
// following a symlink and without reading it (O_PATH): a directory or a file
// mounted there is on its own.
func (d *osDir) Filesystem(name string) (string, error) {
	if name == "." {
		kind, err := filesystemType(uintptr(d.fd))
		return kind, d.fail("statfs", name, err)
	}
	if err := oneElement(name); err != nil {
		return "", d.fail("statfs", name, err)
	}
	fd, err := retry(func() (int, error) { return unix.Openat(d.fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0) })
	if err != nil {
		return "", d.fail("open", name, err)
	}
	defer unix.Close(fd)
	kind, err := filesystemType(uintptr(fd))
	return kind, d.fail("statfs", name, err)
}

// retry repeats a system call that a signal interrupted.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// Flush makes everything WriteNew wrote on d's filesystem durable, in one syncfs
// for all of them, where the kernel has it.
func (d *osDir) Flush() error {
	pending := d.unsynced.Swap(0)
	if pending == 0 {
		return nil
	}
	_, err := retry(func() (int, error) { return 0, syncfs(d.fd) })
	if err != nil {
		d.unsynced.Add(pending) // still to be made durable
	}
	if err != nil && !errors.Is(err, unix.ENOSYS) {
		return d.fail("syncfs", ".", err)
	}
	return nil
}

// WriteBack is a syncfs of d's filesystem when WriteNew wrote anything there
// since its last Flush, left counted for that Flush. The kernel has no call that
// only starts the writeback of a whole filesystem, and sync_file_range of each
// file as it is written made a cold run slower (docs/decisions.md, "Writes are
// synced once per run").
func (d *osDir) WriteBack() {
	if d.unsynced.Load() > 0 {
		retry(func() (int, error) { return 0, syncfs(d.fd) })
	}
}

// syncfs is unix.Syncfs; a test counts its calls.
var syncfs = unix.Syncfs
