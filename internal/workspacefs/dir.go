package workspacefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
)

// Dir is a directory of the workspace held open. Every name given to it is one
// path element, and a symlink there is never followed. On Linux it is a file
// descriptor (dir_linux.go); elsewhere, and on Linux with the skillsync_portable
// build tag, an *os.Root (dir_portable.go). ReadOnly and Faulty wrap one.
type Dir interface {
	// Sub opens the directory name inside this one.
	Sub(name string) (Dir, error)
	// Beneath opens the directory at the slash-separated path rel inside this one,
	// resolved afresh and refused if any element is a symlink or "..".
	Beneath(rel string) (Dir, error)
	// Entries lists the directory, sorted by name.
	Entries() ([]Entry, error)
	// EntriesStamped is Entries that also gives the directory's stamp, taken
	// from the directory it lists, before listing it.
	EntriesStamped() ([]Entry, Stamp, error)
	// Lstat reports the type of name without following a symlink.
	Lstat(name string) (fs.FileMode, error)
	// Executable reports whether the file name, not followed if a symlink, has
	// its owner's execute bit; always false where files have none (Windows,
	// see ExecutableBits).
	Executable(name string) (bool, error)
	// Stamp is what name's metadata says of its content, without following a
	// symlink.
	Stamp(name string) (Stamp, error)
	// Filesystem names the type of the filesystem name is on ("." for the
	// directory itself), without following a symlink: "ext4", "apfs", "msdos"…
	// (see StampsHold).
	Filesystem(name string) (string, error)
	// ReadRegular reads the regular file name: a symlink is not followed, a FIFO
	// does not block, and past limit bytes is ErrTooLarge.
	ReadRegular(name string, limit int64) ([]byte, error)
	// ReadStamped is ReadRegular that also gives the stamp of what it read,
	// taken from the file it opened, before reading it.
	ReadStamped(name string, limit int64) ([]byte, Stamp, error)

	// Mkdir creates the directory name.
	Mkdir(name string, perm uint32) error
	// WriteNew creates name, which must not exist, and writes data to it; a file
	// it created but could not fill is removed again.
	WriteNew(name string, data []byte, perm uint32) error
	// WriteNewSynced is WriteNew that makes data durable before it returns, so
	// that a Flush has nothing left to do for it: for a few files, where one
	// flush of the whole filesystem would also wait for every other writer's
	// data.
	WriteNewSynced(name string, data []byte, perm uint32) error
	// CreateNew creates name, which must not exist, for writing.
	CreateNew(name string, perm uint32) (*os.File, error)
	// OpenFile opens name with flag, never following a symlink, and refuses
	// anything but a regular file of one link (ErrNotRegular, ErrLinked).
	OpenFile(name string, flag int, perm uint32) (*os.File, error)
	// Link makes newName a hard link to oldName; it fails if newName exists, and
	// with ErrLinksUnsupported where the filesystem has no hard links.
	Link(oldName, newName string) error
	// Rename renames oldName to newName, replacing newName.
	Rename(oldName, newName string) error
	// RenameNoReplace renames oldName to newName, failing with fs.ErrExist if
	// newName exists, or ErrNoReplaceUnsupported where that cannot be done.
	RenameNoReplace(oldName, newName string) error
	// Exchange swaps oldName and newName, both of which must exist, in one
	// step, or fails with ErrExchangeUnsupported where that cannot be done.
	Exchange(oldName, newName string) error
	// Remove unlinks the file name; it never removes a directory.
	Remove(name string) error
	// Rmdir removes the empty directory name; it never removes anything else.
	Rmdir(name string) error
	// Flush makes everything WriteNew wrote durable; it does nothing when
	// every file written through this Dir and those opened from it since the
	// last Flush was written with WriteNewSynced.
	Flush() error
	// WriteBack has the disk start on what WriteNew wrote on this filesystem
	// so far, for a Flush that follows to wait for less. It makes nothing
	// durable that a Flush need not still make so, and reports nothing.
	WriteBack()

	Close() error
}

// asDir returns d as a Dir, and a nil Dir, not a nil *osDir in one, with an error.
func asDir(d *osDir, err error) (Dir, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Entry is one name in a directory and its type bits (fs.ModeDir, fs.ModeSymlink,
// 0 for a regular file, fs.ModeIrregular for anything else).
// Stamp is a file's size, modification and change times and identity: what
// git's index keeps to know a file unchanged without reading it. A write, a
// rename onto it and a chmod all change the change time, which no one can set.
// Valid is false where the system keeps no change time (Windows): such a stamp
// stands for nothing, and the file must be read.
type Stamp struct {
	Size         int64
	Mtime, Ctime int64 // nanoseconds since the epoch
	Ino, Dev     uint64
	Valid        bool
}

// ExecutableBits says files have execute bits here: not on Windows, where a
// script's is neither kept nor read.
const ExecutableBits = runtime.GOOS != "windows"

type Entry struct {
	Name string
	Type fs.FileMode
}

// readAll reads through read to the end into a buffer sized for size bytes (a
// reader of a whole file keeps no spare capacity), and past limit bytes fails with
// ErrTooLarge. One read usually does it: a byte more than size is asked for, and
// a read that stops short at size is the end; a file that grew since it was
// measured is read on to its end.
func readAll(read func([]byte) (int, error), size, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(size, 0), limit)+1)
	for {
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data)) // the file grew since it was measured
		}
		buf := data[len(data):min(int64(cap(data)), limit+1)]
		n, err := read(buf)
		if n > 0 {
			data = data[:len(data)+n]
		}
		if err == io.EOF || (err == nil && n == 0) {
			return slices.Clip(data), nil
		}
		if err == nil && n == len(data) && n < len(buf) && int64(n) == size {
			// A first read that stops short where the file's measured size ends
			// is at its end: asking again only to hear so is a system call per
			// file. A reader that gives less than it is asked for, a little at a
			// time, is read to the end it reports.
			return slices.Clip(data), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ErrLinked is OpenFile's error for a file with more than one hard link.
var ErrLinked = errors.New("a hard link shared with another file")

// ErrNoReplaceUnsupported is RenameNoReplace where renameat2 cannot refuse to replace.
var ErrNoReplaceUnsupported = errors.New("rename without replacing is not supported here")

// ErrExchangeUnsupported is Exchange where the system cannot swap two names in one step.
var ErrExchangeUnsupported = errors.New("swapping two files in one step is not supported here")

// ErrNotOneElement is the error for a name that is not one path element.
var ErrNotOneElement = errors.New("not a single path element")

// oneElement refuses a name that would lead out of the directory: only "..", an
// empty name, or a name holding a separator could (on Windows a backslash too,
// and a colon, which names a drive or a file's alternate data stream).
func oneElement(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, elementSeparators) {
		return ErrNotOneElement
	}
	return nil
}

// ErrLockHeld is TryLock's error for a lock another process holds.
var ErrLockHeld = errors.New("locked by another process")

// ErrLinksUnsupported is Link's error where the filesystem has no hard links
// (FAT, some network and FUSE filesystems) or refuses them.
var ErrLinksUnsupported = errors.New("hard links are not supported here")

// linkFailure marks a link error that means the filesystem cannot link at all.
func linkFailure(err error) error {
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, cannot := range linkUnsupportedErrors {
		if errors.Is(err, cannot) {
			return fmt.Errorf("%w: %w", ErrLinksUnsupported, err)
		}
	}
	return err
}
