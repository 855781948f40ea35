//go:build darwin

package workspacefs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames oldName to newName in root with renameatx_np's
// RENAME_EXCL, which fails with EEXIST if newName is there.
func renameNoReplace(root *os.Root, oldName, newName string) error {
	return renameatx(root, oldName, newName, unix.RENAME_EXCL, ErrNoReplaceUnsupported)
}

// exchange swaps oldName and newName in root with renameatx_np's RENAME_SWAP
// (APFS and HFS+ have it).
func exchange(root *os.Root, oldName, newName string) error {
	return renameatx(root, oldName, newName, unix.RENAME_SWAP, ErrExchangeUnsupported)
}

// renameatx runs renameatx_np with flag on two names of root's directory, by a
// descriptor of it (os.Root keeps its own to itself). Any failure but a name
// missing or taken gives unsupported, and nothing was renamed: filesystems
// without the flag answer ENOTSUP, EOPNOTSUPP or EINVAL, others (FUSE, network
// shares) other errors, and a directory that may be written but not read gives
// no descriptor; the callers' fallback, the rename or hard link macOS had
// before, meets any real failure again on its own.
func renameatx(root *os.Root, oldName, newName string, flag uint32, unsupported error) error {
	dir, err := root.Open(".")
	if err != nil {
		return unsupported
	}
	defer dir.Close()
	conn, err := dir.SyscallConn()
	if err != nil {
		return unsupported
	}
	renameErr := unsupported
	conn.Control(func(fd uintptr) {
		renameErr = unix.RenameatxNp(int(fd), oldName, int(fd), newName, flag)
		for errors.Is(renameErr, unix.EINTR) {
			renameErr = unix.RenameatxNp(int(fd), oldName, int(fd), newName, flag)
		}
	})
	if renameErr != nil && !errors.Is(renameErr, unix.ENOENT) && !errors.Is(renameErr, unix.EEXIST) {
		return unsupported
	}
	return renameErr
}
