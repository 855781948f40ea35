//go:build linux

package workspacefs

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// linuxFilesystems names the filesystems Linux tells apart by the magic number
// fstatfs gives: those stamps hold on (see StampsHold) and the common ones they
// do not.
var linuxFilesystems = map[uint32]string{
	unix.EXT4_SUPER_MAGIC:      "ext4", // ext2 and ext3 too: one magic
	unix.XFS_SUPER_MAGIC:       "xfs",
	unix.BTRFS_SUPER_MAGIC:     "btrfs",
	unix.TMPFS_MAGIC:           "tmpfs",
	unix.OVERLAYFS_SUPER_MAGIC: "overlay",
	0x2fc12fc1:                 "zfs", // OpenZFS, outside the kernel's headers
	unix.F2FS_SUPER_MAGIC:      "f2fs",
	unix.RAMFS_MAGIC:           "ramfs",
	unix.MSDOS_SUPER_MAGIC:     "msdos",
	unix.EXFAT_SUPER_MAGIC:     "exfat",
	unix.FUSE_SUPER_MAGIC:      "fuse",
	unix.NFS_SUPER_MAGIC:       "nfs",
	unix.SMB2_SUPER_MAGIC:      "smb2",
	unix.CIFS_SUPER_MAGIC:      "cifs",
	unix.V9FS_MAGIC:            "9p",
	unix.SQUASHFS_MAGIC:        "squashfs",
}

// filesystemType names the type of the filesystem the open file fd is on; a
// magic number not named above is given in hexadecimal.
func filesystemType(fd uintptr) (string, error) {
	st, err := fstatfs(fd)
	if err != nil {
		return "", err
	}
	magic := uint32(st.Type)
	if name, ok := linuxFilesystems[magic]; ok {
		return name, nil
	}
	return fmt.Sprintf("0x%x", magic), nil
}
